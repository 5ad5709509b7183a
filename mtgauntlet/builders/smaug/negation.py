"""Rule-based negation and de-negation on a dependency parse (the embedded default for SMAUG `neg`).

English (do-support, auxiliaries, copulas, contractions), French (ne ... pas, elision, clitics) and
Spanish (no + clitics). Each rule works on one verb group: 0+ auxiliaries followed by a verb (the
paper's AUX* VERB span), and returns an Edit or None where it does not apply.
"""

from __future__ import annotations

from mtgauntlet.builders.base import Edit
from mtgauntlet.models.base import Doc, Token

SUPPORTED = ("en", "fr", "es")
EN_CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
NEG_WORDS_FR = {"pas", "jamais", "plus", "point"}
CLITICS_FR = {
    "y",
    "en",
    "le",
    "la",
    "les",
    "lui",
    "leur",
    "me",
    "te",
    "se",
    "nous",
    "vous",
    "l'",
    "m'",
    "t'",
    "s'",
    "l’",
    "m’",
    "t’",
    "s’",
}
CLITICS_ES = {"me", "te", "se", "lo", "la", "le", "los", "las", "les", "nos", "os"}


def verb_groups(doc: Doc) -> list[tuple[int, list[int]]]:
    """(head verb index, auxiliary indices before it) for every AUX* VERB span, plus copular roots."""
    out = []
    for i, t in enumerate(doc.tokens):
        if t.pos == "VERB" or (t.pos == "AUX" and t.dep in ("ROOT", "cop") and t.head == i):
            auxes = [
                j for j, a in enumerate(doc.tokens[:i]) if a.head == i and a.pos == "AUX" and a.dep.startswith("aux")
            ]
            out.append((i, auxes))
    return out


def _edit(doc: Doc, changes: list[tuple[int, int, str]], meta: dict) -> Edit:
    """Apply (start, end, replacement) character changes; span = the covering original/new range."""
    text = doc.text
    changes = sorted(changes)
    start, end = changes[0][0], changes[-1][1]
    new = text
    for s, e, r in reversed(changes):
        new = new[:s] + r + new[e:]
    delta = sum(len(r) - (e - s) for s, e, r in changes)
    return Edit(
        text=new,
        span_original=text[start:end],
        span_replacement=new[start : end + delta],
        start=start,
        end=end,
        meta=meta,
    )


def _delete(tok: Token) -> tuple[int, int, str]:
    return tok.idx, tok.idx + len(tok.text) + len(tok.whitespace), ""


def _cap_like(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def negate_en(doc: Doc, head: int, auxes: list[int]) -> Edit | None:
    toks = doc.tokens
    v = toks[head]
    negs = [j for j, t in enumerate(toks) if t.head == head and t.dep == "neg" and j != head]
    if negs:  # de-negation
        changes = []
        for j in negs:
            n = toks[j]
            low = n.text.lower()
            if low in ("not", "n't", "n’t"):
                prev = toks[j - 1] if j > 0 else None
                if low != "not":  # contraction: restore the full auxiliary, drop only "n't"
                    if prev is not None and prev.text.lower() in EN_CONTRACTED:
                        full = _cap_like(EN_CONTRACTED[prev.text.lower()], prev.text)
                        changes.append((prev.idx, prev.idx + len(prev.text), full))
                    changes.append((n.idx, n.idx + len(n.text), ""))
                elif prev is not None and prev.whitespace == "":  # "cannot" -> "can"
                    changes.append((n.idx, n.idx + len(n.text), ""))
                else:
                    changes.append(_delete(n))
            else:
                return None  # never / no: no safe affirmative counterpart
        return _edit(doc, changes, {"rule": "en-denegate"})
    if auxes:
        a = toks[auxes[0]]
        if a.text.lower() == "can":
            return _edit(doc, [(a.idx, a.idx + len(a.text), _cap_like("cannot", a.text))], {"rule": "en-aux"})
        return _edit(doc, [(a.idx + len(a.text), a.idx + len(a.text), " not")], {"rule": "en-aux"})
    if v.pos == "AUX":  # copula / main-verb be
        return _edit(doc, [(v.idx + len(v.text), v.idx + len(v.text), " not")], {"rule": "en-copula"})
    support = {"VBD": "did", "VBZ": "does", "VBP": "do"}.get(v.tag)
    if support is None or not v.lemma:
        return None
    rep = f"{_cap_like(support, v.text) if head == 0 else support} not {v.lemma}"
    return _edit(doc, [(v.idx, v.idx + len(v.text), rep)], {"rule": "en-do-support"})


def _group_start(doc: Doc, head: int, auxes: list[int], clitics: set[str]) -> int:
    first = auxes[0] if auxes else head
    j = first
    while j - 1 >= 0 and doc.tokens[j - 1].text.lower() in clitics and doc.tokens[j - 1].pos == "PRON":
        j -= 1
    return j


def negate_es(doc: Doc, head: int, auxes: list[int]) -> Edit | None:
    toks = doc.tokens
    start = _group_start(doc, head, auxes, CLITICS_ES)
    if start > 0 and toks[start - 1].text.lower() == "no":
        return _edit(doc, [_delete(toks[start - 1])], {"rule": "es-denegate"})
    t = toks[start]
    if start == 0 and t.text[:1].isupper():
        lowered = t.text if t.pos == "PROPN" else t.text[:1].lower() + t.text[1:]
        return _edit(doc, [(t.idx, t.idx + len(t.text), "No " + lowered)], {"rule": "es-no"})
    return _edit(doc, [(t.idx, t.idx, "no ")], {"rule": "es-no"})


def negate_fr(doc: Doc, head: int, auxes: list[int]) -> Edit | None:
    toks = doc.tokens
    finite = auxes[0] if auxes else head
    after = toks[finite + 1] if finite + 1 < len(toks) else None
    start = _group_start(doc, head, auxes, CLITICS_FR)
    before = toks[start - 1] if start > 0 else None
    if before is not None and before.text.lower() in ("ne", "n'", "n’"):
        changes = [(before.idx, before.idx + len(before.text) + len(before.whitespace), "")]
        for j in range(finite + 1, min(len(toks), head + 3)):
            if toks[j].text.lower() in NEG_WORDS_FR:
                changes.append(_delete(toks[j]))
                break
        return _edit(doc, changes, {"rule": "fr-denegate"})
    if after is not None and after.text.lower() in NEG_WORDS_FR:
        return None
    t = toks[start]
    elide = t.text[:1].lower() in "aeiouyéèêàâîôh"
    ne = "n'" if elide else "ne "
    if start == 0:
        ne = ne.capitalize()
        word = t.text if t.pos == "PROPN" else t.text[:1].lower() + t.text[1:]
        changes = [(t.idx, t.idx + len(t.text), ne + word)]
    else:
        changes = [(t.idx, t.idx, ne)]
    f = toks[finite]
    changes.append((f.idx + len(f.text), f.idx + len(f.text), " pas"))
    return _edit(doc, changes, {"rule": "fr-ne-pas"})


RULES = {"en": negate_en, "es": negate_es, "fr": negate_fr}
