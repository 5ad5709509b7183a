"""Exact pairwise sentence chrF (sacrebleu's definition) without an O(n^2) Python loop.

For each n-gram order, texts become sparse count vectors. The match count of a (hypothesis,
reference) pair is sum_g min(c_h(g), c_r(g)) = sum_k [c_h >= k] . [c_r >= k], i.e. a sum of sparse
binary matrix products, one per count level k. Precision, recall and the F-score then follow
sacrebleu's CHRF._compute_f_score element-wise (effective order, or eps smoothing), so values equal
``sacrebleu.sentence_chrf`` to floating-point precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

PUNCTS = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

T = TypeVar("T")


def _remove_punctuation(sent: str) -> list[str]:
    out = []
    for w in sent.split():
        if len(w) == 1:
            out.append(w)
        elif w[-1] in PUNCTS:
            out += [w[:-1], w[-1]]
        elif w[0] in PUNCTS:
            out += [w[0], w[1:]]
        else:
            out.append(w)
    return out


def _ngram_lists(text: str, char_order: int, word_order: int, lowercase: bool, whitespace: bool) -> list[list[str]]:
    if lowercase:
        text = text.lower()
    line = text if whitespace else "".join(text.split())
    grams = [[line[i : i + n] for i in range(len(line) - n + 1)] for n in range(1, char_order + 1)]
    if word_order:
        words = _remove_punctuation(text)
        grams += [[" ".join(words[i : i + n]) for i in range(len(words) - n + 1)] for n in range(1, word_order + 1)]
    return grams


def _count_matrices(texts: Sequence[str], char_order: int, word_order: int, lowercase: bool, whitespace: bool):
    """Per order: (list of binary CSR matrices B_k for k = 1..max count, row totals)."""
    from collections import Counter

    import scipy.sparse as sp

    order = char_order + word_order
    vocabs: list[dict[str, int]] = [dict() for _ in range(order)]
    rows: list[list[int]] = [[] for _ in range(order)]
    cols: list[list[int]] = [[] for _ in range(order)]
    vals: list[list[int]] = [[] for _ in range(order)]
    for i, t in enumerate(texts):
        for o, grams in enumerate(_ngram_lists(t, char_order, word_order, lowercase, whitespace)):
            vocab = vocabs[o]
            for g, c in Counter(grams).items():
                j = vocab.setdefault(g, len(vocab))
                rows[o].append(i)
                cols[o].append(j)
                vals[o].append(c)
    out = []
    n = len(texts)
    for o in range(order):
        v = np.asarray(vals[o], dtype=np.int64)
        r, cs = np.asarray(rows[o], dtype=np.int64), np.asarray(cols[o], dtype=np.int64)
        shape = (n, max(1, len(vocabs[o])))
        totals = np.bincount(r, weights=v, minlength=n) if len(v) else np.zeros(n)
        levels = []
        for k in range(1, int(v.max()) + 1 if len(v) else 1):
            keep = v >= k
            levels.append(sp.csr_matrix((np.ones(keep.sum()), (r[keep], cs[keep])), shape=shape))
        out.append((levels, totals))
    return out


def pairwise_chrf(
    hyps: Sequence[str],
    refs: Sequence[str] | None = None,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    block: int = 512,
) -> np.ndarray:
    """Matrix S[i, j] = sentence chrF of hyps[i] against refs[j] (refs defaults to hyps), 0..100."""
    same = refs is None
    texts = list(hyps) + ([] if refs is None else list(refs))
    nh = len(hyps)
    mats = _count_matrices(texts, char_order, word_order, lowercase, whitespace)
    nr = nh if same else len(texts) - nh
    out = np.zeros((nh, nr))
    eps, factor, order = 1e-16, beta**2, char_order + word_order
    for start in range(0, nh, block):
        stop = min(nh, start + block)
        score = np.zeros((stop - start, nr))
        avg_p = np.zeros_like(score)
        avg_r = np.zeros_like(score)
        eff = np.zeros_like(score)
        for levels, totals in mats:
            rsl = slice(0, nh) if same else slice(nh, len(texts))
            match = np.zeros_like(score)
            for B in levels:
                match += (B[start:stop] @ B[rsl].T).toarray()
            n_ref = np.broadcast_to(totals[rsl][None, :], score.shape)
            n_hyp = np.where(n_ref > 0, totals[start:stop][:, None], 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                prec = np.where(n_hyp > 0, match / np.where(n_hyp > 0, n_hyp, 1), eps)
                rec = np.where(n_ref > 0, match / np.where(n_ref > 0, n_ref, 1), eps)
                denom = factor * prec + rec
                score += np.where(denom > 0, (1 + factor) * prec * rec / np.where(denom > 0, denom, 1), eps)
            both = (n_hyp > 0) & (n_ref > 0)
            avg_p += np.where(both, prec, 0.0)
            avg_r += np.where(both, rec, 0.0)
            eff += both
        if eps_smoothing:
            out[start:stop] = 100 * score / order
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(eff > 0, avg_p / np.where(eff > 0, eff, 1), 0.0)
            r = np.where(eff > 0, avg_r / np.where(eff > 0, eff, 1), 0.0)
            f = (1 + factor) * p * r / np.where((factor * p + r) > 0, factor * p + r, 1)
        out[start:stop] = np.where(p + r > 0, 100 * f, 0.0)
    return out


def sample_texts(texts: Sequence[T], max_texts: int | None, seed: int = 13) -> list[T]:
    """A uniform sample of ``max_texts`` texts (order kept) for pairwise metrics on very large sets."""
    texts = list(texts)
    if max_texts is not None and len(texts) > max_texts:
        rng = np.random.default_rng(seed)
        texts = [texts[i] for i in sorted(rng.choice(len(texts), max_texts, replace=False))]
    return texts


def mean_pairwise_chrf(
    texts: Sequence[str], *, max_texts: int | None = 5000, seed: int = 13, **kw
) -> tuple[float, int]:
    """Mean chrF over ordered pairs i != j (text i hypothesis, text j reference); samples ``max_texts``
    texts uniformly when there are more. Returns (mean, number of texts used)."""
    texts = sample_texts(texts, max_texts, seed)
    n = len(texts)
    if n < 2:
        return float("nan"), n
    S = pairwise_chrf(texts, **kw)
    return float((S.sum() - np.trace(S)) / (n * (n - 1))), n
