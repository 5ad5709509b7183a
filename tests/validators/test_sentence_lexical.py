"""The batched, compiled sentence chrF / chrF++ / BLEU (`mtgauntlet.validators.sentence_lexical`) against
sacrebleu's own ``sentence_score``, to 1e-9, on thousands of random texts (Latin with the punctuation the
tokenizers split on, CJK, Arabic, emoji sequences, odd whitespace, HTML entities, empty, blank, very long) and on
real FLORES-200 sentences in 16 languages scored against each other; the hash tables' growth (a text far longer
than their first size, thousands of distinct symbols) and forced collisions (every key hashed to one slot), the 13a
tokenizer and chrF++'s word splitting on their own, and the whitespace table."""

from __future__ import annotations

import csv
import gzip
import random

import pytest
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from mtgauntlet.validators import sentence_lexical, tokenize_kernels
from mtgauntlet.validators.sentence_lexical import bleu_sentences, chrf_sentences, remove_punctuation
from mtgauntlet.validators.tokenize_13a import tokenize_13a
from mtgauntlet.validators.tokenize_kernels import (
    is_space_table,
    punct_word_ids,
    token_ids_13a,
    whitespace_code_points,
)

PIECES = [
    "the",
    "The",
    "cat",
    "sat",
    "on",
    "mat",
    "a",
    "A",
    "3",
    "3.50",
    "1,000",
    "12-3",
    "x-y",
    "e.g.",
    "U.S.",
    ".",
    ",",
    "-",
    "!",
    "?",
    "(",
    ")",
    '"',
    "'",
    "&",
    "&amp;",
    "&quot;",
    "&lt;",
    "<skipped>",
    "/",
    "@",
    "#",
    "$",
    "{",
    "}",
    "[",
    "]",
    "^",
    "_",
    "`",
    "~",
    "|",
    ":",
    ";",
    "=",
    "+",
    "*",
    "東京",
    "日本",
    "の",
    "首都",
    "です",
    "。",
    "、",
    "中国",
    "人",
    "한국어",
    "문장",
    "القطة",
    "جلست",
    "على",
    "الحصيرة",
    "،",
    "؟",
    "👍",
    "👍🏽",
    "👩‍💻",
    "🇯🇵",
    "é",
    "e\u0301",
    "ß",
    "İ",
    "ﬁ",
]
SPACES = [" ", " ", " ", "  ", "\t", "\n", "-\n", "\xa0", "\u3000", "\u2028", ""]


