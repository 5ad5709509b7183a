"""Significance clusters and bootstrap intervals of the human-judgment statistics: vectorised against the loop.

On a WMT23-sized matrix (16 systems x 1,177 segments, zh-en's size; random scores, two metrics), one PERM-BOTH
p-value of segment-level Pearson (grouping none, item and sys) with 1,000 resamples through
``perm_both.seg_pearson_p_value`` (all resamples as matrix products), against the loop of
``clusters.permutation_p_value`` (the statistic recomputed per resample; timed on 100 resamples and scaled to 1,000);
and the 1,000-resample bootstrap interval of Pearson by item and of system-level pairwise accuracy
(``item_bootstrap``). mt-metrics-eval's README says its permutation clusters "can take minutes to hours".
Usage: python benchmarks/significance.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from mtgauntlet.evaluation.statistics import item_bootstrap as B
from mtgauntlet.evaluation.statistics import seg_pearson
from mtgauntlet.evaluation.statistics.clusters import permutation_p_value
from mtgauntlet.evaluation.statistics.perm_both import seg_pearson_p_value


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n_sys, n_items = 16, 1177
    human = np.round(rng.normal(size=(n_sys, n_items)) * 5)
    m1 = human + rng.normal(scale=4, size=human.shape)
    m2 = human + rng.normal(scale=5, size=human.shape)
    out: dict[str, float] = {"systems": n_sys, "items": n_items}
    for grouping in ("none", "item", "sys"):
        t = time.perf_counter()
        seg_pearson_p_value(m1, m2, human, grouping, 1000, np.random.default_rng(1))
        out[f"perm_vectorised_{grouping}_1000_s"] = round(time.perf_counter() - t, 3)
        as_dict = {f"s{k}": m1[k] for k in range(n_sys)}, {f"s{k}": m2[k] for k in range(n_sys)}
        hum = {f"s{k}": human[k] for k in range(n_sys)}
        t = time.perf_counter()
        permutation_p_value(lambda m, h, g=grouping: seg_pearson(m, h, g), *as_dict, hum, 100, np.random.default_rng(1))
        out[f"perm_loop_{grouping}_1000_s_scaled"] = round(10 * (time.perf_counter() - t), 3)
    counts = B.item_counts(n_items, 1000, 0)
    t = time.perf_counter()
    B.pearson_resamples(m1, human, "item", counts)
    out["bootstrap_pearson_item_1000_s"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter()
    valid = np.ones_like(m1, bool)
    B.pairwise_agreement_resamples(
        B.system_mean_resamples(m1, valid, counts), B.system_mean_resamples(human, valid, counts)
    )
    out["bootstrap_sys_accuracy_1000_s"] = round(time.perf_counter() - t, 3)
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
