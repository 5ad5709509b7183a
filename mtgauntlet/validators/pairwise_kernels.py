"""The compiled loops of pairwise chrF (numba where installed, plain Python otherwise: the same values, slower).

Texts are sparse n-gram count vectors, one order at a time, held twice: by text (CSR: each text's n-gram ids and
counts) and by n-gram (postings: the texts holding it and their counts). The matches of hypothesis i with every
reference j are ``sum_g min(c_i(g), c_j(g))``, gathered by walking i's n-grams and each one's postings (an inverted
index: work proportional to the pairs that share an n-gram, no dense product); then each pair's precision, recall
and F-score follow sacrebleu's ``CHRF._compute_f_score`` in its order of operations, so the values are equal.
"""

from __future__ import annotations

import threading

import numpy as np


def _jit(fn):
    try:
        from numba import njit
    except ModuleNotFoundError:  # pragma: no cover - exercised only without numba
        return fn
    return njit(cache=True, nogil=True, parallel=True)(fn)


try:
    from numba import prange
except ModuleNotFoundError:  # pragma: no cover - exercised only without numba
    prange = range  # type: ignore[misc]

# numba's default threading layer runs one parallel kernel at a time: callers hold this lock around the kernels
LOCK = threading.Lock()


@_jit
def block_matches(
    start, stop, row_ptr, row_gid, row_cnt, col_ptr, col_txt, col_cnt, ref_start, match
):  # pragma: no cover
    """``match[i - start, j - ref_start]`` = sum over shared n-grams of min(count in i, count in j), for the
    hypotheses ``start <= i < stop`` and every reference ``j >= ref_start`` (``match`` zeroed here)."""
    n_refs = match.shape[1]
    for i in prange(start, stop):
        row = match[i - start]
        row[:] = 0
        for p in range(row_ptr[i], row_ptr[i + 1]):
            g, c = row_gid[p], row_cnt[p]
            for q in range(col_ptr[g], col_ptr[g + 1]):
                j = col_txt[q] - ref_start
                if 0 <= j < n_refs:
                    cj = col_cnt[q]
                    row[j] += c if c < cj else cj


@_jit
def accumulate(match, hyp_totals, ref_totals, factor, score, avg_p, avg_r, eff):  # pragma: no cover
    """One order of sacrebleu's ``_compute_f_score`` loop, for every pair of the block."""
    eps = 1e-16
    for a in prange(match.shape[0]):
        for b in range(match.shape[1]):
            n_ref = ref_totals[b]
            n_hyp = hyp_totals[a] if n_ref > 0 else 0
            m = match[a, b]
            prec = m / n_hyp if n_hyp > 0 else eps
            rec = m / n_ref if n_ref > 0 else eps
            denom = factor * prec + rec
            score[a, b] += ((1 + factor) * prec * rec / denom) if denom > 0 else eps
            if n_hyp > 0 and n_ref > 0:
                avg_p[a, b] += prec
                avg_r[a, b] += rec
                eff[a, b] += 1


@_jit
def finish(score, avg_p, avg_r, eff, factor, order, eps_smoothing, out):  # pragma: no cover
    """The end of sacrebleu's ``_compute_f_score``: the F-score of the averaged precision and recall."""
    for a in prange(score.shape[0]):
        for b in range(score.shape[1]):
            if eps_smoothing:
                out[a, b] = 100 * score[a, b] / order
                continue
            e = eff[a, b]
            p = avg_p[a, b] / e if e > 0 else 0.0
            r = avg_r[a, b] / e if e > 0 else 0.0
            if p + r:
                f = (1 + factor) * p * r
                f /= (factor * p) + r
                out[a, b] = 100 * f
            else:
                out[a, b] = 0.0


def empty_block(rows: int, cols: int) -> tuple[np.ndarray, ...]:
    """(match, score, avg_p, avg_r, eff) for a block of ``rows`` x ``cols`` pairs."""
    return (
        np.zeros((rows, cols), dtype=np.int32),
        np.zeros((rows, cols)),
        np.zeros((rows, cols)),
        np.zeros((rows, cols)),
        np.zeros((rows, cols), dtype=np.int32),
    )
