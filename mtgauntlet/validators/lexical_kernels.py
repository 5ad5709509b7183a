"""The compiled loops of sentence chrF and BLEU over many pairs (numba where installed, plain Python otherwise:
the same results, slower).

Texts arrive as n-gram keys: one unsigned 64-bit integer per position and order that equals another exactly when
the two n-grams are equal (`mtgauntlet.validators.sentence_lexical` builds them without hashing). A text's keys of
one order are sorted once (:func:`sort_segments`); the matches of a (hypothesis, reference) pair are then the size
of the two sorted multisets' intersection, one merge (:func:`merge_counts`), which is sacrebleu's
``sum(min(count_h, count_r))``. The scores follow sacrebleu 2.x's ``CHRF._compute_f_score`` and
``BLEU.compute_bleu`` operation by operation (same order of floating-point operations).
"""

from __future__ import annotations

import math

import numpy as np


def _jit(fn):
    try:
        from numba import njit
    except ModuleNotFoundError:  # pragma: no cover - exercised only without numba
        return fn
    return njit(cache=True, nogil=True)(fn)


def compiled() -> bool:
    """Whether the kernels run compiled (numba installed)."""
    return hasattr(sort_segments, "py_func")


@_jit
def _sort_range(a, lo, hi):  # pragma: no cover - compiled
    """Sort ``a[lo:hi]`` in place: quicksort (median of three) down to insertion sort below 24 items."""
    while hi - lo > 24:
        mid = (lo + hi) // 2
        x, y, z = a[lo], a[mid], a[hi - 1]
        pivot = max(min(x, y), min(max(x, y), z))
        i, j = lo, hi - 1
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if j - lo < hi - i:  # recurse into the smaller side, loop on the larger
            _sort_range(a, lo, j + 1)
            lo = i
        else:
            _sort_range(a, i, hi)
            hi = j + 1
    for i in range(lo + 1, hi):
        v = a[i]
        j = i - 1
        while j >= lo and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@_jit
def sort_segments(keys, starts, counts, out_starts, out):  # pragma: no cover - compiled
    """``out[out_starts[t] : out_starts[t] + counts[t]]`` = sorted ``keys[starts[t] : starts[t] + counts[t]]``."""
    for t in range(len(starts)):
        m = counts[t]
        if m > 0:
            s, o = starts[t], out_starts[t]
            for i in range(m):
                out[o + i] = keys[s + i]
            _sort_range(out, o, o + m)


@_jit
def merge_counts(sorted_keys, out_starts, counts, hyp, ref, n_hyp, n_ref, n_match):  # pragma: no cover - compiled
    """For each pair k (texts ``hyp[k]``, ``ref[k]``): the n-gram counts of both and of their intersection."""
    for k in range(len(hyp)):
        h, r = hyp[k], ref[k]
        i, i_end = out_starts[h], out_starts[h] + counts[h]
        j, j_end = out_starts[r], out_starts[r] + counts[r]
        match = 0
        while i < i_end and j < j_end:
            a, b = sorted_keys[i], sorted_keys[j]
            if a == b:
                match += 1
                i += 1
                j += 1
            elif a < b:
                i += 1
            else:
                j += 1
        n_hyp[k] = counts[h]
        n_ref[k] = counts[r]
        n_match[k] = match


@_jit
def chrf_scores(stats, beta, eps_smoothing, out):  # pragma: no cover - compiled
    """sacrebleu's ``CHRF._compute_f_score`` per row of ``stats`` (rows of [hyp, ref, match] per order; a hyp
    count is already 0 where the reference has no n-gram of that order)."""
    eps = 1e-16
    factor = beta**2
    order = stats.shape[1] // 3
    for k in range(stats.shape[0]):
        score = 0.0
        effective_order = 0
        avg_prec, avg_rec = 0.0, 0.0
        for i in range(order):
            n_hyp, n_ref, n_match = stats[k, 3 * i], stats[k, 3 * i + 1], stats[k, 3 * i + 2]
            prec = n_match / n_hyp if n_hyp > 0 else eps
            rec = n_match / n_ref if n_ref > 0 else eps
            denom = factor * prec + rec
            score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps
            if n_hyp > 0 and n_ref > 0:
                avg_prec += prec
                avg_rec += rec
                effective_order += 1
        if eps_smoothing:
            out[k] = 100 * score / order
            continue
        if effective_order == 0:
            avg_prec = avg_rec = 0.0
        else:
            avg_prec /= effective_order
            avg_rec /= effective_order
        if avg_prec + avg_rec:
            f = (1 + factor) * avg_prec * avg_rec
            f /= (factor * avg_prec) + avg_rec
            out[k] = 100 * f
        else:
            out[k] = 0.0


@_jit
def _my_log(num):  # pragma: no cover - compiled
    return -9999999999.0 if num == 0.0 else math.log(num)


@_jit
def bleu_scores(sys_len, ref_len, correct, total, smooth, smooth_value, effective_order, out):  # pragma: no cover
    """sacrebleu's ``BLEU.compute_bleu`` per pair; ``smooth``: 0 none, 1 floor, 2 add-k, 3 exp."""
    max_order = correct.shape[1]
    precisions = np.zeros(max_order)
    c = np.zeros(max_order)
    t = np.zeros(max_order)
    for k in range(len(sys_len)):
        bp = 1.0
        if sys_len[k] < ref_len[k]:
            bp = math.exp(1 - ref_len[k] / sys_len[k]) if sys_len[k] > 0 else 0.0
        any_correct = False
        for n in range(max_order):
            precisions[n] = 0.0
            c[n] = correct[k, n]
            t[n] = total[k, n]
            if correct[k, n] != 0:
                any_correct = True
        if not any_correct:
            out[k] = 0.0
            continue
        smooth_mteval = 1.0
        eff_order = max_order
        for n in range(1, max_order + 1):
            if smooth == 2 and n > 1:
                c[n - 1] += smooth_value
                t[n - 1] += smooth_value
            if t[n - 1] == 0:
                break
            if effective_order:
                eff_order = n
            if c[n - 1] == 0:
                if smooth == 3:
                    smooth_mteval *= 2
                    precisions[n - 1] = 100.0 / (smooth_mteval * t[n - 1])
                elif smooth == 1:
                    precisions[n - 1] = 100.0 * smooth_value / t[n - 1]
            else:
                precisions[n - 1] = 100.0 * c[n - 1] / t[n - 1]
        acc = 0.0
        for n in range(eff_order):
            acc += _my_log(precisions[n])
        out[k] = bp * math.exp(acc / eff_order)
