"""SMAUG transformation phase: one small class per phenomenon; ``apply`` returns an Edit or None.

Model-backed variants follow the paper (mT5 ``<extra_id_0>`` infilling, top-k 50 sampling, leading
punctuation stripped; Polyjuice for negation). The embedded defaults are model-free alternatives,
named as what they are: entity swap from a corpus pool, format-preserving number change, rule-based
negation on the dependency parse, insertion of phrases taken from other references.
"""

from __future__ import annotations

import random
import re
from typing import Any

from mtgauntlet.builders.base import Edit, Transformation
from mtgauntlet.builders.smaug import negation
from mtgauntlet.builders.smaug.constraints import NUMBER
from mtgauntlet.builders.smaug.infill import fill_masks, mask_token
from mtgauntlet.builders.smaug.pools import as_pool, entities_of
from mtgauntlet.models.base import Doc
from mtgauntlet.models.hf import LEADING_PUNCT

MASK = mask_token(0)


def base_lang(lang: str) -> str:
    """The language subtag of a BCP-47 tag, lower-cased: ``pt-BR`` -> ``pt``."""
    return lang.replace("_", "-").split("-")[0].lower()


def _replace(text: str, start: int, end: int, new: str, meta: dict) -> Edit:
    return Edit(
        text=text[:start] + new + text[end:],
        span_original=text[start:end],
        span_replacement=new,
        start=start,
        end=end,
        meta=meta,
    )


def covering_edit(text: str, new: str, start: int, end: int, meta: dict) -> Edit:
    """The edit from ``text`` to ``new`` whose span covers [start, end) and every other changed character, so
    that ``text[:span_start] + span_replacement + text[span_end:] == new`` holds."""
    limit = min(len(text), len(new))
    p = 0
    while p < min(limit, start) and text[p] == new[p]:  # the prefix kept: never past the nominal start
        p += 1
    q = 0
    while q < limit - p and text[len(text) - 1 - q] == new[len(new) - 1 - q]:
        q += 1
    s, e = p, max(end, len(text) - q)
    return Edit(
        text=new,
        span_original=text[s:e],
        span_replacement=new[s : len(new) - (len(text) - e)],
        start=s,
        end=e,
        meta=meta,
    )


class NamedEntitySwap(Transformation):
    """Replace one entity chosen uniformly among the entities of ``types`` (:func:`entities_of`; the paper: all):
    infiller when given, else an entity of the same label from the corpus (drawn from the pool's hash ring,
    :mod:`pools`: edits of other rows rarely move the choice)."""

    name = "ne"

    def __init__(self, infiller=None, top_k: int = 50, types: str = "all"):
        self.infiller, self.top_k, self.types = infiller, top_k, types

    def apply(self, text, rng, context=None):
        doc: Doc = context["doc"]
        entities = entities_of(doc, self.types)
        if not entities:
            return None
        ent = rng.choice(entities)
        if self.infiller is not None:
            masked = text[: ent.start] + MASK + text[ent.end :]
            fill = self.infiller.fill([masked], n=1, top_k=self.top_k, seed=rng.randrange(2**31))[0]
            fill = LEADING_PUNCT.sub("", fill[0]).strip() if fill else ""
            if not fill:
                return None
            return _replace(text, ent.start, ent.end, fill, {"method": "infill", "label": ent.label})
        pool = as_pool(context["entity_pool"].get(ent.label, ()))
        new = pool.pick(rng, lambda e: e.lower() != ent.text.lower() and e.lower() not in text.lower())
        if new is None:
            return None
        if ent.start == 0:
            new = new[:1].upper() + new[1:]
        return _replace(text, ent.start, ent.end, new, {"method": "corpus-swap", "label": ent.label})


def change_number(number: str, rng: random.Random) -> str:
    """Change one digit, keeping the format (digit count, separators, sign); the first digit stays non-zero."""
    positions = [i for i, ch in enumerate(number) if ch.isdigit()]
    i = positions[0] if len(positions) == 1 or rng.random() < 0.6 else rng.choice(positions)
    old = number[i]
    first = i == positions[0] and len(positions) > 1
    choices = [d for d in "0123456789" if d != old and not (first and d == "0")]
    return number[:i] + rng.choice(choices) + number[i + 1 :]


NUMBER_PREFIX = re.compile(r"[-+]?\.?")  # the sign and leading decimal point of NUMBER ("-3", "+2", ".5", "-.5")


def keep_number_prefix(replaced: str, fill: str) -> str:
    """The infilled number in the format of the number it replaces: the replaced span's sign and leading decimal
    point are kept ("-3" filled "7" -> "-7", ".5" filled "25" -> ".25"; the infiller strips leading punctuation).
    A fill that does not start with a number is left as it came (the constraints judge it)."""
    prefix = NUMBER_PREFIX.match(replaced).group(0)  # type: ignore[union-attr]  # the pattern matches ""
    rest = fill[NUMBER_PREFIX.match(fill).end() :]  # type: ignore[union-attr]
    if not prefix or not rest[:1].isdigit():
        return fill
    return prefix + rest


