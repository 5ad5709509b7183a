"""SMAUG's clause-level transformations: insertion (mT5 infilling at up to three points, or the model-free
coordination of a clause taken from other references) and deletion of a span between delimiters; with the
model-free insertion's conjunctions per language and its pool of single-clause references."""

from __future__ import annotations

import re
from typing import Any

from mtgauntlet.builders.base import Edit, Transformation
from mtgauntlet.builders.smaug.infill import fill_masks, mask_token
from mtgauntlet.builders.smaug.pools import as_pool
from mtgauntlet.builders.smaug.transformations import base_lang, covering_edit
from mtgauntlet.models.base import Doc
from mtgauntlet.models.hf import LEADING_PUNCT

# Model-free insertion: the coordinating conjunction that joins the inserted clause, per target language
# (``{clause}`` marks where the clause goes). A language without one gets no model-free insertion (pass --infiller).
CONJUNCTIONS = {
    "en": ", and {clause}",
    "fr": " et {clause}",
    "es": " y {clause}",
    "pt": " e {clause}",
    "it": " e {clause}",
    "de": ", und {clause}",
    "cs": " a {clause}",
    "zh": "，而且{clause}",
}
ES_E_BEFORE = re.compile(r"h?i(?![aeiouáéíóú])", re.IGNORECASE)  # 'y' -> 'e' before an /i/ sound (e inglés, e hijos)


def coordinate(clause: str, lang: str) -> str | None:
    """The text inserted to coordinate ``clause`` in ``lang`` (``None``: no conjunction known for ``lang``)."""
    lang = base_lang(lang)
    pattern = CONJUNCTIONS.get(lang)
    if pattern is None:
        return None
    if lang == "es" and ES_E_BEFORE.match(clause):
        pattern = " e {clause}"
    return pattern.format(clause=clause)


class Insertion(Transformation):
    """Insert content. With an infiller (paper): masks between ``min(max_masks, gaps)`` uniformly chosen pairs
    of adjacent words, filled together in one mT5 call; a mask the model leaves unfilled stays in the text
    and is rejected by ``no_mask_tokens``. Model-free default: a clause taken from another reference of the
    same language, coordinated before the final punctuation with the target language's conjunction
    (``..., and <clause>.``, ``... y <clause>.``, ``... et <clause>.``: :data:`CONJUNCTIONS`) — inserted content
    that is not in the source, written in the target language."""

    name = "ins"

    def __init__(self, infiller=None, max_masks: int = 3, top_k: int = 50, lang: str = "en"):
        self.infiller, self.max_masks, self.top_k, self.lang = infiller, max_masks, top_k, lang

    def apply(self, text, rng, context=None):
        if self.infiller is None:
            return self._insert_clause(text, rng, context or {})
        gaps = [m.end() for m in re.finditer(r"\S+", text)][:-1]  # right after each word but the last
        if not gaps:
            return None
        points = sorted(rng.sample(gaps, min(len(gaps), self.max_masks)))
        masked = _insert_at(text, points, [" " + mask_token(i) for i in range(len(points))])
        fills = fill_masks(self.infiller, masked, len(points), top_k=self.top_k, seed=rng.randrange(2**31))
        inserts = []
        for i, f in enumerate(fills):
            f = None if f is None else LEADING_PUNCT.sub("", f).strip()
            inserts.append(" " + mask_token(i) if f is None else (" " + f if f else ""))
        new = _insert_at(text, points, inserts)
        return Edit(
            text=new,
            span_original=text[points[0] : points[-1]],
            span_replacement=new[points[0] : points[-1] + len(new) - len(text)],
            start=points[0],
            end=points[-1],
            meta={"method": "infill", "n_masks": len(points)},
        )

    def _insert_clause(self, text, rng, context):
        clause = as_pool(context.get("clause_pool", ())).pick(rng, lambda c: c.lower() not in text.lower())
        if clause is None:
            return None
        body = text.rstrip()
        end = len(body)
        while end > 0 and body[end - 1] in TERMINAL + CLOSERS:
            end -= 1
        ins = coordinate(clause, self.lang)
        if end == 0 or ins is None:
            return None
        new = text[:end] + ins + text[end:]
        return Edit(
            text=new, span_original="", span_replacement=ins, start=end, end=end, meta={"method": "reference-clause"}
        )


