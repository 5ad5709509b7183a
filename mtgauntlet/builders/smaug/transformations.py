"""SMAUG transformation phase: one small class per phenomenon; ``apply`` returns an Edit or None.

Model-backed variants follow the paper (mT5 ``<extra_id_0>`` infilling, top-k 50 sampling, leading
punctuation stripped; Polyjuice for negation). The embedded defaults are model-free alternatives,
named as what they are: entity swap from a corpus pool, format-preserving number change, rule-based
negation on the dependency parse, insertion of phrases taken from other references.
"""

from __future__ import annotations

import random
import re
from typing import Any, Mapping

from mtgauntlet.builders.base import Edit, Transformation
from mtgauntlet.builders.smaug import negation
from mtgauntlet.builders.smaug.constraints import NUMBER
from mtgauntlet.models.base import Doc
from mtgauntlet.models.hf import LEADING_PUNCT

MASK = "<extra_id_0>"


def _replace(text: str, start: int, end: int, new: str, meta: dict) -> Edit:
    return Edit(text=text[:start] + new + text[end:], span_original=text[start:end], span_replacement=new,
                start=start, end=end, meta=meta)


class NamedEntitySwap(Transformation):
    """Replace one uniformly chosen entity: infiller when given, else an entity of the same label from the corpus."""

    name = "ne"

    def __init__(self, infiller=None, top_k: int = 50):
        self.infiller, self.top_k = infiller, top_k

    def apply(self, text, rng, context=None):
        doc: Doc = context["doc"]
        entities = named_entities(doc)
        if not entities:
            return None
        ent = rng.choice(entities)
        if self.infiller is not None:
            masked = text[:ent.start] + MASK + text[ent.end:]
            fill = self.infiller.fill([masked], n=1, top_k=self.top_k, seed=rng.randrange(2**31))[0]
            fill = LEADING_PUNCT.sub("", fill[0]).strip() if fill else ""
            if not fill:
                return None
            return _replace(text, ent.start, ent.end, fill, {"method": "infill", "label": ent.label})
        pool = [e for e in context["entity_pool"].get(ent.label, ()) if e.lower() != ent.text.lower()
                and e.lower() not in text.lower()]
        if not pool:
            return None
        new = rng.choice(sorted(pool))
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
    return number[:i] + rng.choice(choices) + number[i + 1:]


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
            masked = text[:m.start()] + MASK + text[m.end():]
            fill = self.infiller.fill([masked], n=1, top_k=self.top_k, seed=rng.randrange(2**31))[0]
            new = fill[0] if fill else ""
            if not new:
                return None
            return _replace(text, m.start(), m.end(), new, {"method": "infill"})
        return _replace(text, m.start(), m.end(), change_number(m.group(0), rng), {"method": "digit-change"})


class Negation(Transformation):
    """Negate or de-negate one AUX* VERB span: Polyjuice when given, else rules on the parse."""

    name = "neg"

    def __init__(self, lang: str, polyjuice=None):
        self.lang, self.polyjuice = lang.split("-")[0], polyjuice

    def apply(self, text, rng, context=None):
        doc: Doc = context["doc"]
        groups = negation.verb_groups(doc)
        rng.shuffle(groups)
        for head, auxes in groups:
            if self.polyjuice is not None:
                edit = polyjuice_negate(self.polyjuice, doc, head, auxes, rng)
            else:
                rule = negation.RULES.get(self.lang)
                edit = rule(doc, head, auxes) if rule else None
            if edit is not None:
                return edit
        return None


def polyjuice_negate(llm, doc: Doc, head: int, auxes: list[int], rng) -> Edit | None:
    """Polyjuice's control-code format: '<orig> <|perturb|> [negation] <masked> [SEP]' -> 'fill [ANSWER]'."""
    toks = doc.tokens
    first = auxes[0] if auxes else head
    start, end = toks[first].idx, toks[head].idx + len(toks[head].text)
    masked = doc.text[:start] + "[BLANK]" + doc.text[end:]
    prompt = f"{doc.text} <|perturb|> [negation] {masked} [SEP]"
    answer = llm.complete(prompt, max_tokens=12, temperature=0.0)
    fill = answer.split("[ANSWER]")[0].strip()
    if not fill or "[BLANK]" in fill or "<|" in fill:
        return None
    return _replace(doc.text, start, end, fill, {"method": "polyjuice"})


