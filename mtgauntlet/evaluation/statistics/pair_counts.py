"""Counts over all pairs of one group's scores: concordant, discordant, and the three kinds of tie.

For two scored entries i, j of a group (human h, metric m): concordant when ``(h_i - h_j)(m_i - m_j) > 0``,
discordant when ``< 0``; tied in the human scores only (T_h), in the metric scores only (T_m), or in both (T_hm)
when the differences are exactly 0. An entry with a missing human or metric score is in no pair. These are the
sufficient statistics of every Kendall variant (Deutsch et al. 2023, mt-metrics-eval's ``TauSufficientStats``).
"""

from __future__ import annotations

import numpy as np

DENSE_MAX_GROUP = 128  # groups this size or smaller are counted by broadcasting over all their pairs
DENSE_CELLS = 4_000_000  # pairs × rows counted in one broadcast (bounds memory)

# counts[:, k] columns
CON, DIS, TIE_H, TIE_M, TIE_HM = range(5)


def group_counts(h: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Counts for each row of the R×L matrices ``h`` and ``m`` (NaN = missing): an R×5 int array (C, D, T_h, T_m,
    T_hm). Small groups by broadcasting over pairs, long ones in O(n log² n) each (:func:`long_counts`)."""
    rows, width = h.shape
    out = np.zeros((rows, 5), dtype=np.int64)
    if width < 2:
        return out
    if width <= DENSE_MAX_GROUP:
        i, j = np.triu_indices(width, 1)
        step = max(1, DENSE_CELLS // len(i))
        for start in range(0, rows, step):
            hs, ms = h[start : start + step], m[start : start + step]
            valid = ~(np.isnan(hs) | np.isnan(ms))
            pv = valid[:, i] & valid[:, j]
            sh, sm = np.sign(hs[:, i] - hs[:, j]), np.sign(ms[:, i] - ms[:, j])
            prod = sh * sm
            block = out[start : start + step]
            block[:, CON] = (pv & (prod > 0)).sum(1)
            block[:, DIS] = (pv & (prod < 0)).sum(1)
            block[:, TIE_H] = (pv & (sh == 0) & (sm != 0)).sum(1)
            block[:, TIE_M] = (pv & (sm == 0) & (sh != 0)).sum(1)
            block[:, TIE_HM] = (pv & (sh == 0) & (sm == 0)).sum(1)
        return out
    for r in range(rows):
        valid = ~(np.isnan(h[r]) | np.isnan(m[r]))
        out[r] = long_counts(h[r][valid], m[r][valid])
    return out


def _tied_pairs(*keys: np.ndarray) -> int:
    """Number of pairs equal on every key."""
    if not len(keys[0]):
        return 0
    _, counts = np.unique(np.stack(keys, axis=1), axis=0, return_counts=True)
    return int((counts * (counts - 1) // 2).sum())


def strict_inversions(values: np.ndarray) -> int:
    """#{i < j : values[i] > values[j]}, by a bottom-up merge sort vectorised over blocks (O(n log² n))."""
    n = len(values)
    if n < 2:
        return 0
    _, ranks = np.unique(values, return_inverse=True)
    ranks = ranks.astype(np.int64).ravel()
    span = int(ranks.max()) + 1
    position = np.arange(n)
    total, width = 0, 1
    while width < n:
        block = position // (2 * width)
        right = (position // width) % 2 == 1
        keys = block * span + ranks  # sorted within each block of `width` (after the previous level)
        left_keys, right_keys = keys[~right], keys[right]
        left_end = np.searchsorted(left_keys, (block[right] + 1) * span, "left")
        not_greater = np.searchsorted(left_keys, right_keys, "right")
        total += int((left_end - not_greater).sum())
        ranks = np.sort(keys) - block * span
        width *= 2
    return total


def long_counts(h: np.ndarray, m: np.ndarray) -> np.ndarray:
    """(C, D, T_h, T_m, T_hm) of one group without missing scores, in O(n log² n) (Knight's method: sort by human
    then metric score; the discordant pairs are the strict inversions of the metric scores in that order)."""
    n = len(h)
    total = n * (n - 1) // 2
    tie_h, tie_m, tie_hm = _tied_pairs(h), _tied_pairs(m), _tied_pairs(h, m)
    order = np.lexsort((m, h))
    dis = strict_inversions(m[order])
    only_h, only_m = tie_h - tie_hm, tie_m - tie_hm
    con = total - dis - only_h - only_m - tie_hm
    return np.array([con, dis, only_h, only_m, tie_hm], dtype=np.int64)
