"""Sentence-level chrF / chrF++ and BLEU over many (hypothesis, reference) pairs at once, equal to sacrebleu's
``sentence_score`` (checked to 1e-9 by ``tests/validators/test_sentence_lexical.py`` on thousands of texts).

How: each distinct text of a batch is prepared once with sacrebleu's own steps (``_preprocess_segment``: lowercase
and, for BLEU, sacrebleu's tokenizer object itself, so every tokenizer is exact; chrF's whitespace removal and
chrF++'s punctuation splitting as sacrebleu writes them). Its symbols (characters, or words) get small dense ids
(``b`` bits), and the n-gram of order n at a position becomes one 64-bit integer: the n ids packed (n * b <= 64),
or, where that does not fit, the exact rank of the (n-1)-gram followed by the last id. Equal integers are equal
n-grams, no hashing. The compiled kernels (`mtgauntlet.validators.lexical_kernels`) sort each text's keys once and
merge the pairs' sorted lists. Without numba (or without sacrebleu's internal steps: another major version) the
batch falls back to ``sentence_score`` itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

import numpy as np

from mtgauntlet.validators import lexical_kernels as k

PACK_BITS = 64  # n-grams of n ids of b bits are packed while n * b <= this (else ranked; tests lower it)
SMOOTH_CODES = {"none": 0, "floor": 1, "add-k": 2, "exp": 3}
PUNCTS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")  # sacrebleu's CHRF._PUNCTS


def remove_punctuation(sent: str) -> list[str]:
    """sacrebleu's ``CHRF._remove_punctuation``: one leading or trailing punctuation mark split off a word."""
    out: list[str] = []
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