def _insert_at(text: str, points: list[int], inserts: list[str]) -> str:
    """Insert ``inserts[i]`` at character offset ``points[i]`` of ``text`` (points ascending)."""
    out, last = [], 0
    for p, ins in zip(points, inserts):
        out += [text[last:p], ins]
        last = p
    return "".join(out) + text[last:]


DELIMITER = re.compile(r"[,.!?]+")
TERMINAL = ".!?…。！？"
CLOSERS = "\"'»”’)]」』"


def delimiter_ends(text: str) -> list[int]:
    """End offsets of the runs of ``,.!?`` (the reference implementation's delimiters), except separators
    inside a number (``1,200``, ``3.5``), which do not end a span."""
    ends = []
    for m in DELIMITER.finditer(text):
        s, e = m.span()
        if 0 < s and e < len(text) and text[s - 1].isdigit() and text[e].isdigit():
            continue
        ends.append(e)
    return ends


def end_with_terminal(text: str) -> str:
    """Make ``text`` end in sentence-final punctuation (before any closing quotes/brackets): a trailing
    ``,;:`` becomes ``.``; a text that ends in a word gets a ``.``."""
    body = text.rstrip(CLOSERS)
    if not body or body[-1] in TERMINAL:
        return text
    body = body[:-1] + "." if body[-1] in ",;:" else body + "."
    return body + text[len(text.rstrip(CLOSERS)) :]


class Deletion(Transformation):
    """Delete one span between punctuation with its closing symbol, as the reference implementation
    (Unbabel/smaug ``delete_span_between_punctuation``): spans between runs of ``,.!?`` of more than 4 and
    fewer than 10 words (``min_words``..``max_words`` inclusive: 5..9), never the first span; the text is
    then made to end in sentence-final punctuation. The recorded span covers the punctuation fix too."""

    name = "del"

    def __init__(self, min_words: int = 5, max_words: int = 9):
        self.min_words, self.max_words = min_words, max_words

    def apply(self, text, rng, context=None):
        bounds = [0] + delimiter_ends(text) + [len(text)]
        spans = [
            (s, e)
            for s, e in zip(bounds[:-1], bounds[1:])
            if s > 0 and self.min_words <= len(text[s:e].split()) <= self.max_words
        ]  # never the first span
        if not spans:
            return None
        s, e = rng.choice(spans)
        new = end_with_terminal((text[:s] + text[e:]).rstrip())
        return covering_edit(text, new, s, e, {"method": "span-delete"})


def keeps_capital(first, lang: str) -> bool:
    """Does the clause-initial token keep its capital inside a sentence (English 'I', German nouns)?"""
    lang = base_lang(lang)
    return (lang == "en" and first.text == "I") or (lang == "de" and first.pos == "NOUN")


def clause_pool(
    docs: list[Doc], min_words: int = 7, max_words: int = 16, lang: str = "en", identities: list | None = None
) -> dict[str, Any]:
    """Single-clause references (one finite verb, no inner punctuation) of ``min_words``..``max_words``
    words, first letter lowered unless it starts with a proper noun (or a word that keeps its capital in
    ``lang``: English 'I', German nouns): content to coordinate, as ``{clause: identity}`` (``identities[i]``,
    e.g. the row's source id, else the clause itself; the first row of a repeated clause wins)."""
    out: dict[str, Any] = {}
    for i, d in enumerate(docs):
        toks = [t for t in d.tokens if t.pos != "SPACE"]
        if not toks or toks[-1].pos != "PUNCT":
            continue
        body = toks[:-1]
        n_verbs = sum(1 for t in body if t.pos in ("VERB", "AUX") and t.dep in ("ROOT",))
        if n_verbs != 1 or any(t.pos == "PUNCT" for t in body) or not (min_words <= len(body) <= max_words):
            continue
        text = d.text[body[0].idx : body[-1].idx + len(body[-1].text)]
        starts_entity = body[0].pos != "DET" and any(e.start == body[0].idx for e in d.entities)  # not "The Bank of"
        if (
            body[0].pos != "PROPN"
            and not starts_entity
            and not (body[0].text.isupper() and len(body[0].text) > 1)
            and not keeps_capital(body[0], lang)
        ):
            text = text[:1].lower() + text[1:]
        out.setdefault(text, text if identities is None or identities[i] is None else identities[i])
    return out
