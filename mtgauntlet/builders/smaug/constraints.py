"""SMAUG validation phase: one small Constraint object per sub-validation (paper section 3).

Each returns (passed, value): value is what the record's ``checks`` map stores. A constraint that
cannot run (no NLI backend) returns (None, None): the record says "not checked", never "passed".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from rapidfuzz.distance import Levenshtein

from mtgauntlet.builders.base import Constraint

MASK_TOKEN = re.compile(r"<extra_id_\d{1,2}>|extra_id")
# generator special tokens: Polyjuice's control codes ([EMPTY] = "could not fill"), mT5 sentinels, BPE markers
SPECIAL_TOKEN = re.compile(
    r"\[(?:EMPTY|BLANK|SEP|ANSWER|MASK|CLS|PAD|UNK|negation)\]|<\|[a-z_]+\|>|"
    r"<extra_id_\d{1,2}>|</?s>|<pad>|<unk>|<mask>|<\|endoftext\|>"
)
BRACKETS = "()[]{}_"
NUMBER = re.compile(r"[-+]?\.?(\d+[.,])*\d+")


class Differs(Constraint):
    name = "differs"

    def check(self, original, edit, context=None):
        ok = edit.text.strip() != original.strip() and bool(edit.text.strip())
        return ok, float(ok)


class NoMaskTokens(Constraint):
    name = "no_mask_tokens"

    def check(self, original, edit, context=None):
        ok = MASK_TOKEN.search(edit.text) is None
        return ok, float(ok)


class NoSpecialTokens(Constraint):
    """The candidate has no more generator special tokens than the original (Polyjuice's ``[EMPTY]``, which
    the paper rejects, ``[BLANK]``, ``[SEP]``, ``<|perturb|>``, mT5 sentinels, ``</s>`` ...)."""

    name = "no_special_tokens"

    def check(self, original, edit, context=None):
        ok = len(SPECIAL_TOKEN.findall(edit.text)) <= len(SPECIAL_TOKEN.findall(original))
        return ok, float(ok)


class NoExtraBrackets(Constraint):
    """The candidate may not have more of ``()[]{}_`` than the original."""

    name = "no_extra_brackets"

    def check(self, original, edit, context=None):
        ok = sum(edit.text.count(c) for c in BRACKETS) <= sum(original.count(c) for c in BRACKETS)
        return ok, float(ok)


class CharEditDistance(Constraint):
    """Character-level Levenshtein distance >= ``minimum`` (paper: 5 for named entities)."""

    name = "char_edit_distance"

    def __init__(self, minimum: int = 5):
        self.minimum = minimum

    def check(self, original, edit, context=None):
        d = Levenshtein.distance(original, edit.text)
        return d >= self.minimum, float(d)


class WordEditDistance(Constraint):
    """Word-level Levenshtein distance >= ``minimum`` (paper: 8 for insertions)."""

    name = "word_edit_distance"

    def __init__(self, minimum: int = 8):
        self.minimum = minimum

    def check(self, original, edit, context=None):
        d = Levenshtein.distance(original.split(), edit.text.split())
        return d >= self.minimum, float(d)


class SameCount(Constraint):
    """The detector finds as many items in the candidate as in the original (entities, numbers)."""

    def __init__(self, name: str, counter: Callable[[str], int]):
        self.name = name
        self.counter = counter

    def check(self, original, edit, context=None):
        a, b = self.counter(original), self.counter(edit.text)
        return a == b, float(a == b)


def count_numbers(text: str) -> int:
    return sum(1 for _ in NUMBER.finditer(text))


class NLIContradiction(Constraint):
    """The candidate contradicts the original: argmax of the NLI backend is 'contradiction' (paper 3.3).

    Without an NLI backend the check is not run and recorded as such (None). Probabilities already computed for
    a whole shard in one batch come in ``context['nli_probs']`` ({(premise, hypothesis): probabilities}).
    """

    name = "nli_contradiction"

    def __init__(self, nli=None):
        self.nli = nli

    def check(self, original, edit, context: Mapping[str, Any] | None = None):
        if self.nli is None:
            return None, None
        probs = (context or {}).get("nli_probs", {}).get((original, edit.text))
        if probs is None:
            probs = self.nli.predict([original], [edit.text])[0]
        label = max(probs, key=probs.get)
        return label == "contradiction", float(probs["contradiction"])


def infill_checks() -> list[Constraint]:
    """The checks, in order, of an edit whose new span a model may have filled (``ne``, ``num``): it differs, and
    holds no mask or special token and no bracket the original lacks."""
    return [Differs(), NoMaskTokens(), NoSpecialTokens(), NoExtraBrackets()]
