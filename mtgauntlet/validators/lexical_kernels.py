"""The compiled loops of sentence chrF and BLEU over many pairs (numba where installed, plain Python otherwise:
the same results, slower).

Texts arrive as symbol ids (code points, or word ids equal exactly for equal words), flat, with each text's start and
length. The matches of a (hypothesis, reference) pair at order n are sacrebleu's ``sum(min(count_h, count_r))`` over
the n-grams, counted with an open-addressing hash table per reference (:func:`ngram_matches`): every n-gram of
the reference is inserted once, for all orders, keyed exactly by (the table entry of its (n-1)-gram prefix, its last
id), so two keys are equal only for equal n-grams whatever the alphabet (no packing, no hash trusted: a rolling
hash of the ids picks the slot and rejects most other entries quickly); each hypothesis of that reference then probes its n-grams, counting the ones the reference still
has, and stops lengthening an n-gram at a start position as soon as its prefix is absent. A hypothesis equal to its
reference matches every n-gram without probing. The scores follow sacrebleu 2.x's ``CHRF._compute_f_score`` and
``BLEU.compute_bleu`` operation by operation (same order of floating-point operations); :func:`chrf_pairs` and
:func:`bleu_pairs` do a whole batch in one call.
"""

from __future__ import annotations

import math

import numpy as np

NGRAM_MULTIPLIER = 0xC2B2AE3D27D4EB4F  # an n-gram's slot: the top bits of its hash * this


def _jit(fn):
    try:
        from numba import njit
    except ModuleNotFoundError:  # pragma: no cover - exercised only without numba
        return fn
    return njit(cache=True, nogil=True)(fn)


def compiled() -> bool:
    """Whether the kernels run compiled (numba installed)."""
    return hasattr(ngram_matches, "py_func")


@_jit
def table_shift(cap):  # pragma: no cover - compiled
    """64 - log2(cap): ``(hash * multiplier) >> shift`` is a slot of a table of ``cap`` (a power of two >= 2) slots,
    the top bits of the product (Fibonacci hashing; a multiplier of 0 sends every key to slot 0: forced
    collisions)."""
    bits = 0
    while (1 << bits) < cap:
        bits += 1
    return np.uint64(64 - bits)


@_jit
def _empty_table(cap):  # pragma: no cover - compiled
    table = np.empty(cap, np.int64)
    for i in range(cap):
        table[i] = -1
    return table