class Symbols:
    """Texts as one flat array of dense symbol ids (1..n) with each text's start and length."""

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
        codes = np.frombuffer("".join(lines).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
        if drop_whitespace and len(codes):
            keep = ~np.isin(codes, _whitespace())
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

    def match_stats(self, max_order: int, hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """(pairs, orders, 3): hypothesis n-grams, reference n-grams, matches, per pair and order."""
        out = np.zeros((len(hyp), max_order, 3), dtype=np.int64)
        n_hyp, n_ref, n_match = (np.zeros(len(hyp), dtype=np.int64) for _ in range(3))
        for n, keys in self.orders(max_order):
            counts = np.maximum(self.lengths - n + 1, 0)
            out_starts = np.zeros(len(counts), dtype=np.int64)
            if len(counts) > 1:
                np.cumsum(counts[:-1], out=out_starts[1:])
            merged = np.empty(int(counts.sum()), dtype=np.uint64)
            k.sort_segments(keys, self.starts, counts, out_starts, merged)
            k.merge_counts(merged, out_starts, counts, hyp, ref, n_hyp, n_ref, n_match)
            out[:, n - 1, 0], out[:, n - 1, 1], out[:, n - 1, 2] = n_hyp, n_ref, n_match
        return out


@functools.cache
def _whitespace() -> np.ndarray:
    """The code points ``str.split()`` splits on (``str.isspace``), found once."""
    return np.array([c for c in range(0x110000) if chr(c).isspace()], dtype=np.uint32)


def _distinct(hyp: Sequence[str], ref: Sequence[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The distinct texts of a batch, and each pair's hypothesis and reference as an index into them."""
    texts = list(dict.fromkeys(chain(hyp, ref)))
    index = {t: i for i, t in enumerate(texts)}
    h = np.fromiter(map(index.__getitem__, hyp), dtype=np.int64, count=len(hyp))
    r = np.fromiter(map(index.__getitem__, ref), dtype=np.int64, count=len(ref))
    return texts, h, r


def _with_refs(scores_of, hyp: Sequence[str], ref: Sequence[str | None]) -> list[float | None]:
    keep = [i for i, r in enumerate(ref) if r is not None]
    out: list[float | None] = [None] * len(hyp)
    if keep:
        for i, s in zip(keep, scores_of([hyp[i] for i in keep], [ref[i] for i in keep])):
            out[i] = float(s)
    return out


def exact_steps(metric: Any) -> bool:
    """Whether ``metric`` (a sacrebleu CHRF or BLEU) has the internal steps this module reproduces."""
    from sacrebleu.metrics import BLEU, CHRF

    if isinstance(metric, CHRF):
        return all(hasattr(metric, a) for a in ("char_order", "word_order", "beta", "whitespace", "eps_smoothing"))
    if isinstance(metric, BLEU):
        return metric.smooth_method in SMOOTH_CODES and hasattr(metric, "_preprocess_segment")
    return False


def chrf_sentences(metric: Any, hyp: Sequence[str], ref: Sequence[str | None]) -> list[float | None]:
    """``metric.sentence_score(h, [r]).score`` for each pair (None where ``r`` is None); ``metric``: a sacrebleu
    ``CHRF``."""
    if not (exact_steps(metric) and k.compiled()):  # without numba the kernels would be slower than sacrebleu
        return [metric.sentence_score(h, [r]).score if r is not None else None for h, r in zip(hyp, ref)]

    def scores(hs: list[str], rs: list[str]) -> np.ndarray:
        texts, h, r = _distinct(hs, rs)
        lines = [t.lower() for t in texts] if metric.lowercase else texts  # sacrebleu's _preprocess_segment
        chars = Symbols.of_chars(lines, drop_whitespace=not metric.whitespace)
        parts = [chars.match_stats(metric.char_order, h, r)]
        if metric.word_order > 0:
            words = Symbols.of_words([remove_punctuation(t) for t in lines])
            parts.append(words.match_stats(metric.word_order, h, r))
        stats = np.concatenate(parts, axis=1)
        stats[:, :, 0] = np.where(stats[:, :, 1] > 0, stats[:, :, 0], 0)  # sacrebleu: no hyp count without ref
        out = np.empty(len(hs))
        k.chrf_scores(stats.reshape(len(hs), -1).astype(np.float64), float(metric.beta), metric.eps_smoothing, out)
        return out

    return _with_refs(scores, hyp, ref)


def bleu_tokens(metric: Any) -> Callable[[str], list[str]]:
    """``metric._preprocess_segment(sent).split()``, with `tokens_13a` in place of sacrebleu's 13a tokenizer (equal
    tokens)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    if type(metric.tokenizer) is not Tokenizer13a:
        return lambda sent: metric._preprocess_segment(sent).split()
    from mtgauntlet.validators.tokenize_13a import tokens_13a

    if metric.lowercase:
        return lambda sent: tokens_13a(sent.lower().rstrip())
    return lambda sent: tokens_13a(sent.rstrip())


def bleu_sentences(metric: Any, hyp: Sequence[str], ref: Sequence[str | None]) -> list[float | None]:
    """``metric.sentence_score(h, [r]).score`` for each pair (None where ``r`` is None); ``metric``: a sacrebleu
    ``BLEU`` (any tokenizer: its own tokenizer object tokenizes)."""
    if not (exact_steps(metric) and k.compiled()):  # without numba the kernels would be slower than sacrebleu
        return [metric.sentence_score(h, [r]).score if r is not None else None for h, r in zip(hyp, ref)]
    from sacrebleu.metrics import BLEU

    smooth_value = metric.smooth_value
    if smooth_value is None:
        smooth_value = BLEU.SMOOTH_DEFAULTS[metric.smooth_method]

    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tokens = bleu_tokens(metric)

    def words_of(texts: list[str]) -> Symbols:
        if type(metric.tokenizer) is not Tokenizer13a:
            return Symbols.of_words(list(map(tokens, texts)))
        from mtgauntlet.validators.tokenize_kernels import token_ids_13a

        lines = [t.lower().rstrip() for t in texts] if metric.lowercase else [t.rstrip() for t in texts]
        return Symbols(*token_ids_13a(lines))

    def scores(hs: list[str], rs: list[str]) -> np.ndarray:
        texts, h, r = _distinct(hs, rs)
        words = words_of(texts)
        stats = words.match_stats(metric.max_ngram_order, h, r)
        out = np.empty(len(hs))
        k.bleu_scores(
            words.lengths[h],
            words.lengths[r],
            stats[:, :, 2].astype(np.float64),
            stats[:, :, 0].astype(np.float64),
            SMOOTH_CODES[metric.smooth_method],
            float(smooth_value or 0.0),
            bool(metric.effective_order),
            out,
        )
        return out

    return _with_refs(scores, hyp, ref)
