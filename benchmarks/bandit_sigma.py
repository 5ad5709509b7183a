"""Figure 3 of the bandit paper with a within-topic sd estimated from real data, beside the calibrated one.

sigma is estimated from WMT23 DA+SQM segment scores (../shared/data/wmt23-mqm-mtme, en-de and zh-en: the pairs with
DA+SQM): an item's difficulty is 100 - the mean score of a crowd of 3 MT systems (20 random crowds per pair, as the
paper's three-model artificial crowd), the topic is the item's document (and, as a check, its domain); sigma is the
pooled within-topic sd (mtgauntlet/evaluation/topic_noise.py). Then the Figure 3 sweep (1M topics, cap 10,
epsilon 0.7, 0.5 / 1 / 1.5 / 3 pulls per topic, seed 13) runs with the calibrated sigma (5) and the estimate.
Usage: python benchmarks/bandit_sigma.py [--topics N] [--out benchmarks/results/bandit_sigma.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mtgauntlet.builders.bandit.simulate import Mixture, budget_curve
from mtgauntlet.evaluation.topic_noise import read_mtme, within_topic_sd

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt23-mqm-mtme" / "wmt23_mtme_seg_scores.tsv.gz"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--topics", type=int, default=1_000_000)
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--out", default="benchmarks/results/bandit_sigma.json")
    args = ap.parse_args()
    rows = read_mtme(args.data, lps=("en-de", "zh-en"))
    estimates = {
        f"{group}, crowd {crowd or 'all'}": within_topic_sd(rows, group=group, crowd=crowd)
        for group in ("doc_id", "domain")
        for crowd in (3, None)
    }
    for name, e in estimates.items():
        print(
            f"sigma ({name}): {e['sigma']:.2f} (dof {e['dof']}; per lp "
            + ", ".join(f"{lp} {v['sigma']:.2f}" for lp, v in e["per_lp"].items())
            + ")"
        )
    sigma = estimates["doc_id, crowd 3"]["sigma"]
    curves = {}
    for label, s in (("calibrated", Mixture().sigma), ("estimated", round(sigma, 2))):
        mix = Mixture()
        mix.sigma = s
        c = budget_curve(
            args.topics,
            [0.5, 1.0, 1.5, 3.0],
            ["eps-greedy", "greedy", "brute"],
            k=10,
            cap=10,
            epsilon=0.7,
            seed=13,
            mixture=mix,
        )
        curves[label] = {"sigma": s, "rows": [{k: v for k, v in r.items() if k != "pulls_per_s"} for r in c["rows"]]}
        print(f"\nFigure 3, sigma {s} ({label}), {args.topics} topics: top-10 true difficulty")
        for r in curves[label]["rows"]:
            print(
                f"  {r['pulls_per_topic']:>3} pulls/topic: oracle {r['oracle']:.1f}, "
                f"eps-greedy {r['eps-greedy']:.1f}, "
                f"greedy {r['greedy']:.1f}, brute {r['brute']:.1f}"
            )
    Path(args.out).write_text(
        json.dumps(
            {
                "data": "wmt23-mqm-mtme da_sqm en-de, zh-en",
                "estimates": estimates,
                "topics": args.topics,
                "curves": curves,
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