class NumberChange(Transformation):
    name = "num"

    def __init__(self, infiller=None, top_k: int = 50):
        self.infiller, self.top_k = infiller, top_k

    def apply(self, text, rng, context=None):
        matches = list(NUMBER.finditer(text))
        if not matches:
            return None
        m = rng.choice(matches)
        if self.infiller is not None:
            masked = text[: m.start()] + MASK + text[m.end() :]
            fill = self.infiller.fill([masked], n=1, top_k=self.top_k, seed=rng.randrange(2**31))[0]
            new = keep_number_prefix(m.group(0), fill[0]) if fill else ""
            if not new:
                return None
            return _replace(text, m.start(), m.end(), new, {"method": "infill"})
        return _replace(text, m.start(), m.end(), change_number(m.group(0), rng), {"method": "digit-change"})


class Negation(Transformation):
    """Negate or de-negate one verb: Polyjuice on one uniformly sampled span of :func:`polyjuice_spans` (the paper's
    AUX* VERB spans) when given, else rules on the parse (verb groups by dependency, :mod:`negation`)."""

    name = "neg"

    def __init__(self, lang: str, polyjuice=None):
        self.lang, self.polyjuice = base_lang(lang), polyjuice

    def apply(self, text, rng, context=None):
        doc: Doc = context["doc"]
        if self.polyjuice is not None:
            spans = polyjuice_spans(doc)
            return polyjuice_negate(self.polyjuice, doc, *rng.choice(spans)) if spans else None
        groups = negation.verb_groups(doc)
        rng.shuffle(groups)
        rule = negation.RULES.get(self.lang)
        for head, auxes in groups:
            edit = rule(doc, head, auxes) if rule else None
            if edit is not None:
                return edit
        return None


def polyjuice_prompt(text: str, masked: str) -> str:
    """Polyjuice's control-code prompt for a negation of the [BLANK] in ``masked``."""
    return f"{text} <|perturb|> [negation] {masked} [SEP]"


def polyjuice_spans(doc: Doc) -> list[tuple[int, int]]:
    """The spans Polyjuice may negate, as (first, last) token indices, in the reference implementation's order
    (Unbabel/smaug ``_add_negation_prompt``): for every VERB, the run of AUX tokens immediately before it with the
    verb (the paper: "0 or more AUX tags immediately followed by a VERB tag"), when there is one, and the bare
    verb. Only the part-of-speech sequence counts: "has really seen" offers "seen" alone."""
    toks = doc.tokens
    spans = []
    for i, t in enumerate(toks):
        if t.pos != "VERB":
            continue
        first = i
        while first > 0 and toks[first - 1].pos == "AUX":
            first -= 1
        if first < i:
            spans.append((first, i))
        spans.append((i, i))
    return spans


class UnusableAnswer(Exception):
    """A model answer a transformation cannot use (counted as ``<phenomenon>:<reason>``, never fatal)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


POLYJUICE_MAX_TOKENS = 128  # generous: an answer is the fill of one verb span and "[ANSWER]" (the reference's
# limit is 1024 tokens of prompt and answer); an answer cut by it has no [ANSWER] and is counted (polyjuice_cut)
ANSWER = "[ANSWER]"


def used_budget(llm, answer: str, budget: int) -> bool:
    """Did the answer take the whole generation budget (by the backend's own tokenizer; ``False`` without one)?"""
    tokenizer = getattr(llm, "tokenizer", None)
    if tokenizer is None:
        return False
    try:
        return len(tokenizer(answer, add_special_tokens=False)["input_ids"]) >= budget - 2
    except Exception:  # noqa: BLE001 - a tokenizer that cannot re-encode: not known to be cut
        return False


def polyjuice_negate(llm, doc: Doc, first: int, last: int) -> Edit:
    """Polyjuice's control-code format: '<orig> <|perturb|> [negation] <masked> [SEP]' -> 'fill [ANSWER]', the
    tokens ``first..last`` masked as [BLANK].

    An answer without ``[ANSWER]`` does not parse: :class:`UnusableAnswer` (``polyjuice_cut`` where it took the
    whole budget, else ``polyjuice_unparsed``), as is an empty fill (``polyjuice_empty``). The fill goes into the
    text as it came: Polyjuice's ``[EMPTY]`` (it could not fill the blank) and any other special token are
    rejected by the ``no_special_tokens`` constraint, and counted."""
    toks = doc.tokens
    start, end = toks[first].idx, toks[last].idx + len(toks[last].text)
    masked = doc.text[:start] + "[BLANK]" + doc.text[end:]
    answer = llm.complete(polyjuice_prompt(doc.text, masked), max_tokens=POLYJUICE_MAX_TOKENS, temperature=0.0)
    if ANSWER not in answer:
        raise UnusableAnswer(
            "polyjuice_cut" if used_budget(llm, answer, POLYJUICE_MAX_TOKENS) else "polyjuice_unparsed"
        )
    fill = answer.split(ANSWER)[0].strip()
    if not fill:
        raise UnusableAnswer("polyjuice_empty")
    return _replace(doc.text, start, end, fill, {"method": "polyjuice"})


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