@_jit
def _grow_ngrams(cap, n_cls, entries, multiplier):  # pragma: no cover - compiled
    """The table doubled (``cap`` -> 2 * cap slots, half of them usable entries), the entries re-inserted."""
    cap *= 2
    shift = table_shift(cap)
    grown = np.zeros((cap // 2, 5), np.int64)
    for c in range(n_cls):  # loops, not slices: numba compiles them in a fraction of the time
        for x in range(5):
            grown[c, x] = entries[c, x]
    table, entry_slot = _empty_table(cap), np.empty(cap // 2, np.int64)
    for c in range(n_cls):
        slot = np.int64((np.uint64(grown[c, 0]) * multiplier) >> shift)
        while table[slot] >= 0:
            slot = (slot + 1) & (cap - 1)
        table[slot] = c
        entry_slot[c] = slot
    return cap, shift, grown, table, entry_slot


@_jit
def _extend(h, last):  # pragma: no cover - compiled
    """The 64-bit polynomial hash of an n-gram from its prefix's hash ``h`` and its last id."""
    return (h + np.uint64(last) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)


@_jit
def _probe(table, entries, h, prefix, last, multiplier, shift, cap):  # pragma: no cover - compiled
    """(slot, entry) of the n-gram of hash ``h``, prefix entry ``prefix`` and last id ``last``: its entry, or -1
    and the empty slot where it would go (linear probing from the top bits of ``h * multiplier``)."""
    key = np.int64(h)
    slot = np.int64((h * multiplier) >> shift)
    c = table[slot]
    while c >= 0 and (entries[c, 0] != key or entries[c, 1] != prefix or entries[c, 2] != last):
        slot = (slot + 1) & (cap - 1)
        c = table[slot]
    return slot, c


@_jit
def ngram_matches(ids, starts, lengths, max_order, hyp, ref, by_ref, slots, multiplier, matches):  # pragma: no cover
    """``matches[k, n - 1]`` += the n-grams (n = 1..max_order) that text ``hyp[k]`` shares with text ``ref[k]``,
    ``sum(min(count_h, count_r))``; ``by_ref``: the pairs in an order that puts pairs of one reference together
    (each reference's n-grams go into the table once per run of pairs).

    An entry is a distinct n-gram of the reference: (hash, prefix entry, last id, reference count, hypothesis
    count). It is found by its n-gram's 64-bit polynomial hash (built across orders at a start position; the slot:
    the top bits of hash * ``multiplier``, linear probing) and accepted only if its prefix entry and last id are
    the n-gram's own: exact whatever the hash. ``slots``: the table's first size (doubled at half load; memory ~70
    bytes per distinct n-gram of the longest reference), ``multiplier``: 0 forces every key into one probe chain."""
    cap = 2
    while cap < slots:
        cap *= 2
    shift = table_shift(cap)
    table = _empty_table(cap)  # slot -> entry, -1: empty
    entries = np.zeros((cap // 2, 5), np.int64)
    entry_slot, touched = np.empty(cap // 2, np.int64), np.empty(0, np.int64)
    k = 0
    while k < len(by_ref):
        r = ref[by_ref[k]]
        s, m = starts[r], lengths[r]
        n_cls = 0
        for p in range(m):  # the reference's n-grams of every order starting at p
            top = min(max_order, m - p)
            while 2 * (n_cls + top) > cap:
                cap, shift, entries, table, entry_slot = _grow_ngrams(cap, n_cls, entries, multiplier)
            prefix, h = -1, np.uint64(0)
            for n in range(top):
                last = np.int64(ids[s + p + n])
                h = _extend(h, last)
                slot, c = _probe(table, entries, h, prefix, last, multiplier, shift, cap)
                if c < 0:
                    c = n_cls
                    entries[c, 0], entries[c, 1], entries[c, 2], entries[c, 3] = np.int64(h), prefix, last, 0
                    entry_slot[c] = slot
                    table[slot] = c
                    n_cls += 1
                entries[c, 3] += 1
                prefix = c
        if len(touched) < n_cls:
            touched = np.empty(len(entry_slot), np.int64)
        g = k
        while g < len(by_ref) and ref[by_ref[g]] == r:  # each hypothesis of this reference
            q = by_ref[g]
            hq = hyp[q]
            g += 1
            if hq == r:
                for n in range(min(max_order, m)):
                    matches[q, n] += m - n
                continue
            sh, mh = starts[hq], lengths[hq]
            n_touched = 0
            for p in range(mh):
                prefix, h = -1, np.uint64(0)
                for n in range(min(max_order, mh - p)):
                    last = np.int64(ids[sh + p + n])
                    h = _extend(h, last)
                    c = _probe(table, entries, h, prefix, last, multiplier, shift, cap)[1]
                    if c < 0:  # not in the reference, nor any longer n-gram starting here
                        break
                    if entries[c, 4] == 0:
                        touched[n_touched] = c
                        n_touched += 1
                    entries[c, 4] += 1
                    if entries[c, 4] <= entries[c, 3]:
                        matches[q, n] += 1
                    prefix = c
            for t in range(n_touched):
                entries[touched[t], 4] = 0
        for c in range(n_cls):
            table[entry_slot[c]] = -1
        k = g


@_jit
def _drop_spaces(codes, starts, lengths, is_space):  # pragma: no cover - compiled
    """The texts without the code points ``is_space`` marks: (codes, starts, lengths)."""
    out = np.empty(len(codes), codes.dtype)
    new_starts, new_lengths = np.empty(len(starts), np.int64), np.empty(len(starts), np.int64)
    o = 0
    for t in range(len(starts)):
        new_starts[t] = o
        for i in range(starts[t], starts[t] + lengths[t]):
            c = codes[i]
            if not is_space[c]:
                out[o] = c
                o += 1
        new_lengths[t] = o - new_starts[t]
    return out, new_starts, new_lengths


@_jit
def chrf_pairs(
    chars,
    char_starts,
    char_lengths,
    is_space,
    drop_spaces,
    char_order,
    words,
    word_starts,
    word_lengths,
    word_order,
    hyp,
    ref,
    by_ref,
    beta,
    eps_smoothing,
    slots,
    multiplier,
    out,
):  # pragma: no cover - compiled
    """sacrebleu's sentence chrF of each pair (texts ``hyp[k]``, ``ref[k]``) into ``out``: character n-grams of
    ``chars`` (code points; without the ``is_space`` ones where ``drop_spaces``) and word n-grams of ``words``."""
    if drop_spaces:
        chars, char_starts, char_lengths = _drop_spaces(chars, char_starts, char_lengths, is_space)
    order = char_order + word_order
    stats = np.zeros((len(hyp), 3 * order))
    char_matches = np.zeros((len(hyp), max(1, char_order)), np.int64)
    ngram_matches(chars, char_starts, char_lengths, char_order, hyp, ref, by_ref, slots, multiplier, char_matches)
    word_matches = np.zeros((len(hyp), max(1, word_order)), np.int64)
    if word_order > 0:
        ngram_matches(words, word_starts, word_lengths, word_order, hyp, ref, by_ref, slots, multiplier, word_matches)
    for k in range(len(hyp)):
        for i in range(order):
            if i < char_order:
                n, lengths, match = i, char_lengths, char_matches[k, i]
            else:
                n, lengths, match = i - char_order, word_lengths, word_matches[k, i - char_order]
            n_ref = max(lengths[ref[k]] - n, 0)
            stats[k, 3 * i] = max(lengths[hyp[k]] - n, 0) if n_ref > 0 else 0  # sacrebleu: no hyp count without ref
            stats[k, 3 * i + 1] = n_ref
            stats[k, 3 * i + 2] = match
    chrf_scores(stats, beta, eps_smoothing, out)


@_jit
def bleu_pairs(
    ids, starts, lengths, max_order, hyp, ref, by_ref, smooth, smooth_value, effective_order, slots, multiplier, out
):  # pragma: no cover - compiled
    """sacrebleu's sentence BLEU of each pair (token ids ``ids``) into ``out``; ``smooth``: see :func:`bleu_scores`."""
    matches = np.zeros((len(hyp), max_order), np.int64)
    ngram_matches(ids, starts, lengths, max_order, hyp, ref, by_ref, slots, multiplier, matches)
    correct, total = np.empty((len(hyp), max_order)), np.empty((len(hyp), max_order))
    sys_len, ref_len = np.empty(len(hyp), np.int64), np.empty(len(hyp), np.int64)
    for k in range(len(hyp)):
        sys_len[k], ref_len[k] = lengths[hyp[k]], lengths[ref[k]]
        for n in range(max_order):
            correct[k, n] = matches[k, n]
            total[k, n] = max(sys_len[k] - n, 0)
    bleu_scores(sys_len, ref_len, correct, total, smooth, smooth_value, effective_order, out)


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
