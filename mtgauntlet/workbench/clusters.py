"""Significance clusters on the leaderboard: the ``cluster`` column (1 = the top group) of the metrics a run scored
on one set, per (set, lp, gold, statistic, grouping, system_score) and, for pair sets, per phenomenon.

Clustered statistics: ``seg_pearson`` (none / item / sys) and ``sys_pearson`` / ``sys_pairwise_accuracy``
(mean and corpus system scores) of human-judgment sets, and ``accuracy`` of pair sets, with the vectorised
permutation tests of :mod:`mtgauntlet.evaluation.statistics.perm_both` (``n_resamples`` each, seeded) and
mt-metrics-eval's ``AssignRanks`` at alpha 0.05. Other statistics keep a null cluster.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mtgauntlet.workbench.corpus import CorpusScorer
from mtgauntlet.workbench.sets import PAIR_KINDS, Items

ALPHA = 0.05


@dataclass
class Scored:
    """One metric's scores of one set, as the run computed or reused them."""

    signature: str
    scores: Sequence[float | None]
    corpus: CorpusScorer | None
    spans: Sequence[Any] | None = None


Key = tuple[
    str, str, str, str, str | None, str, str | None, str
]  # set, version, phenomenon, lp, gold, grouping, system_score, statistic


def _key(r: dict[str, Any]) -> Key:
    return (
        r["set"],
        r["version"],
        r["phenomenon"],
        r["lp"],
        r["gold"],
        r["grouping"],
        r["system_score"],
        r["statistic"],
    )


def _pair_clusters(
    items: Items, metrics: list[Scored], values: dict[Key, dict[str, float]], n_resamples: int, seed: int
):
    from mtgauntlet.evaluation.statistics.perm_both import assign_clusters, pair_accuracy_p_value
    from mtgauntlet.workbench.pair_arrays import groups, pair_arrays

    ok: dict[str, np.ndarray] = {}  # per metric, per record: 1 good above bad, 0 not, NaN without both scores
    for m in metrics:
        arrays = pair_arrays(items, m.scores)
        with np.errstate(invalid="ignore"):
            g, b = arrays.good, arrays.bad
            ok[m.signature] = np.where(np.isnan(g) | np.isnan(b), np.nan, (g > b).astype(float))
    rows = groups(arrays) if metrics else {}
    out: dict[Key, dict[str, int]] = {}
    rng = np.random.default_rng(seed)
    for key, by_metric in values.items():
        if key[7] != "accuracy":
            continue
        idx = rows.get((key[2], key[3]))
        if idx is None:
            continue

        def p(a: str, b: str, idx=idx) -> float:
            return pair_accuracy_p_value(ok[a][idx], ok[b][idx], n_resamples, rng)

        out[key] = assign_clusters(by_metric, p, ALPHA)
    return out


def _human_clusters(
    items: Items, metrics: list[Scored], values: dict[Key, dict[str, float]], n_resamples: int, seed: int
):
    from mtgauntlet.evaluation.statistics.perm_both import (
        assign_clusters,
        pooled_accuracy_p_value,
        seg_pearson_p_value,
        system_p_value,
    )
    from mtgauntlet.workbench.human_stats import corpus_system_scores, lp_matrices

    rng = np.random.default_rng(seed)
    out: dict[Key, dict[str, int]] = {}
    cache: dict[tuple[str, str, str], Any] = {}

    def matrices(sig: str, gold: str, lp: str):
        if (sig, gold, lp) not in cache:
            m = next(x for x in metrics if x.signature == sig)
            cache[(sig, gold, lp)] = (lp_matrices(items, m.scores, gold, lp), m.corpus)
        return cache[(sig, gold, lp)]

    def system_vector(sig: str, gold: str, lp: str, kind: str) -> tuple[np.ndarray, np.ndarray]:
        lm, corpus = matrices(sig, gold, lp)
        valid = ~(np.isnan(lm.metric) | np.isnan(lm.human))
        with np.errstate(invalid="ignore", divide="ignore"):
            h = np.where(valid, lm.human, 0).sum(1) / valid.sum(1)
            m = np.where(valid, lm.metric, 0).sum(1) / valid.sum(1)
        if kind == "corpus" and corpus is not None:
            m = corpus_system_scores(lm, valid, np.zeros((0, valid.shape[1])), corpus)[0]
        return m, h

    lps = sorted(set(items.lp))
    for key, by_metric in values.items():
        _, _, _, lp, gold, grouping, system_score, statistic = key
        if gold is None:
            continue
        if lp == "all":
            if statistic != "sys_pairwise_accuracy" or not system_score:
                continue

            def pooled_p(a: str, b: str, gold: str = gold, kind: str = system_score) -> float:
                va = [system_vector(a, gold, x, kind) for x in lps]
                vb = [system_vector(b, gold, x, kind) for x in lps]
                return pooled_accuracy_p_value(
                    [m for m, _ in va], [m for m, _ in vb], [h for _, h in va], n_resamples, rng
                )

            out[key] = assign_clusters(by_metric, pooled_p, ALPHA)
            continue
        if statistic == "seg_pearson":

            def seg_p(a: str, b: str, lp: str = lp, gold: str = gold, grouping: str = grouping) -> float:
                la, lb = matrices(a, gold, lp)[0], matrices(b, gold, lp)[0]
                return seg_pearson_p_value(la.metric, lb.metric, la.human, grouping, n_resamples, rng)

            out[key] = assign_clusters(by_metric, seg_p, ALPHA)
        elif statistic in ("sys_pearson", "sys_pairwise_accuracy") and system_score:

            def sys_p(
                a: str, b: str, lp: str = lp, gold: str = gold, kind: str = system_score, stat: str = statistic
            ) -> float:
                (ma, h), (mb, _) = system_vector(a, gold, lp, kind), system_vector(b, gold, lp, kind)
                return system_p_value(stat, ma, mb, h, n_resamples, rng)

            out[key] = assign_clusters(by_metric, sys_p, ALPHA)
    return out


def add_clusters(
    rows: list[dict[str, Any]],
    per_set: dict[tuple[str, str, str], tuple[Items, list[Scored]]],
    n_resamples: int,
    seed: int = 0,
) -> None:
    """Set ``cluster`` on the rows of every set two metrics or more were scored on (in place)."""
    for (name, version, _kind), (items, metrics) in per_set.items():
        if len(metrics) < 2:
            continue
        sigs = {m.signature for m in metrics}
        mine = [r for r in rows if r["set"] == name and r["version"] == version and r["metric_signature"] in sigs]
        values: dict[Key, dict[str, float]] = defaultdict(dict)
        for r in mine:
            values[_key(r)][r["metric_signature"]] = np.nan if r["value"] is None else r["value"]
        values = {k: v for k, v in values.items() if len(v) >= 2}
        if items.set.kind in PAIR_KINDS:
            found = _pair_clusters(items, metrics, values, n_resamples, seed)
        else:
            found = _human_clusters(items, metrics, values, n_resamples, seed)
        for r in mine:
            r["cluster"] = found.get(_key(r), {}).get(r["metric_signature"])
