"""Sentence-level chrF / chrF++ and BLEU over many (hypothesis, reference) pairs at once, equal to sacrebleu's
``sentence_score`` (checked to 1e-9 by ``tests/validators/test_sentence_lexical.py`` on thousands of texts).

How: each distinct text of a batch is prepared once with sacrebleu's own steps (``_preprocess_segment``: lowercase
and, for BLEU, sacrebleu's tokenizer object itself, or its 13a tokenizer compiled
(`mtgauntlet.validators.tokenize_kernels`), so every tokenizer is exact; chrF's whitespace removal and chrF++'s
punctuation splitting as sacrebleu writes them, the latter compiled too). Characters are their code points, words
get exact integer ids.
The compiled kernels (`mtgauntlet.validators.lexical_kernels`) then count each pair's shared n-grams of every order
with a hash table per reference, keyed exactly (no packing limit, no hash trusted), the pairs of one reference
together, and score the whole batch in one call. Without numba (or without sacrebleu's internal steps: another
major version) the batch falls back to ``sentence_score`` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

import numpy as np

from mtgauntlet.validators import lexical_kernels as k
from mtgauntlet.validators.tokenize_kernels import is_space_table, punct_word_ids, token_ids_13a

TABLE_SLOTS = 1024  # the n-gram and token tables' first size (doubled at half load; tests lower it)
NGRAM_MULTIPLIER = k.NGRAM_MULTIPLIER  # the n-gram table's hash multiplier (tests set 0: every key collides)
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


def code_points(lines: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(code points, starts, lengths) of the lines, flat (``uint32``)."""
    codes = np.frombuffer("".join(lines).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    return codes, _starts(lengths), lengths


def word_ids(token_lists: list[list[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(word ids, starts, lengths) of the token lists, flat: equal words get equal ids (``uint32``, 1..)."""
    flat = list(chain.from_iterable(token_lists))
    vocab = {w: i for i, w in enumerate(dict.fromkeys(flat), 1)}
    ids = np.fromiter(map(vocab.__getitem__, flat), dtype=np.uint32, count=len(flat))
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    return ids, _starts(lengths), lengths


def _with_starts(ids: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return ids, _starts(lengths), lengths


def _starts(lengths: np.ndarray) -> np.ndarray:
    starts = np.zeros(len(lengths), dtype=np.int64)
    if len(lengths) > 1:
        np.cumsum(lengths[:-1], out=starts[1:])
    return starts


def _distinct(hyp: Sequence[str], ref: Sequence[str]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """The distinct texts of a batch, each pair's hypothesis and reference as an index into them, and the pairs
    ordered by reference."""
    index = dict.fromkeys(chain(hyp, ref), 0)
    for i, t in enumerate(index):
        index[t] = i
    h = np.fromiter(map(index.__getitem__, hyp), dtype=np.int64, count=len(hyp))
    r = np.fromiter(map(index.__getitem__, ref), dtype=np.int64, count=len(ref))
    return list(index), h, r, np.argsort(r, kind="stable")


def _with_refs(scores_of, hyp: Sequence[str], ref: Sequence[str | None]) -> list[float | None]:
    if all(r is not None for r in ref):
        return scores_of(list(hyp), list(ref)).tolist() if len(hyp) else []
    keep = [i for i, r in enumerate(ref) if r is not None]
    out: list[float | None] = [None] * len(hyp)
    if keep:
        for i, s in zip(keep, scores_of([hyp[i] for i in keep], [ref[i] for i in keep]).tolist()):
            out[i] = s
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
        texts, h, r, by_ref = _distinct(hs, rs)
        lines = [t.lower() for t in texts] if metric.lowercase else texts  # sacrebleu's _preprocess_segment
        chars = code_points(lines)
        words = word_ids([]) if metric.word_order == 0 else _with_starts(*punct_word_ids(lines, TABLE_SLOTS)[:2])
        out = np.empty(len(hs))
        k.chrf_pairs(
            *chars, is_space_table(), not metric.whitespace, metric.char_order, *words, metric.word_order,
            h, r, by_ref, float(metric.beta), bool(metric.eps_smoothing), TABLE_SLOTS, np.uint64(NGRAM_MULTIPLIER), out,
        )  # fmt: skip
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

    def words_of(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if type(metric.tokenizer) is not Tokenizer13a:
            return word_ids(list(map(tokens, texts)))
        lines = [t.lower().rstrip() for t in texts] if metric.lowercase else [t.rstrip() for t in texts]
        return _with_starts(*token_ids_13a(lines, TABLE_SLOTS)[:2])

    def scores(hs: list[str], rs: list[str]) -> np.ndarray:
        texts, h, r, by_ref = _distinct(hs, rs)
        out = np.empty(len(hs))
        k.bleu_pairs(
            *words_of(texts), metric.max_ngram_order, h, r, by_ref, SMOOTH_CODES[metric.smooth_method],
            float(smooth_value or 0.0), bool(metric.effective_order), TABLE_SLOTS, np.uint64(NGRAM_MULTIPLIER), out,
        )  # fmt: skip
        return out

    return _with_refs(scores, hyp, ref)
