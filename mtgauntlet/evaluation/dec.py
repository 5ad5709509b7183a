"""Difficulty Estimation Correlation (DEC), Proietti et al. 2025, section 3 and appendix A.

Group-by-system: for each language pair and MT system, Kendall tau_b between the estimator's predicted
quality and the human score over the items that system translated; average over systems, then over
language pairs. The text says "averaged over translators and languages"; its Table 8 fixes the order: the overall DEC
is the mean of the per-language DECs (text length (0.262 + 0.147 + 0.256) / 3 = 0.222), so every pair weighs the
same, however many systems it has; ``dec_flat``, the plain mean over every (pair, system) tau, is reported beside it. Estimators predict *difficulty* (higher = harder), so their scores are negated: a higher
DEC is better. Also the subset-selection quality of Appendix C (AvgScore, %Perfect of the hardest B).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

PERFECT = {"esa": 100.0, "da": 100.0, "mqm": 0.0}


def kendall_tau_b(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """tau_b = (C - D) / sqrt((C + D + T_x)(C + D + T_y)), ties as in appendix A (scipy's variant b)."""
    from scipy.stats import kendalltau

    if len(x) < 2:
        return float("nan")
    tau = kendalltau(x, y, variant="b").statistic
    return float(tau)


def unique_sources(judgments: Sequence[Mapping[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """lp -> sorted unique (item_id, src) pairs."""
    out: dict[str, dict[str, str]] = defaultdict(dict)
    for j in judgments:
        out[j["lp"]][str(j["item_id"])] = j["src"]
    return {lp: sorted(items.items()) for lp, items in out.items()}


def score_sources(
    judgments, difficulty_fn: Callable[[list[str], str], list[float | None]], failures: dict[str, int] | None = None
) -> dict[tuple[str, str], float]:
    """(lp, item_id) -> difficulty, calling ``difficulty_fn(texts, lp)`` once per language pair. A source the
    estimator could not score (None, e.g. an unparseable LLM-judge answer) is left out and counted per lp in
    ``failures``, never given a number."""
    out = {}
    for lp, items in unique_sources(judgments).items():
        scores = difficulty_fn([src for _, src in items], lp)
        for (item, _), s in zip(items, scores):
            if s is None or s != s:
                if failures is not None:
                    failures[lp] = failures.get(lp, 0) + 1
                continue
            out[(lp, item)] = float(s)
    return out


def dec(judgments: Sequence[Mapping[str, Any]], difficulty: Mapping[tuple[str, str], float]) -> dict[str, Any]:
    """DEC over language pairs (group-by-system), with per-lp values and per-lp system counts."""
    by: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for j in judgments:
        key = (j["lp"], str(j["item_id"]))
        if key in difficulty:
            by[(j["lp"], j["system"])].append((-difficulty[key], float(j["score"])))
    per_lp: dict[str, list[float]] = defaultdict(list)
    for (lp, _system), pairs in by.items():
        if len(pairs) < 2:
            continue
        pred, human = zip(*pairs)
        tau = kendall_tau_b(pred, human)
        if not np.isnan(tau):
            per_lp[lp].append(tau)
    lp_dec = {lp: float(np.mean(v)) for lp, v in sorted(per_lp.items())}
    flat = [t for v in per_lp.values() for t in v]
    return {
        "dec": float(np.mean(list(lp_dec.values()))) if lp_dec else float("nan"),
        "per_lp": lp_dec,
        "dec_flat": float(np.mean(flat)) if flat else float("nan"),
        "systems": {lp: len(v) for lp, v in per_lp.items()},
    }


def selection_quality(
    judgments, difficulty: Mapping[tuple[str, str], float], fraction: float = 0.25
) -> dict[str, float]:
    """AvgScore and %Perfect (appendix C eq. 3-4) of the hardest ``fraction`` of sources, averaged over lps."""
    by_lp: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for j in judgments:
        by_lp[j["lp"]].append(j)
    avgs, perfects = [], []
    for lp, rows in by_lp.items():
        items = sorted(
            {str(j["item_id"]) for j in rows if (lp, str(j["item_id"])) in difficulty},
            key=lambda i: (-difficulty[(lp, i)], i),
        )
        keep = set(items[: max(1, int(round(fraction * len(items))))])
        chosen = [j for j in rows if str(j["item_id"]) in keep]
        if not chosen:
            continue
        avgs.append(float(np.mean([j["score"] for j in chosen])))
        perfects.append(
            float(np.mean([j["score"] == PERFECT.get(j.get("protocol", "da"), 100.0) for j in chosen])) * 100
        )
    return {
        "avg_score": float(np.mean(avgs)) if avgs else float("nan"),
        "perfect_pct": float(np.mean(perfects)) if perfects else float("nan"),
        "fraction": fraction,
    }
