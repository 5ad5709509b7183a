"""The metric-evaluation statistics (mtgauntlet.evaluation.statistics): speed on a WMT-sized matrix, and the field's
figures for chrF on real WMT23 MQM scores.

1. Speed: 15 systems x 10,000 items of random scores (human scores rounded, so ties abound): the tie-calibrated
   acc_eq by item (1.05 M pairs, one O(P log P) sweep), by system with sample_rate 0.01, Kendall tau-b flattened
   (150,000 entries, O(n log^2 n)) and by item, Pearson by item, and WMT24's soft pairwise accuracy (1,000
   permutations).
2. chrF (sacrebleu sentence chrF, reference refA) against MQM on WMT23 (../shared/data/wmt23-mqm-mtme, rows with an
   MQM score, human references left out): per language pair, segment-level Pearson, Kendall tau-b and acc_eq by
   item and flattened ("none", acc_eq with sample_rate 0.02), system-level pairwise accuracy, Pearson and SPA.
Usage: python benchmarks/statistics.py [--shared ../shared/data] [--json OUT]
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

import numpy as np

from mtgauntlet.evaluation.statistics import (
    seg_acc_eq,
    seg_kendall,
    seg_pearson,
    sys_pairwise_accuracy,
    sys_pearson,
    sys_soft_pairwise_accuracy,
    system_scores,
)

HERE = Path(__file__).resolve().parent


def timed(out: dict, label: str, fn, *args) -> None:
    t0 = time.perf_counter()
    value = fn(*args)
    seconds = time.perf_counter() - t0
    out[label] = {"value": value, "seconds": round(seconds, 3)}
    print(f"  {label:<34} {seconds:7.2f} s   {value}")


def speed() -> dict:
    rng = np.random.default_rng(0)
    human = {f"sys{i}": np.round(rng.normal(size=10_000) * 2) for i in range(15)}
    metric = {s: h + rng.normal(size=10_000) * 3 for s, h in human.items()}
    print("15 systems x 10,000 items")
    out: dict = {}
    timed(out, "acc_eq by item (all pairs)", seg_acc_eq, metric, human, "item")
    timed(out, "acc_eq by sys (sample_rate 0.01)", seg_acc_eq, metric, human, "sys", 0.01)
    timed(out, "kendall b flattened", seg_kendall, metric, human, "none", "b")
    timed(out, "kendall b by item", seg_kendall, metric, human, "item", "b")
    timed(out, "pearson by item", seg_pearson, metric, human, "item")
    timed(out, "soft pairwise accuracy (1000)", sys_soft_pairwise_accuracy, metric, human)
    return out


def wmt23_chrf(shared: Path) -> dict:
    from sacrebleu.metrics import CHRF

    chrf = CHRF()
    scores: dict[str, dict[tuple[str, int], tuple[float, float]]] = {}
    with gzip.open(shared / "wmt23-mqm-mtme" / "wmt23_mtme_seg_scores.tsv.gz", "rt", encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(header, line.rstrip("\n").split("\t")))
            if r["is_human_ref"] == "0" and r["mqm"]:
                key = (r["system"], int(r["seg_id"]))
                scores.setdefault(r["lp"], {})[key] = (float(r["mqm"]), chrf.sentence_score(r["tgt"], [r["ref"]]).score)
    out = {}
    for lp, rows in sorted(scores.items()):
        systems, items = sorted({s for s, _ in rows}), sorted({i for _, i in rows})
        human = {s: [rows[(s, i)][0] if (s, i) in rows else None for i in items] for s in systems}
        metric = {s: [rows[(s, i)][1] if (s, i) in rows else None for i in items] for s in systems}
        print(f"{lp}: {len(systems)} systems, {len(items)} items, {len(rows)} MQM scores")
        figures: dict = {}
        for grouping in ("item", "none"):
            timed(figures, f"seg_pearson {grouping}", seg_pearson, metric, human, grouping)
            timed(figures, f"seg_kendall b {grouping}", seg_kendall, metric, human, grouping, "b")
        timed(figures, "seg_acc_eq item", seg_acc_eq, metric, human, "item")
        timed(figures, "seg_acc_eq none (sample 0.02)", seg_acc_eq, metric, human, "none", 0.02)
        # system scores over the items that have an MQM score, for both sides
        m_sys, h_sys = system_scores(metric), system_scores(human)
        timed(figures, "sys_pairwise_accuracy", sys_pairwise_accuracy, m_sys, h_sys)
        timed(figures, "sys_pearson", sys_pearson, m_sys, h_sys)
        timed(figures, "sys_soft_pairwise_accuracy", sys_soft_pairwise_accuracy, metric, human)
        out[lp] = figures
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    results = {"speed": speed()}
    if (args.shared / "wmt23-mqm-mtme").exists():
        results["wmt23_chrf"] = wmt23_chrf(args.shared)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
