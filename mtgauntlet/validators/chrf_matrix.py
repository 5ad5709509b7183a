"""Exact pairwise sentence chrF (sacrebleu's definition) without an O(n^2) Python loop, in blocks of rows.

Each text's n-grams (characters, with sacrebleu's whitespace removal; words after its punctuation split for
chrF++) get exact integer keys (:class:`Symbols`), then per order dense n-gram ids
and counts, held by text and by n-gram. A block of hypothesis rows is scored against every reference by the
compiled kernels of `mtgauntlet.validators.pairwise_kernels` (an inverted index for the matches, sacrebleu's
F-score arithmetic in its order), so values equal ``sacrebleu.sentence_chrf``. Memory: the count tables (a few
times the texts' characters) and one block of rows x references (``block_rows``; at most ~4M pairs, ~100 MB):
:func:`mean_pairwise_chrf` never holds the whole n x n matrix (50,000 texts: peak ~0.6 GB; see
docs/validation.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Any, TypeVar

import numpy as np

from mtgauntlet.validators import pairwise_kernels as k
from mtgauntlet.validators.sentence_lexical import code_points, remove_punctuation
from mtgauntlet.validators.tokenize_kernels import is_space_table

PAIRS_PER_BLOCK = 1 << 22
PACK_BITS = 64  # n-grams of n ids of b bits are packed while n * b <= this (else ranked; tests lower it)
T = TypeVar("T")


class Symbols:
    """Texts as one flat array of dense symbol ids (1..n) with each text's start and length, and their n-grams as
    exact 64-bit keys (:meth:`orders`): the n ids packed (``b`` bits each, while n * b <= 64), or, where that does
    not fit, the exact rank of the (n-1)-gram followed by the last id. Equal keys are equal n-grams, no hashing."""

    def __init__(self, ids: np.ndarray, lengths: np.ndarray, n_symbols: int):
        self.ids = ids.astype(np.uint64)
        self.lengths = lengths.astype(np.int64)
        self.starts = np.zeros(len(lengths), dtype=np.int64)
        if len(lengths) > 1:
            np.cumsum(self.lengths[:-1], out=self.starts[1:])
        self.bits = max(1, int(n_symbols).bit_length())

    @classmethod
    def of_chars(cls, lines: list[str], drop_whitespace: bool = False) -> Symbols:
        """The characters of each line; ``drop_whitespace``: without the characters ``str.split()`` splits on
        (sacrebleu's ``"".join(line.split())``)."""
        codes, _, lengths = code_points(lines)
        if drop_whitespace and len(codes):
            keep = ~is_space_table()[codes]
            owner = np.repeat(np.arange(len(lines)), lengths)
            lengths = np.bincount(owner[keep], minlength=len(lines)).astype(np.int64)
            codes = codes[keep]
        if not len(codes):
            return cls(codes, lengths, 0)
        present = np.zeros(int(codes.max()) + 1, dtype=np.int64)
        present[codes] = 1
        dense = np.cumsum(present)
        return cls(dense[codes], lengths, int(dense[-1]))

    @classmethod
    def of_words(cls, token_lists: list[list[str]]) -> Symbols:
        flat = list(chain.from_iterable(token_lists))
        vocab = {w: i for i, w in enumerate(dict.fromkeys(flat), 1)}
        ids = np.fromiter(map(vocab.__getitem__, flat), dtype=np.uint64, count=len(flat))
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        return cls(ids, lengths, len(vocab))

    def orders(self, max_order: int):
        """Yield (n, keys) for n = 1..max_order: ``keys[p]`` is the n-gram starting at flat position p (only
        positions whose n-gram lies inside its text are read)."""
        keys = self.ids
        packed = True
        for n in range(1, max_order + 1):
            if n > 1:
                step = self.ids[n - 1 :]
                if packed and n * self.bits <= PACK_BITS:
                    keys = (keys[:-1] << np.uint64(self.bits)) | step
                else:  # the exact rank of the (n-1)-gram, then the last symbol
                    packed = False
                    _, rank = np.unique(keys[:-1], return_inverse=True)
                    keys = ((rank.astype(np.uint64) + np.uint64(1)) << np.uint64(self.bits)) | step
            yield n, keys


class OrderTables:
    """One n-gram order of a list of texts: CSR by text (ids, counts), postings by n-gram, totals per text."""

    def __init__(self, symbols: Symbols, n: int, keys: np.ndarray):
        counts = np.maximum(symbols.lengths - n + 1, 0)
        texts = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        starts = np.repeat(symbols.starts, counts)
        offsets = np.arange(len(texts), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
        grams = keys[starts + offsets] if len(texts) else np.zeros(0, dtype=np.uint64)
        _, gid = np.unique(grams, return_inverse=True)
        gid = gid.astype(np.int64).ravel()
        n_grams = int(gid.max()) + 1 if len(gid) else 0
        pair, count = np.unique(texts * max(1, n_grams) + gid, return_counts=True)  # (text, n-gram) sorted
        text_of, gid_of = pair // max(1, n_grams), pair % max(1, n_grams)
        self.row_ptr = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(np.bincount(text_of, minlength=len(counts)), out=self.row_ptr[1:])
        self.row_gid, self.row_cnt = gid_of.astype(np.int32), count.astype(np.int32)
        by_gram = np.argsort(gid_of, kind="stable")
        self.col_ptr = np.zeros(n_grams + 1, dtype=np.int64)
        np.cumsum(np.bincount(gid_of, minlength=n_grams), out=self.col_ptr[1:])
        self.col_txt, self.col_cnt = text_of[by_gram].astype(np.int32), self.row_cnt[by_gram]
        self.totals = counts


def _tables(
    texts: Sequence[str], char_order: int, word_order: int, lowercase: bool, whitespace: bool
) -> list[OrderTables]:
    lines = [t.lower() if lowercase else t for t in texts]
    chars = Symbols.of_chars(lines, drop_whitespace=not whitespace)
    out = [OrderTables(chars, n, keys) for n, keys in chars.orders(char_order)]
    if word_order:
        words = Symbols.of_words([remove_punctuation(t) for t in lines])
        out += [OrderTables(words, n, keys) for n, keys in words.orders(word_order)]
    return out


def chrf_blocks(
    hyps: Sequence[str],
    refs: Sequence[str] | None = None,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    block_rows: int | None = None,
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (first row, block): ``block[a, j]`` = sentence chrF of ``hyps[first + a]`` against ``refs[j]`` (refs
    defaults to hyps), 0..100, block by block of rows."""
    texts = list(hyps) + ([] if refs is None else list(refs))
    nh = len(hyps)
    ref_start = 0 if refs is None else nh
    nr = len(texts) - ref_start
    tables = _tables(texts, char_order, word_order, lowercase, whitespace)
    rows = block_rows or max(1, min(nh, PAIRS_PER_BLOCK // max(1, nr)))
    factor, order = float(beta**2), char_order + word_order
    match, score, avg_p, avg_r, eff = k.empty_block(rows, nr)
    for start in range(0, nh, rows):
        stop = min(nh, start + rows)
        m = stop - start
        for a in (score, avg_p, avg_r, eff):
            a[:m] = 0
        out = np.empty((m, nr))
        with k.LOCK:
            for t in tables:
                k.block_matches(
                    start, stop, t.row_ptr, t.row_gid, t.row_cnt, t.col_ptr, t.col_txt, t.col_cnt, ref_start, match[:m]
                )
                hyp_totals, ref_totals = t.totals[start:stop], t.totals[ref_start:]
                k.accumulate(match[:m], hyp_totals, ref_totals, factor, score[:m], avg_p[:m], avg_r[:m], eff[:m])
            k.finish(score[:m], avg_p[:m], avg_r[:m], eff[:m], factor, order, eps_smoothing, out)
        yield start, out


def pairwise_chrf(hyps: Sequence[str], refs: Sequence[str] | None = None, **options: Any) -> np.ndarray:
    """Matrix S[i, j] = sentence chrF of hyps[i] against refs[j] (refs defaults to hyps), 0..100. Options:
    ``char_order``, ``word_order``, ``beta``, ``lowercase``, ``whitespace``, ``eps_smoothing`` (sacrebleu's)."""
    nr = len(hyps) if refs is None else len(refs)
    out = np.zeros((len(hyps), nr))
    for start, block in chrf_blocks(hyps, refs, **options):
        out[start : start + len(block)] = block
    return out


def sample_texts(texts: Sequence[T], max_texts: int | None, seed: int = 13) -> list[T]:
    """A uniform sample of ``max_texts`` texts (order kept) for pairwise metrics on very large sets."""
    texts = list(texts)
    if max_texts is not None and len(texts) > max_texts:
        rng = np.random.default_rng(seed)
        texts = [texts[i] for i in sorted(rng.choice(len(texts), max_texts, replace=False))]
    return texts


def mean_pairwise_chrf(
    texts: Sequence[str], *, max_texts: int | None = 5000, seed: int = 13, **options: Any
) -> tuple[float, int]:
    """Mean chrF over ordered pairs i != j (text i hypothesis, text j reference); samples ``max_texts``
    texts uniformly when there are more. Returns (mean, number of texts used). Block by block: memory stays
    bounded whatever the number of texts."""
    texts = sample_texts(texts, max_texts, seed)
    n = len(texts)
    if n < 2:
        return float("nan"), n
    total = 0.0
    for start, block in chrf_blocks(texts, **options):
        rows = np.arange(len(block))
        total += float(block.sum()) - float(block[rows, start + rows].sum())
    return total / (n * (n - 1)), n
