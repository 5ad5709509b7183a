"""Bandit topic search on synthetic topics (paper section 3.3).

For 3.2k and 1M topics: top-10 true difficulty of each algorithm vs the oracle at 0.5 / 1 / 1.5 / 3
pulls per topic (cap c = 10, epsilon = 0.7), and pulls/s (target >= 1M pulls/s for eps-greedy at
1M topics x 1.5M pulls). Also the 50-arm check of the tests, as a rate over 100 seeds.
Usage: python benchmarks/bandit.py [--plot DIR]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from mtgauntlet.builders.bandit import BanditState, choose
from mtgauntlet.builders.bandit.simulate import budget_curve, plot, simulate


def fifty_arms() -> None:
    hits = {"eps-greedy": 0, "greedy": 0, "ucb": 0, "brute": 0}
    for seed in range(100):
        r = random.Random(1000 + seed)
        means = [r.uniform(0.2, 0.7) for _ in range(50)]
        best = r.randrange(50)
        means[best] = 0.9
        for algo in hits:
            rng, state = random.Random(seed), BanditState(50)
            while state.pulls < 300:
                for t in choose(algo, state, rng, cap=10, epsilon=0.7):
                    state.update(t, rng.gauss(means[t], 0.15))
            hits[algo] += state.top_k(1) == [best]
    print("50 arms (others U(0.2, 0.7), best 0.9, noise sd 0.15), budget 300, cap 10: best arm found in % of 100 seeds:",
          ", ".join(f"{a} {h}%" for a, h in hits.items()))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--plot", default=None)
    args = ap.parse_args()
    fifty_arms()
    algos = ["eps-greedy", "greedy", "brute", "ucb"]
    for n in (3_200, 1_000_000):
        curve = budget_curve(n, (0.5, 1.0, 1.5, 3.0), algos, k=10, cap=10, epsilon=0.7)
        print(f"\n{n:,} topics: top-10 true mean difficulty (oracle {curve['rows'][0]['oracle']:.2f})")
        print(f"  {'pulls/topic':<12}" + "".join(f"{a:>12}" for a in algos))
        for r in curve["rows"]:
            cells = "".join(f"{r[a]:>12.2f}" if r[a] is not None else f"{'skipped':>12}" for a in algos)
            print(f"  {r['pulls_per_topic']:<12}" + cells)
        if args.plot:
            Path(args.plot).mkdir(parents=True, exist_ok=True)
            plot(curve, Path(args.plot) / f"bandit_{n}.png")
    res = simulate(1_000_000, 1_500_000, ["eps-greedy", "greedy", "brute"], k=10, cap=10)
    print("\n1M topics x 1.5M pulls:")
    for a, r in res.algorithms.items():
        print(f"  {a:<11} {r['pulls_per_s']:>14,.0f} pulls/s  ({r['seconds']:.2f} s)  top-10 true mean "
              f"{r['topk_true_mean']:.2f} vs oracle {res.oracle_topk_mean:.2f}")


if __name__ == "__main__":
    main()
