"""The leaderboard's statistics of one metric on one set, as ``metric_stat`` rows.

Pair sets (``smaug_pair``, ``challenge_pair``): per phenomenon and language pair, and pooled over each
(``all``): ``accuracy`` and ``aces_tau`` with a bootstrap 95% interval, ``smaug_tau`` and ``smaug_d`` (scores
min-max normalised over the whole set), and ``aces_score`` per language pair where the set's importer mapped its
phenomena to ACES categories. Human-judgment sets (``human_score``): :mod:`mtgauntlet.workbench.human_stats`. The
definitions are those of :mod:`mtgauntlet.evaluation.statistics`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mtgauntlet.workbench.corpus import CorpusScorer
from mtgauntlet.workbench.human_stats import human_stats
from mtgauntlet.workbench.pair_arrays import groups, pair_arrays
from mtgauntlet.workbench.rows import is_human_score, stat_row
from mtgauntlet.workbench.sets import PAIR_KINDS, Items

__all__ = ["human_stats", "is_human_score", "pair_stats", "set_stats"]


def pair_stats(
    items: Items, scores: Sequence[float | None], base: dict[str, Any], n_resamples: int = 1000, seed: int = 0
) -> list[dict[str, Any]]:
    from mtgauntlet.evaluation.statistics import pairs as P
    from mtgauntlet.evaluation.statistics.resampling import pair_bootstrap_cis

    arrays = pair_arrays(items, scores)
    g, b = arrays.good, arrays.bad
    both = np.concatenate([g, b])
    lo, hi = (float(np.nanmin(both)), float(np.nanmax(both))) if not np.isnan(both).all() else (0.0, 1.0)
    by_group = groups(arrays)
    lps = {lp for _, lp in by_group}
    out = []
    computed: dict[bytes, list[dict[str, Any]]] = {}  # one set of pairs, e.g. a set's only lp and "all"
    for (ph, lp), idx in sorted(by_group.items(), key=lambda kv: kv[0]):
        where: dict[str, Any] = {"phenomenon": ph, "lp": lp}
        same = computed.get(idx.tobytes())
        if same is not None:
            out += [{**r, **where} for r in same]
            continue
        gi, bi = g[idx], b[idx]
        n = int((~(np.isnan(gi) | np.isnan(bi))).sum())
        accuracy_ci, tau_ci = pair_bootstrap_cis(gi, bi, n_resamples=n_resamples, seed=seed)
        rows = [
            stat_row(base, "accuracy", P.pair_accuracy(gi, bi), n, accuracy_ci, **where),
            stat_row(base, "aces_tau", P.aces_tau(gi, bi), n, tau_ci, **where),
        ]
        tau, d = P.smaug_tau_d(gi, bi, lo, hi)
        rows.append(stat_row(base, "smaug_tau", tau, n, **where))
        rows.append(stat_row(base, "smaug_d", d, int(((gi > bi) & ~np.isnan(gi) & ~np.isnan(bi)).sum()), **where))
        computed[idx.tobytes()] = rows
        out += rows
    categories = {
        ph: cat.lower() for ph, cat in zip(arrays.phenomenon, arrays.category) if cat and cat.lower() in P.ACES_WEIGHTS
    }
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
            by_cat = P.aces_category_taus(taus, categories)
            n = sum(
                r["n"] for r in out if r["statistic"] == "aces_tau" and r["lp"] == lp and r["phenomenon"] in categories
            )
            out.append(stat_row(base, "aces_score", P.aces_score(by_cat), n, lp=lp))
    return out


def set_stats(
    items: Items,
    scores: Sequence[float | None],
    base: dict[str, Any],
    gold: Sequence[str] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    corpus: CorpusScorer | None = None,
    spans: Sequence[Any] | None = None,
    error_free_threshold: float | None = None,
) -> list[dict[str, Any]]:
    """Every statistic of one metric on one set (``base``: metric, metric_signature, set, version, record_kind);
    ``corpus``: the metric's corpus-level scorer (chrF, BLEU), for system scores at corpus level; ``spans``: the
    metric's error spans per item (span statistics where the set has annotated spans); ``error_free_threshold``:
    ``error_free_f1`` of a metric without spans from its scores."""
    from mtgauntlet.workbench.span_stats import span_rows, threshold_rows

    if items.set.kind in PAIR_KINDS:
        return pair_stats(items, scores, base, n_resamples, seed)
    rows = (
        human_stats(items, scores, base, gold, n_resamples, seed, corpus) if any(s is not None for s in scores) else []
    )
    if spans is not None:
        return rows + span_rows(items, spans, base)
    return rows + (
        threshold_rows(items, scores, base, error_free_threshold) if error_free_threshold is not None else []
    )
