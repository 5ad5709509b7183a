"""Bandit topic search on synthetic topics (paper section 3.3).

For 3.2k and 1M topics: top-10 true difficulty of each algorithm vs the oracle at 0.5 / 1 / 1.5 / 3
pulls per topic (cap c = 10, epsilon = 0.7), and pulls/s (target >= 1M pulls/s for eps-greedy at
1M topics x 1.5M pulls). Also the 50-arm check of the tests, as a rate over 100 seeds; the oracle top-1 /
top-10 at 3.2k..10M topics under the default (calibrated) mixture, beside the paper's Figure 5 figures; and the
replay protocol (`gauntlet evaluate bandit`) on a synthetic pool of 3.2k topics x 25 samples: time per replay.
Usage: python benchmarks/bandit.py [--plot DIR] [--quick]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from mtgauntlet.builders.bandit import BanditState, choose
from mtgauntlet.builders.bandit.simulate import Mixture, budget_curve, oracle_scaling, plot, simulate


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
    print(
        "50 arms (others U(0.2, 0.7), best 0.9, noise sd 0.15), budget 300, cap 10: best arm found in % of 100 seeds:",
        ", ".join(f"{a} {h}%" for a, h in hits.items()),
    )


def scaling() -> None:
    print(
        "\noracle true difficulty vs topic-set size (default mixture, seed 13; paper Figure 5: real data at 3.2k "
        "topics top-1 36 / top-10 25, synthetic more conservative, about +5 per 10x topics):"
    )
    for r in oracle_scaling([3_200, 32_000, 320_000, 3_200_000, 10_000_000]):
        print(f"  {r['topics']:>12,} topics: top-1 {r['oracle_top1']:6.2f}  top-10 {r['oracle_topk']:6.2f}")


def replay_timing(n_topics: int = 3_200, samples: int = 25) -> None:
    import time

    import numpy as np

    from mtgauntlet.builders.bandit.simulate import true_means
    from mtgauntlet.evaluation.bandit_replay import replay

    mx = Mixture()
    rng = np.random.default_rng(13)
    mu = mx.sample_means(n_topics, rng)
    pool = {f"topic {i}": list(np.clip(rng.normal(m, mx.sigma, samples), 0, 100)) for i, m in enumerate(mu)}
    budgets = [round(f * n_topics) for f in (0.5, 1.0, 1.5, 3.0)]
    print(
        f"\nreplay on a synthetic pool of {n_topics:,} topics x {samples} samples (true top-10 "
        f"{np.sort(true_means(mu, mx.sigma))[-10:].mean():.2f}), one replay per algorithm, budgets {budgets}:"
    )
    for algo in ("brute", "greedy", "eps-greedy", "greedy-10%"):
        t0 = time.perf_counter()
        res = replay(pool, [algo], budgets, k=10, cap=10, repeats=1)
        secs = time.perf_counter() - t0
        cells = "  ".join(f"{r['budget']}: {r[algo]['topk']:.2f}" for r in res["rows"])
        print(
            f"  {algo:<11} {secs:6.1f} s ({budgets[-1] / secs:,.0f} pulls/s)  top-10 true: {cells}  "
            f"(oracle {res['oracle']['topk']:.2f})"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--plot", default=None)
    ap.add_argument("--quick", action="store_true", help="only the scaling and the replay timing")
    args = ap.parse_args()
    scaling()
    replay_timing()
    if args.quick:
        return
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
        print(
            f"  {a:<11} {r['pulls_per_s']:>14,.0f} pulls/s  ({r['seconds']:.2f} s)  top-10 true mean "
            f"{r['topk_true_mean']:.2f} vs oracle {res.oracle_topk_mean:.2f}"
        )


if __name__ == "__main__":
    main()
