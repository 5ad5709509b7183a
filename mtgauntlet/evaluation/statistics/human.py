"""Human-judgment statistics as WMT's metrics task computes them (mt-metrics-eval, google-research, is the reference).

A score matrix is ``dict[system -> sequence of item scores]``: the same item order for every system, ``None`` or NaN
for a missing score. Two matrices are compared over the systems both have (sorted by name). A (system, item) entry
takes part only when both its human and its metric score are present (mt-metrics-eval drops entries whose human
score is missing and expects complete metric scores).

Grouping (mt-metrics-eval's ``average_by``): ``"none"`` flattens the matrices into one vector each; ``"sys"``
computes the statistic per system (over its items) and ``"item"`` per item (over the systems), then averages the
groups' values with equal weight. A group with fewer than two scored entries, or whose statistic is undefined (NaN,
e.g. constant scores), is left out of the average. The returned count is the number of scored entries for
``"none"`` and the number of groups averaged otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mtgauntlet.errors import GauntletError
from mtgauntlet.evaluation.statistics.missing import Matrix, as_float, matrices
from mtgauntlet.evaluation.statistics.pair_counts import CON, DIS, TIE_H, TIE_HM, TIE_M, group_counts
from mtgauntlet.evaluation.statistics.tie_calibration import optimal_acc_eq

GROUPINGS = ("none", "item", "sys")
KENDALL_VARIANTS = ("b", "c", "23", "acc23")


def grouped(metric: Matrix, human: Matrix, grouping: str) -> tuple[np.ndarray, np.ndarray]:
    """(metric rows, human rows): one row per group, NaN where an entry is missing on either side."""
    if grouping not in GROUPINGS:
        raise GauntletError(f"grouping must be one of {', '.join(GROUPINGS)}, not {grouping!r}")
    _, m, h = matrices(metric, human)
    missing = np.isnan(m) | np.isnan(h)
    m, h = np.where(missing, np.nan, m), np.where(missing, np.nan, h)
    if grouping == "none":
        return m.reshape(1, -1), h.reshape(1, -1)
    if grouping == "item":
        return m.T.copy(), h.T.copy()
    return m, h


def _average(values: np.ndarray, grouping: str, n_points: int) -> tuple[float, int]:
    if grouping == "none":
        return (float(values[0]) if len(values) else float("nan")), n_points
    kept = values[~np.isnan(values)]
    return (float(kept.mean()), len(kept)) if len(kept) else (float("nan"), 0)


def row_pearson(m: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair over its entries present in both (NaN below 2 entries or for a constant row)."""
    valid = ~(np.isnan(m) | np.isnan(h))
    n = valid.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = np.where(valid, m, 0).sum(1) / n
        hx = np.where(valid, h, 0).sum(1) / n
        dm = np.where(valid, m - mx[:, None], 0)
        dh = np.where(valid, h - hx[:, None], 0)
        den = np.sqrt((dm * dm).sum(1) * (dh * dh).sum(1))
        r = (dm * dh).sum(1) / den
    r = np.where((n >= 2) & (den > 0), np.clip(r, -1.0, 1.0), np.nan)
    return r


def seg_pearson(metric: Matrix, human: Matrix, grouping: str = "none") -> tuple[float, int]:
    """Segment-level Pearson correlation ``r = sum(dm*dh) / sqrt(sum(dm^2) * sum(dh^2))`` (dm, dh: deviations from
    the group's means) between metric and human scores, per ``grouping`` (module docstring).

    Ties play no part. mt-metrics-eval: ``Correlation.Pearson(average_by)`` (scipy.stats.pearsonr per group).
    Returns (r, count)."""
    m, h = grouped(metric, human, grouping)
    n_points = int((~np.isnan(m)).sum())
    return _average(row_pearson(m, h), grouping, n_points)