def random_text(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.04:
        return ""
    if kind < 0.08:
        return rng.choice([" ", "\t", "  \n ", "\xa0", "\u3000"])
    if kind < 0.12:  # a random run of CJK ideographs (many distinct characters)
        return "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(rng.randint(1, 60)))
    n = rng.randint(300, 1500) if kind < 0.13 else rng.randint(1, 40)  # a few very long texts
    return "".join(rng.choice(PIECES) + rng.choice(SPACES) for _ in range(n))


def mutate(rng: random.Random, text: str) -> str:
    """A hypothesis near its reference: words dropped, swapped, case changed, or a random text."""
    words = text.split(" ")
    r = rng.random()
    if r < 0.2:
        return random_text(rng)
    if r < 0.4 and len(words) > 1:
        del words[rng.randrange(len(words))]
    elif r < 0.6 and len(words) > 1:
        i = rng.randrange(len(words) - 1)
        words[i], words[i + 1] = words[i + 1], words[i]
    elif r < 0.7:
        return text.upper()
    elif r < 0.8:
        return text
    return " ".join(words) + rng.choice(["", ".", " .", "!", " 👍"])


def random_pairs(n: int, seed: int = 7) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    refs = [random_text(rng) for _ in range(n)]
    hyps = [mutate(rng, r) for r in refs]
    return hyps, refs


@pytest.fixture(scope="module")
def flores_pairs(shared_data) -> tuple[list[str], list[str]]:
    """FLORES-200 devtest sentences in 16 languages: each against the next sentence's and its own neighbour's."""
    with gzip.open(shared_data / "flores200-devtest" / "flores200_devtest.tsv.gz", "rt", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[:40]
    langs = [c for c in rows[0] if c not in ("id", "URL", "domain", "topic", "has_image", "has_hyperlink")]
    texts = [r[lang] for lang in langs for r in rows]
    hyps = texts + texts
    refs = texts[1:] + texts[:1] + [t[: len(t) // 2] + t for t in texts]  # a neighbour; a partial repeat
    return hyps, refs


METRICS = {
    "chrf": lambda: CHRF(),
    "chrf++": lambda: CHRF(word_order=2),
    "chrf-lc-space": lambda: CHRF(lowercase=True, whitespace=True),
    "chrf-eps-nw1": lambda: CHRF(eps_smoothing=True, word_order=1),
    "bleu-13a": lambda: BLEU(effective_order=True),
    "bleu-13a-lc": lambda: BLEU(effective_order=True, lowercase=True),
    "bleu-intl": lambda: BLEU(effective_order=True, tokenize="intl"),
    "bleu-char": lambda: BLEU(effective_order=True, tokenize="char"),
    "bleu-zh": lambda: BLEU(effective_order=True, tokenize="zh"),
    "bleu-none": lambda: BLEU(effective_order=True, tokenize="none"),
    "bleu-floor": lambda: BLEU(smooth_method="floor"),
    "bleu-add-k": lambda: BLEU(smooth_method="add-k", effective_order=True),
    "bleu-no-smoothing": lambda: BLEU(smooth_method="none"),
}


def assert_sacrebleu(metric, hyps: list[str], refs: list[str | None]) -> None:
    batch = chrf_sentences if isinstance(metric, CHRF) else bleu_sentences
    got = batch(metric, hyps, refs)
    want = [metric.sentence_score(h, [r]).score if r is not None else None for h, r in zip(hyps, refs)]
    wrong = [
        (h, r, g, w)
        for h, r, g, w in zip(hyps, refs, got, want)
        if (g is None) != (w is None) or (g is not None and abs(g - w) > 1e-9)
    ]
    assert not wrong, f"{type(metric).__name__} {vars(metric)}: {len(wrong)} differ, e.g. {wrong[:2]}"
    assert len({round(w, 6) for w in want if w is not None}) > min(20, len(hyps) // 4)  # the scores vary


@pytest.mark.parametrize("name", list(METRICS))
def test_random_texts_score_as_sacrebleu(name):
    metric = METRICS[name]()
    hyps, refs = random_pairs(300 if name in ("chrf", "chrf++", "bleu-13a") else 150)
    refs[5] = None  # no reference: no score
    assert_sacrebleu(metric, hyps, refs)


def test_two_thousand_random_pairs_score_as_sacrebleu():
    hyps, refs = random_pairs(2000, seed=11)
    for metric in (CHRF(), BLEU(effective_order=True)):
        assert_sacrebleu(metric, hyps, refs)


def test_every_key_in_one_probe_chain_of_a_two_slot_table_scores_as_sacrebleu(monkeypatch):
    """Hash multiplier 0: every n-gram and token goes to slot 0 of a table that starts with 2 slots and grows; the
    keys are compared exactly, so the scores stay sacrebleu's."""
    hyps, refs = random_pairs(600, seed=5)
    short = [(h, r) for h, r in zip(hyps, refs) if len(h) < 120 and len(r) < 120]  # quadratic probing: keep it small
    hyps, refs = [h for h, _ in short][:250], [r for _, r in short][:250]
    monkeypatch.setattr(sentence_lexical, "TABLE_SLOTS", 2)
    monkeypatch.setattr(sentence_lexical, "NGRAM_MULTIPLIER", 0)
    monkeypatch.setattr(tokenize_kernels, "TOKEN_MULTIPLIER", 0)
    for metric in (CHRF(), CHRF(word_order=2), BLEU(effective_order=True)):
        assert_sacrebleu(metric, hyps, refs)
    ids, per_line, distinct = token_ids_13a(refs, slots=2, multiplier=0)
    assert_exact_ids([Tokenizer13a()(r) for r in refs], ids, per_line, distinct)


def test_long_texts_of_thousands_of_distinct_characters_score_as_sacrebleu():
    """Texts far longer than the tables' first size (1024 slots), of ~3,000 distinct CJK characters and emoji: the
    tables grow while a reference is inserted."""
    rng = random.Random(17)
    alphabet = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)] + ["👍", "👍🏽", " ", "。"]
    refs = ["".join(rng.choice(alphabet) for _ in range(rng.randint(2000, 6000))) for _ in range(3)]
    hyps = [r[: len(r) // 2] + "".join(rng.choice(alphabet) for _ in range(300)) + r[len(r) // 2 :] for r in refs]
    hyps += [refs[0], refs[1][::-1], ""]  # equal, reversed, empty
    refs += [refs[0], refs[1], refs[2]]
    for metric in (CHRF(), CHRF(word_order=2), BLEU(effective_order=True), BLEU(effective_order=True, tokenize="char")):
        got = (chrf_sentences if isinstance(metric, CHRF) else bleu_sentences)(metric, hyps, refs)
        want = [metric.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
        assert max(abs(g - w) for g, w in zip(got, want)) < 1e-9, (metric, got, want)
        assert len(set(want)) >= 4


def test_whitespace_code_points_are_those_str_isspace_finds():
    want = [c for c in range(0x110000) if chr(c).isspace()]
    assert whitespace_code_points().tolist() == want
    assert len(want) == 29 and is_space_table().nonzero()[0].tolist() == want


def test_real_flores_sentences_in_sixteen_languages_score_as_sacrebleu(flores_pairs):
    hyps, refs = flores_pairs
    assert len(hyps) >= 1200
    for metric in (CHRF(), CHRF(word_order=2), BLEU(effective_order=True)):
        assert_sacrebleu(metric, hyps, list(refs))


def test_13a_tokenizer_equals_sacrebleus(flores_pairs):
    hyps, refs = random_pairs(3000, seed=3)
    texts = hyps + refs + flores_pairs[0]
    sacre = Tokenizer13a()
    want = [sacre(t) for t in texts]
    assert [tokenize_13a(t) for t in texts] == want
    ids, per_line, distinct = token_ids_13a(texts)  # compiled: exact ids of the same tokens
    assert_exact_ids(want, ids, per_line, distinct)


def test_chrf_plus_plus_words_equal_sacrebleus(flores_pairs):
    hyps, refs = random_pairs(2000, seed=23)
    texts = hyps + refs + flores_pairs[0] + ["a", ".", "(", "(hi)", "x.", ".x", "..", "!?", "é.", " 'a' "]
    remove = CHRF(word_order=2)._remove_punctuation  # sacrebleu's own
    want = [" ".join(remove(t)) for t in texts]
    ids, per_line, distinct = punct_word_ids(texts)
    assert_exact_ids(want, ids, per_line, distinct)
    assert [remove_punctuation(t) for t in texts] == [remove(t) for t in texts]  # the Python one (pairwise chrF)


def assert_exact_ids(tokenized: list[str], ids, per_line, distinct: int) -> None:
    """``ids``: one id per token of the tokenized lines, equal exactly for equal tokens."""
    assert per_line.tolist() == [len(w.split()) for w in tokenized]
    tokens = [tok for w in tokenized for tok in w.split()]
    assert distinct == len(set(tokens)) == len(set(ids.tolist()))
    first: dict[str, int] = {}
    assert all(first.setdefault(tok, i) == i for tok, i in zip(tokens, ids.tolist()))
