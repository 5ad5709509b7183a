"""SMAUG transformation phase: one small class per phenomenon; ``apply`` returns an Edit or None.

Model-backed variants follow the paper (mT5 ``<extra_id_0>`` infilling, top-k 50 sampling, leading
punctuation stripped; Polyjuice for negation). The embedded defaults are model-free alternatives,
named as what they are: entity swap from a corpus pool, format-preserving number change, rule-based
negation on the dependency parse. Insertion and deletion, which work on clauses, are in :mod:`.clause_edits`.
"""

from __future__ import annotations

import random
import re

from mtgauntlet.builders.base import Edit, Transformation
from mtgauntlet.builders.smaug import negation
from mtgauntlet.builders.smaug.constraints import NUMBER
from mtgauntlet.builders.smaug.infill import mask_token
from mtgauntlet.builders.smaug.pools import as_pool, entities_of
from mtgauntlet.models.base import Doc, answer_tokens
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
    tokens = answer_tokens(llm, answer)
    return tokens is not None and tokens >= budget - 2


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
