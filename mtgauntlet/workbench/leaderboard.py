"""The leaderboard's statistics of one metric on one set, as ``metric_stat`` rows.

Pair sets (``smaug_pair``, ``challenge_pair``): per phenomenon and language pair, and pooled over each
(``all``): ``accuracy`` and ``aces_tau`` with a bootstrap 95% interval, ``smaug_tau`` and ``smaug_d`` (scores
min-max normalised over the whole set), and ``aces_score`` per language pair where the set's importer mapped its
phenomena to ACES categories. Human-judgment sets (``human_score``): per language pair and human score (``gold``),
``seg_pearson`` and ``seg_kendall`` (tau-b) grouped none / item / sys, ``seg_acc_eq`` grouped item / sys (over a
seeded sample of the pairs when there are more than the statistics enumerate at once, 30M),
``sys_pairwise_accuracy``, ``sys_pearson`` and ``sys_soft_pairwise_accuracy``. The definitions are those of
:mod:`mtgauntlet.evaluation.statistics`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from mtgauntlet.workbench.sets import PAIR_KINDS, Items

HUMAN_SCORE = re.compile(r"(mqm|esa|da|sqm|da[-_]sqm|psqm|wmt[-_](raw|z))([-_ .].*|\d*)", re.IGNORECASE)


def is_human_score(name: str) -> bool:
    """Whether a kept score of a human-judgment set is a human judgment (mqm, da_sqm, esa, ESA-1, ...)."""
    return bool(HUMAN_SCORE.fullmatch(name))


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _row(base: dict[str, Any], statistic: str, value, n, ci=(None, None), **where) -> dict[str, Any]:
    return {
        **base,
        "phenomenon": "all",
        "lp": "all",
        "gold": None,
        "grouping": "none",
        **where,
        "statistic": statistic,
        "value": _num(value),
        "ci_low": _num(ci[0]),
        "ci_high": _num(ci[1]),
        "n": int(n),
    }


def pair_stats(
    items: Items, scores: Sequence[float | None], base: dict[str, Any], n_resamples: int = 1000, seed: int = 0
) -> list[dict[str, Any]]:
    from mtgauntlet.evaluation.statistics.pairs import (
        ACES_WEIGHTS,
        aces_category_taus,
        aces_score,
        aces_tau,
        pair_accuracy,
        smaug_tau_d,
    )
    from mtgauntlet.evaluation.statistics.resampling import pair_bootstrap_cis

    good: dict[str, float] = {}
    bad: dict[str, float] = {}
    info: dict[str, tuple[str, str, str | None]] = {}
    for rid, side, s, ph, lp, cat in zip(
        items.record_id, items.side, scores, items.phenomenon, items.lp, items.category
    ):
        (good if side == "good" else bad)[rid] = np.nan if s is None else s
        info[rid] = (ph or "none", lp, cat)
    ids = sorted(info)
    g = np.fromiter((good.get(i, np.nan) for i in ids), dtype=float, count=len(ids))
    b = np.fromiter((bad.get(i, np.nan) for i in ids), dtype=float, count=len(ids))
    both = np.concatenate([g, b])
    lo, hi = (float(np.nanmin(both)), float(np.nanmax(both))) if not np.isnan(both).all() else (0.0, 1.0)
    groups: dict[tuple[str, str], list[int]] = {}
    for k, rid in enumerate(ids):
        ph, lp, _ = info[rid]
        for key in ((ph, lp), ("all", lp), (ph, "all"), ("all", "all")):
            groups.setdefault(key, []).append(k)
    lps = {lp for _, lp in groups}
    out = []
    computed: dict[tuple[int, ...], list[dict[str, Any]]] = {}  # one set of pairs, e.g. a set's only lp and "all"
    for (ph, lp), idx in sorted(groups.items()):
        where = {"phenomenon": ph, "lp": lp}
        same = computed.get(tuple(idx))
        if same is not None:
            out += [{**r, **where} for r in same]
            continue
        gi, bi = g[idx], b[idx]
        n = int((~(np.isnan(gi) | np.isnan(bi))).sum())
        accuracy_ci, tau_ci = pair_bootstrap_cis(gi, bi, n_resamples=n_resamples, seed=seed)
        rows = [
            _row(base, "accuracy", pair_accuracy(gi, bi), n, accuracy_ci, **where),
            _row(base, "aces_tau", aces_tau(gi, bi), n, tau_ci, **where),
        ]
        tau, d = smaug_tau_d(gi, bi, lo, hi)
        rows.append(_row(base, "smaug_tau", tau, n, **where))
        rows.append(_row(base, "smaug_d", d, int(((gi > bi) & ~np.isnan(gi) & ~np.isnan(bi)).sum()), **where))
        computed[tuple(idx)] = rows
        out += rows
    categories = {info[i][0]: cat.lower() for i in ids if (cat := info[i][2]) and cat.lower() in ACES_WEIGHTS}
    if categories:
        for lp in sorted(lps | {"all"}):
            taus = {
                r["phenomenon"]: r["value"]
                for r in out
                if r["statistic"] == "aces_tau"
                and r["lp"] == lp
                and r["phenomenon"] != "all"
                and r["value"] is not None
            }
            by_cat = aces_category_taus(taus, categories)
            n = sum(
                r["n"] for r in out if r["statistic"] == "aces_tau" and r["lp"] == lp and r["phenomenon"] in categories
            )
            out.append(_row(base, "aces_score", aces_score(by_cat), n, lp=lp))
    return out


def _matrices(items: Items, scores: Sequence[float | None], gold: str, lp: str):
    segs = sorted({s for s, pair in zip(items.seg_id, items.lp) if pair == lp}, key=lambda x: (len(str(x)), str(x)))
    pos = {s: i for i, s in enumerate(segs)}
    metric: dict[str, list] = {}
    human: dict[str, list] = {}
    for seg, sys_, pair, s, kept in zip(items.seg_id, items.system, items.lp, scores, items.scores):
        if pair != lp or sys_ is None:  # (a human_score record always names its system)
            continue
        metric.setdefault(sys_, [None] * len(segs))[pos[seg]] = s
        human.setdefault(sys_, [None] * len(segs))[pos[seg]] = kept.get(gold)
    return metric, human


def _acc_eq_rate(metric, human, grouping: str) -> float:
    """1, or the share of pairs acc_eq can enumerate at once (a seeded sample, as mt-metrics-eval's sample_rate)."""
    from mtgauntlet.evaluation.statistics import human as H
    from mtgauntlet.evaluation.statistics.tie_calibration import MAX_PAIRS

    m, h = H.grouped(metric, human, grouping)
    sizes = (~(np.isnan(np.asarray(m, float)) | np.isnan(np.asarray(h, float)))).sum(axis=1)
    expected = float((sizes * (sizes - 1) // 2).sum())
    return 1.0 if expected <= MAX_PAIRS else 0.9 * MAX_PAIRS / expected


def human_stats(
    items: Items,
    scores: Sequence[float | None],
    base: dict[str, Any],
    gold: Sequence[str] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    from mtgauntlet.evaluation.statistics import human as H

    names = sorted({k for kept in items.scores for k in kept})
    golds = [x for x in (gold or [n for n in names if is_human_score(n)]) if x in names]
    out = []
    for lp in sorted(set(items.lp)):
        for gname in golds:
            metric, human = _matrices(items, scores, gname, lp)
            if not any(v is not None for row in human.values() for v in row):
                continue
            where = {"lp": lp, "gold": gname}
            for grouping in H.GROUPINGS:
                out.append(
                    _row(base, "seg_pearson", *H.seg_pearson(metric, human, grouping), grouping=grouping, **where)
                )
                out.append(
                    _row(base, "seg_kendall", *H.seg_kendall(metric, human, grouping, "b"), grouping=grouping, **where)
                )
            for grouping in ("item", "sys"):
                acc, n_pairs, _eps = H.seg_acc_eq(metric, human, grouping, _acc_eq_rate(metric, human, grouping), seed)
                out.append(_row(base, "seg_acc_eq", acc, n_pairs, grouping=grouping, **where))
            msys, hsys = H.system_scores(metric), H.system_scores(human)
            out.append(_row(base, "sys_pairwise_accuracy", *H.sys_pairwise_accuracy(msys, hsys), **where))
            out.append(_row(base, "sys_pearson", *H.sys_pearson(msys, hsys), **where))
            out.append(
                _row(
                    base,
                    "sys_soft_pairwise_accuracy",
                    *H.sys_soft_pairwise_accuracy(metric, human, n_resamples, seed),
                    **where,
                )
            )
    return out


def set_stats(
    items: Items,
    scores: Sequence[float | None],
    base: dict[str, Any],
    gold: Sequence[str] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Every statistic of one metric on one set (``base``: metric, metric_signature, set, version, record_kind)."""
    if items.set.kind in PAIR_KINDS:
        return pair_stats(items, scores, base, n_resamples, seed)
    return human_stats(items, scores, base, gold, n_resamples, seed)
