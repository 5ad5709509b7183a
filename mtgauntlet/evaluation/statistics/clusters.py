"""Significance clusters of metrics: which metrics' correlations with the human scores differ significantly.

As mt-metrics-eval's ``ComputeSigMatrix`` / ``PermutationSigDiff`` (PERM-BOTH, Deutsch et al. 2021) and
``AssignRanks``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from mtgauntlet.errors import GauntletError
from mtgauntlet.evaluation.statistics.missing import Matrix, matrices


def _value(statistic: Callable[[Matrix, Matrix], Any], metric: Matrix, human: Matrix) -> float:
    value = statistic(metric, human)
    return float(value[0] if isinstance(value, tuple) else value)


def _zscored(m: np.ndarray, usable: np.ndarray) -> np.ndarray:
    values = m[usable]
    sd = values.std()
    return np.where(usable, (m - values.mean()) / (sd if sd > 0 else 1.0), np.nan)


def _as_matrix(systems: list[str], rows: np.ndarray) -> dict[str, np.ndarray]:
    return {s: rows[k] for k, s in enumerate(systems)}


def permutation_p_value(
    statistic: Callable[[Matrix, Matrix], Any],
    better: Matrix,
    worse: Matrix,
    human: Matrix,
    n_resamples: int,
    rng: np.random.Generator,
) -> float:
    """One-sided p-value for "``better``'s statistic is not above ``worse``'s": the share of resamples where
    ``stat(swapped better) - stat(swapped worse) >= stat(better) - stat(worse)``. Each resample swaps every
    (system, item) score between the two metrics with probability 1/2, after z-scoring each metric over the entries
    that have a human score and both metric scores (the only entries kept)."""
    common = set(better) & set(worse) & set(human)
    systems, m1, h = matrices({s: better[s] for s in common}, {s: human[s] for s in common})
    _, m2, _ = matrices({s: worse[s] for s in common}, {s: human[s] for s in common})
    usable = ~(np.isnan(m1) | np.isnan(m2) | np.isnan(h))
    z1, z2 = _zscored(m1, usable), _zscored(m2, usable)
    gold = _as_matrix(systems, np.where(usable, h, np.nan))
    delta = _value(statistic, _as_matrix(systems, z1), gold) - _value(statistic, _as_matrix(systems, z2), gold)
    extreme = 0
    for _ in range(n_resamples):
        swap = rng.random(z1.shape) < 0.5
        s1, s2 = np.where(swap, z2, z1), np.where(swap, z1, z2)
        d = _value(statistic, _as_matrix(systems, s1), gold) - _value(statistic, _as_matrix(systems, s2), gold)
        extreme += bool(d >= delta - 1e-12 * (abs(delta) + 1))
    return extreme / n_resamples


def significance_clusters(
    metric_matrices: Mapping[str, Matrix],
    human: Matrix,
    statistic: Callable,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
) -> list[dict]:
    """Rank clusters of metrics by ``statistic(metric_matrix, human)`` (a value, or a tuple whose first element is
    the value: e.g. ``lambda m, h: seg_pearson(m, h, "item")``), higher being better.

    Metrics are sorted by decreasing value (ties by name). For each pair i above j, p[i, j] is
    :func:`permutation_p_value` (``n_resamples`` resamples, one ``numpy.random.default_rng(seed)`` drawn in pair
    order, no early stopping). Ranks by :func:`assign_ranks` (mt-metrics-eval's ``AssignRanks``): walking down the
    sorted list, a metric starts a new cluster (rank + 1) when some metric of the current cluster beats it
    significantly (``p <= alpha``); otherwise it joins the current cluster. A metric whose value is NaN is listed
    last with rank ``None``. The statistic receives the matrices as ``dict[system -> numpy array]`` (NaN = missing).
    Cost: ``K (K - 1) / 2 * n_resamples * 2`` calls of the statistic for K metrics.

    Returns ``[{"metric": name, "value": value, "rank": cluster number from 1}, ...]`` in that order."""
    if not 0 < alpha < 1:
        raise GauntletError(f"alpha must be between 0 and 1, not {alpha}")
    if n_resamples < 1:
        raise GauntletError(f"n_resamples must be at least 1, not {n_resamples}")
    values = {name: _value(statistic, matrix, human) for name, matrix in metric_matrices.items()}
    ranked = sorted((n for n in values if not np.isnan(values[n])), key=lambda n: (-values[n], n))
    rng = np.random.default_rng(seed)
    p = np.full((len(ranked), len(ranked)), np.nan)
    for i, better in enumerate(ranked):
        for j in range(i + 1, len(ranked)):
            p[i, j] = permutation_p_value(
                statistic, metric_matrices[better], metric_matrices[ranked[j]], human, n_resamples, rng
            )
    rows = [{"metric": n, "value": values[n], "rank": r} for n, r in zip(ranked, assign_ranks(p, alpha))]
    return rows + [{"metric": n, "value": values[n], "rank": None} for n in sorted(values) if np.isnan(values[n])]


def assign_ranks(p_values: np.ndarray, alpha: float) -> list[int]:
    """Cluster numbers of metrics sorted by decreasing value, from the upper triangle of ``p_values`` (p[i, j]: the
    p-value of "metric i is not better than metric j", i < j). Walking down the list, metric i opens a new cluster
    when ``p[k, i] <= alpha`` for some k of the current cluster, and joins it otherwise (mt-metrics-eval's
    ``AssignRanks``): a metric is outranked only by a significant loss to a member of its own would-be cluster."""
    ranks, rank, start = [], 1, 0
    for i in range(p_values.shape[0]):
        if any(p_values[k, i] <= alpha for k in range(start, i)):
            rank, start = rank + 1, i
        ranks.append(rank)
    return ranks
