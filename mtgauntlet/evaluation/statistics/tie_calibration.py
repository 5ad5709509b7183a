"""Tie calibration (Deutsch, Foster and Freitag 2023, "Ties Matter"): the metric-tie threshold epsilon that maximises
the pairwise accuracy acc_eq averaged over groups, found exactly by one sweep over the sorted metric differences.

For a threshold eps, a pair's metric scores tie when ``|m_i - m_j| <= eps``. A pair counts towards
``acc_eq = (C + T_hm) / (C + D + T_h + T_m + T_hm)`` when it is concordant, or tied in both human and metric
scores. Raising eps past a pair's metric difference turns that pair into a metric tie: it then counts when its
human scores tie. The averaged objective ``sum over groups g of acc_eq_g / G`` is a sum over pairs of
``w_p * counts_p(eps)`` with ``w_p = 1 / (G * P_g)``, so sorting the pairs by ``|m_i - m_j|`` and accumulating the
changes gives the objective at every candidate threshold in O(P log P) for P pairs (mt-metrics-eval's
``tau_optimization`` does the same sweep one pair at a time). The candidates are 0 and every distinct metric
difference; the smallest threshold reaching the maximum wins (mt-metrics-eval's ``nanargmax``), the maximum being
judged with a tolerance of 1e-12 against float rounding.
"""

from __future__ import annotations

import numpy as np

from mtgauntlet.errors import GauntletError

MAX_PAIRS = 30_000_000  # pairs held at once; more needs a sample_rate below 1


def _triangle_pairs(n: int, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) with i < j of the k-th pair in row-major order of the upper triangle of an n×n matrix."""
    k = k.astype(np.int64)
    i = np.floor((2 * n - 1 - np.sqrt((2.0 * n - 1) ** 2 - 8.0 * k)) / 2).astype(np.int64)
    start = i * (2 * n - i - 1) // 2  # index of pair (i, i + 1)
    # float rounding of the square root can put i one off near a row boundary: step it back into place
    low = k < start
    i[low] -= 1
    start = i * (2 * n - i - 1) // 2
    high = k >= start + (n - 1 - i)
    i[high] += 1
    start = i * (2 * n - i - 1) // 2
    return i, k - start + i + 1


def group_pairs(h: np.ndarray, m: np.ndarray, sample_rate: float, rng: np.random.Generator):
    """Every pair (or a Bernoulli(``sample_rate``) sample of them) of scored entries within each row of h and m.

    Returns (row, |metric difference|, human tie?, metric strictly concordant-or-tied-in-both at eps=0?)."""
    valid = ~(np.isnan(h) | np.isnan(m))
    sizes = valid.sum(1)
    expected = float((sizes * (sizes - 1) // 2).sum()) * sample_rate
    if expected > MAX_PAIRS:
        raise GauntletError(
            f"acc_eq: about {expected:,.0f} pairs, more than {MAX_PAIRS:,} at once; pass a sample_rate of at most "
            f"{MAX_PAIRS / expected * sample_rate:.2g} (or group by item)"
        )
    rows_out, diffs, human_tie, counts_now = [], [], [], []
    for r in np.flatnonzero(sizes >= 2):
        hv, mv = h[r][valid[r]], m[r][valid[r]]
        n = len(hv)
        if sample_rate >= 1.0:
            i, j = np.triu_indices(n, 1)
        else:
            n_pairs = n * (n - 1) // 2
            k = rng.choice(n_pairs, rng.binomial(n_pairs, sample_rate), replace=False)
            i, j = _triangle_pairs(n, np.sort(k))
        dh, dm = hv[i] - hv[j], mv[i] - mv[j]
        rows_out.append(np.full(len(i), r))
        diffs.append(np.abs(dm))
        human_tie.append(dh == 0)
        counts_now.append((dh * dm > 0) | ((dh == 0) & (dm == 0)))
    if not rows_out:
        empty = np.zeros(0)
        return empty.astype(int), empty, empty.astype(bool), empty.astype(bool)
    return np.concatenate(rows_out), np.concatenate(diffs), np.concatenate(human_tie), np.concatenate(counts_now)


def optimal_acc_eq(h: np.ndarray, m: np.ndarray, sample_rate: float = 1.0, seed: int = 0) -> tuple[float, int, float]:
    """(acc_eq averaged over the rows that have a pair, number of pairs, optimal epsilon); NaN without a pair."""
    if not 0 < sample_rate <= 1:
        raise GauntletError(f"sample_rate must be in (0, 1], not {sample_rate}")
    rows, diff, human_tie, counts_now = group_pairs(h, m, sample_rate, np.random.default_rng(seed))
    if not len(rows):
        return float("nan"), 0, float("nan")
    _, row_index, per_row = np.unique(rows, return_inverse=True, return_counts=True)
    weight = 1.0 / (len(per_row) * per_row[row_index])
    base = float((weight * counts_now).sum())
    order = np.argsort(diff, kind="stable")
    d_sorted = diff[order]
    change = (weight * (human_tie.astype(float) - counts_now.astype(float)))[order]
    running = np.cumsum(change)
    last_of_run = np.r_[d_sorted[1:] != d_sorted[:-1], True]  # objective is defined after a whole run of equal diffs
    thresholds = np.r_[0.0, d_sorted[last_of_run]]
    values = np.r_[base, base + running[last_of_run]]
    if thresholds[1] == 0.0:  # pairs already tied in the metric: eps = 0 is their run
        thresholds, values = thresholds[1:], values[1:]
    best = int(np.flatnonzero(values >= values.max() - 1e-12)[0])
    return float(values[best]), len(rows), float(thresholds[best])
