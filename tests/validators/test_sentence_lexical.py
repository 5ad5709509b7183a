"""The batched, compiled sentence chrF / chrF++ / BLEU (`mtgauntlet.validators.sentence_lexical`) against
sacrebleu's own ``sentence_score``, to 1e-9, on thousands of random texts (Latin with the punctuation the
tokenizers split on, CJK, Arabic, emoji sequences, odd whitespace, HTML entities, empty, blank, very long) and on
real FLORES-200 sentences in 16 languages scored against each other; both ways of keying n-grams (packed ids, and
the exact ranks used where packing does not fit) and the 13a tokenizer on its own."""

from __future__ import annotations

import csv
import gzip
import random

import pytest
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from mtgauntlet.validators import sentence_lexical
from mtgauntlet.validators.sentence_lexical import bleu_sentences, chrf_sentences
from mtgauntlet.validators.tokenize_13a import tokenize_13a
from mtgauntlet.validators.tokenize_kernels import token_ids_13a

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


def test_two_thousand_random_pairs_score_as_sacrebleu_with_packed_and_ranked_keys(monkeypatch):
    hyps, refs = random_pairs(2000, seed=11)
    for metric in (CHRF(), BLEU(effective_order=True)):
        assert_sacrebleu(metric, hyps, refs)
    monkeypatch.setattr(sentence_lexical, "PACK_BITS", 0)  # every n-gram of order > 1 keyed by the exact rank
    for metric in (CHRF(word_order=2), BLEU(effective_order=True)):
        assert_sacrebleu(metric, hyps[:500], refs[:500])


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
    assert per_line.tolist() == [len(w.split()) for w in want]
    tokens = [tok for w in want for tok in w.split()]
    assert distinct == len(set(tokens))
    first: dict[str, int] = {}
    assert all(first.setdefault(tok, i) == i for tok, i in zip(tokens, ids.tolist()))