class Insertion(Transformation):
    """Insert content: up to ``max_masks`` infilled spans between adjacent words (paper) when an infiller is
    given; model-free default: a clause taken from another reference of the same language, coordinated
    before the final punctuation (``..., and <clause>.``) — inserted content that is not in the source."""

    name = "ins"

    def __init__(self, infiller=None, max_masks: int = 3, top_k: int = 50):
        self.infiller, self.max_masks, self.top_k = infiller, max_masks, top_k

    def apply(self, text, rng, context=None):
        if self.infiller is None:
            return self._insert_clause(text, rng, context or {})
        gaps = [m.start() for m in re.finditer(r"(?<=\w) (?=\w)", text)]
        if not gaps:
            return None
        points = sorted(rng.sample(gaps, min(len(gaps), rng.randint(1, self.max_masks))))
        fills = []
        for p in points:
            f = self.infiller.fill([text[:p] + " " + MASK + text[p:]], n=1, top_k=self.top_k,
                                   seed=rng.randrange(2**31))[0]
            fills.append(LEADING_PUNCT.sub("", f[0]).strip() if f else "")
        if not all(fills):
            return None
        new, offset = text, 0
        for p, f in zip(points, fills):
            ins = " " + f
            new = new[:p + offset] + ins + new[p + offset:]
            offset += len(ins)
        return Edit(text=new, span_original="", span_replacement=" | ".join(fills), start=points[0], end=points[0],
                    meta={"method": "infill", "n_spans": len(points)})

    def _insert_clause(self, text, rng, context):
        pool = [c for c in context.get("clause_pool", ()) if c.lower() not in text.lower()]
        if not pool:
            return None
        clause = rng.choice(sorted(pool))
        body = text.rstrip()
        end = len(body)
        while end > 0 and body[end - 1] in ".!?…\"'»”)":
            end -= 1
        if end == 0:
            return None
        ins = ", and " + clause
        new = text[:end] + ins + text[end:]
        return Edit(text=new, span_original="", span_replacement=ins, start=end, end=end,
                    meta={"method": "reference-clause"})


class Deletion(Transformation):
    """Delete one span between punctuation (not the first), with its closing symbol; fix the final mark."""

    name = "del"

    def __init__(self, min_words: int = 2, max_words: int = 12):
        self.min_words, self.max_words = min_words, max_words

    def apply(self, text, rng, context=None):
        marks = [m.end() for m in re.finditer(r"[.,?!;](?=\s|$)", text)]
        bounds = [0] + marks + ([len(text)] if marks and text[marks[-1]:].strip() else [])
        segments = list(zip(bounds[:-1], bounds[1:]))[1:]  # never the first span
        spans = [(s, e) for s, e in segments if self.min_words <= len(text[s:e].split()) <= self.max_words]
        if not spans:
            return None
        s, e = rng.choice(spans)
        new = (text[:s] + text[e:]).rstrip()
        if new and new[-1] not in ".!?":
            new = (new[:-1] if new[-1] in ",;:" else new) + "."
        return Edit(text=new, span_original=text[s:e], span_replacement="", start=s, end=e, meta={"method": "span-delete"})


NAMED_LABELS = {"PERSON", "PER", "ORG", "GPE", "LOC", "NORP", "FAC", "EVENT", "WORK_OF_ART", "PRODUCT", "LANGUAGE",
                "MISC", "LAW"}


def named_entities(doc: Doc):
    """Entities that name things (numeric/temporal labels are left to the `num` phenomenon)."""
    return [e for e in doc.entities if e.label in NAMED_LABELS]


def entity_pool(docs: list[Doc]) -> dict[str, set[str]]:
    pool: dict[str, set[str]] = {}
    for d in docs:
        for e in named_entities(d):
            if 1 <= len(e.text.split()) <= 4 and e.text[:1].isalnum() and not e.text.endswith(("'s", "’s")):
                pool.setdefault(e.label, set()).add(e.text)
    return pool


def clause_pool(docs: list[Doc], min_words: int = 7, max_words: int = 16) -> set[str]:
    """Single-clause references (one finite verb, no inner punctuation) of ``min_words``..``max_words``
    words, first letter lowered unless it starts with a proper noun: content to coordinate."""
    out: set[str] = set()
    for d in docs:
        toks = [t for t in d.tokens if t.pos != "SPACE"]
        if not toks or toks[-1].pos != "PUNCT":
            continue
        body = toks[:-1]
        n_verbs = sum(1 for t in body if t.pos in ("VERB", "AUX") and t.dep in ("ROOT",))
        if n_verbs != 1 or any(t.pos == "PUNCT" for t in body) or not (min_words <= len(body) <= max_words):
            continue
        text = d.text[body[0].idx:body[-1].idx + len(body[-1].text)]
        starts_entity = any(e.start == body[0].idx for e in d.entities)
        if body[0].pos != "PROPN" and not starts_entity and not (body[0].text.isupper() and len(body[0].text) > 1):
            text = text[:1].lower() + text[1:]
        out.add(text)
    return out


TRANSFORMATIONS: Mapping[str, Any] = {"ne": NamedEntitySwap, "num": NumberChange, "neg": Negation, "ins": Insertion,
                                      "del": Deletion}