def kendall_from_counts(counts: np.ndarray, variant: str, m: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Each row's Kendall ``variant`` from its (C, D, T_h, T_m, T_hm) counts (m, h: the rows, for tau-c)."""
    con, dis = counts[:, CON].astype(float), counts[:, DIS].astype(float)
    t_h, t_m, t_hm = counts[:, TIE_H].astype(float), counts[:, TIE_M].astype(float), counts[:, TIE_HM].astype(float)
    total = con + dis + t_h + t_m + t_hm
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "b":
            value = (con - dis) / np.sqrt((con + dis + t_h) * (con + dis + t_m))
        elif variant in ("23", "acc23"):
            good = con + t_hm
            value = good / total if variant == "acc23" else (good - dis - t_h - t_m) / total
        else:  # "c": 2 (C - D) / (n^2 (k - 1) / k), k = the smaller number of distinct values
            value = np.full(len(con), np.nan)
            for r in range(len(con)):
                valid = ~(np.isnan(m[r]) | np.isnan(h[r]))
                k = min(len(np.unique(m[r][valid])), len(np.unique(h[r][valid])))
                n = int(valid.sum())
                if k > 1:
                    value[r] = 2 * (con[r] - dis[r]) / (n * n * (k - 1) / k)
    all_tied = (t_m + t_hm == total) | (t_h + t_hm == total)
    undefined = (total == 0) | (all_tied if variant in ("b", "c") else False)
    return np.where(undefined, np.nan, value)


def seg_kendall(metric: Matrix, human: Matrix, grouping: str = "none", variant: str = "b") -> tuple[float, int]:
    """Segment-level Kendall tau between metric and human scores, per ``grouping`` (module docstring).

    Over the pairs of scored entries of a group, C concordant, D discordant, T_h / T_m tied only in the human /
    metric scores, T_hm tied in both (exact equality):

    - ``"b"``: ``(C - D) / sqrt((C + D + T_h) * (C + D + T_m))`` (scipy's tau-b); NaN when every pair ties in one side.
    - ``"c"``: ``2 (C - D) / (n^2 (k - 1) / k)``, n entries, k = min of the numbers of distinct metric and human
      values (scipy's tau-c, Stuart's); NaN when k = 1.
    - ``"23"``: ``(C + T_hm - D - T_h - T_m) / (C + D + T_h + T_m + T_hm)`` (WMT23's tau_eq, no tie calibration).
    - ``"acc23"``: ``(C + T_hm) / (C + D + T_h + T_m + T_hm)`` (acc_eq at epsilon 0).

    mt-metrics-eval: ``Correlation.KendallVariants(average_by, variant)``. Returns (tau, count)."""
    if variant not in KENDALL_VARIANTS:
        raise GauntletError(f"variant must be one of {', '.join(KENDALL_VARIANTS)}, not {variant!r}")
    m, h = grouped(metric, human, grouping)
    values = kendall_from_counts(group_counts(h, m), variant, m, h)
    return _average(values, grouping, int((~np.isnan(m)).sum()))


def seg_acc_eq(
    metric: Matrix, human: Matrix, grouping: str = "item", sample_rate: float = 1.0, seed: int = 0
) -> tuple[float, int, float]:
    """WMT23's tie-calibrated pairwise accuracy acc_eq ("acc23"), with the optimal metric-tie threshold epsilon.

    For a threshold eps, two metric scores tie when they differ by at most eps; per group
    ``acc_eq(eps) = (C + T_hm) / (C + D + T_h + T_m + T_hm)`` over all pairs of scored entries (a pair tied in the
    human scores counts only when its metric scores tie too). The returned accuracy is
    ``max over eps of the mean over groups of acc_eq_g(eps)``, the smallest maximising eps being returned with it;
    the candidates are 0 and every distinct metric-score difference within a group (exact search, O(P log P) for P
    pairs: :mod:`~mtgauntlet.evaluation.statistics.tie_calibration`). Groups with no pair are left out.
    ``sample_rate`` < 1 keeps each pair with that probability (``numpy.random.default_rng(seed)``), for "none" and
    "sys" groupings too big to enumerate. mt-metrics-eval: ``Correlation.KendallWithTiesOpt(average_by,
    variant="acc23", sample_rate)``. Returns (acc_eq, number of pairs, epsilon); (NaN, 0, NaN) without a pair."""
    m, h = grouped(metric, human, grouping)
    return optimal_acc_eq(h, m, sample_rate, seed)


def system_scores(matrix: Matrix) -> dict[str, float]:
    """Each system's score: the mean of its item scores that are present; NaN for a system with none."""
    out = {}
    for system, scores in matrix.items():
        values = as_float(scores)
        values = values[~np.isnan(values)]
        out[system] = float(values.mean()) if len(values) else float("nan")
    return out


def _common_systems(metric_sys: Mapping[str, Any], human_sys: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    systems = sorted(set(metric_sys) & set(human_sys))
    m, h = as_float([metric_sys[s] for s in systems]), as_float([human_sys[s] for s in systems])
    keep = ~(np.isnan(m) | np.isnan(h))
    return m[keep], h[keep]


def sys_pairwise_accuracy(metric_sys: Mapping[str, Any], human_sys: Mapping[str, Any]) -> tuple[float, int]:
    """System-level pairwise accuracy (Kocmi et al. 2021): over all pairs of systems scored by both, the share with
    ``sign(m_i - m_j) == sign(h_i - h_j)``; a tie agrees only with a tie. mt-metrics-eval: ``Agreement`` (the
    "accuracy" of the system-level task). Returns (accuracy, number of system pairs); (NaN, 0) below two systems."""
    m, h = _common_systems(metric_sys, human_sys)
    i, j = np.triu_indices(len(m), 1)
    if not len(i):
        return float("nan"), 0
    agree = np.sign(m[i] - m[j]) == np.sign(h[i] - h[j])
    return float(agree.mean()), len(i)


def sys_pearson(metric_sys: Mapping[str, Any], human_sys: Mapping[str, Any]) -> tuple[float, int]:
    """System-level Pearson r over the systems scored by both. Returns (r, number of systems); r is NaN below two
    systems or for constant scores. mt-metrics-eval: ``Correlation.Pearson()`` on system scores."""
    m, h = _common_systems(metric_sys, human_sys)
    return float(row_pearson(m[None, :], h[None, :])[0]), len(m)


def pairwise_p_values(scores: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """p[i, j] (i < j): the share of permutations whose swapped difference ``signs @ (s_i - s_j)`` is at least the
    observed ``sum(s_i - s_j)``; ``signs`` is R×N of ±1 (one row per permutation)."""
    n_sys = scores.shape[0]
    p = np.full((n_sys, n_sys), np.nan)
    for i in range(n_sys):
        for j in range(i + 1, n_sys):
            d = scores[i] - scores[j]
            observed = d.sum()
            null = signs @ d
            p[i, j] = float((null >= observed - 1e-9 * (np.abs(d).sum() + 1)).mean())
    return p


def sys_soft_pairwise_accuracy(
    metric: Matrix, human: Matrix, n_resamples: int = 1000, seed: int = 0
) -> tuple[float, int]:
    """WMT24's soft pairwise accuracy (Thompson et al. 2024): ``SPA = 1 - mean over system pairs i < j of
    |p_h(i, j) - p_m(i, j)|``, where p(i, j) is the one-sided paired-permutation p-value of "system i is better than
    system j" from segment scores: the share of ``n_resamples`` sign-flip permutations of the per-item differences
    whose sum is at least the observed sum (no +1, as mt-metrics-eval's ``pce.compute_pairwise_p_values``). The
    same permutations (``numpy.random.default_rng(seed)``) serve the human and the metric p-values.

    Items: those where every system has both a human and a metric score (so all p-values are over the same
    items); systems: those in both matrices, in name order. mt-metrics-eval: ``PairwiseConfidenceError`` (1 - PCE).
    Returns (SPA, number of system pairs); (NaN, 0) below two systems or without a complete item."""
    if n_resamples < 1:
        raise GauntletError(f"n_resamples must be at least 1, not {n_resamples}")
    _, m, h = matrices(metric, human)
    complete = ~(np.isnan(m) | np.isnan(h)).any(0)
    m, h = m[:, complete], h[:, complete]
    n_sys, n_items = m.shape
    if n_sys < 2 or n_items == 0:
        return float("nan"), 0
    signs = np.where(np.random.default_rng(seed).random((n_resamples, n_items)) < 0.5, -1.0, 1.0)
    p_m, p_h = pairwise_p_values(m, signs), pairwise_p_values(h, signs)
    i, j = np.triu_indices(n_sys, 1)
    return float(1.0 - np.abs(p_h[i, j] - p_m[i, j]).mean()), len(i)
