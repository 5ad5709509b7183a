"""Error spans from an LLM judge (``llm-as-qe:<llm spec>#spans=1``): a GEMBA-MQM-like prompt (Kocmi & Federmann
2023: list the translation's errors, each with its category, its severity — critical, major or minor — and the
erroneous text), answered as one JSON object ``{"errors": [{"span", "category", "severity"}, …]}`` (an empty list:
no error), schema-constrained with ``#json=1`` (:data:`ERROR_SPANS`), else read from the answer's text.

Each error's ``span`` is mapped to character offsets in the translation: its first occurrence not yet used by an
earlier error of the item (end exclusive); a span text not in the translation gives no span and is counted
(``span_not_in_target``). The item's score is the negated MQM score of its errors with the weights of the span
import (:func:`mtgauntlet.core.mqm.mqm_weight`: major and critical 5, minor 1, minor fluency/punctuation 0.1,
non-translation 25; 0 = no error), every error counting, found in the translation or not (as the import counts an
error marked in the source).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from mtgauntlet.core.mqm import SEVERITIES, mqm_weight
from mtgauntlet.models.structured import AnswerSchema

GEMBA_MQM = """{src_lang} source:
```{source}```
{tgt_lang} translation:
```{translation}```

Based on the source segment and machine translation surrounded with triple backticks, identify error types in the \
translation and classify them. The categories of errors are: accuracy (addition, mistranslation, omission, \
untranslated text), fluency (character encoding, grammar, inconsistency, punctuation, register, spelling), style \
(awkward), terminology (inappropriate for context, inconsistent use), non-translation, other, or no-error.
Each error is classified as one of three categories: critical, major, and minor. Critical errors inhibit \
comprehension of the text. Major errors disrupt the flow, but what the text is trying to say is still \
understandable. Minor errors are technically errors, but do not disrupt the flow or hinder comprehension.
Answer with one JSON object and nothing else: {{"errors": [{{"span": "<the erroneous text, copied exactly from the \
translation>", "category": "<category/subcategory, e.g. accuracy/mistranslation>", "severity": "<critical, major \
or minor>"}}]}}; an empty list when the translation has no error."""

_ERROR = {
    "type": "object",
    "properties": {
        "span": {"type": "string"},
        "category": {"type": "string"},
        "severity": {"type": "string", "enum": list(SEVERITIES)},
    },
    "required": ["span", "category", "severity"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class MarkedError:
    span: str
    category: str
    severity: str


def _errors(obj: dict) -> list[MarkedError]:
    return [MarkedError(e["span"], e["category"].strip().lower(), e["severity"].strip().lower()) for e in obj["errors"]]


ERROR_SPANS = AnswerSchema("translation_errors", {"errors": {"type": "array", "items": _ERROR}}, _errors)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def parse_errors(answer: str) -> list[MarkedError] | None:
    """The errors of a text answer: the JSON object in it (a Markdown code fence around it allowed, else the text
    from its first ``{`` to its last ``}``) that fits :data:`ERROR_SPANS` (a severity in any case); None when
    there is none."""
    if not isinstance(answer, str):
        return None
    text = _FENCE.sub("", answer.strip())
    for candidate in (text, text[text.find("{") : text.rfind("}") + 1]):
        try:
            obj = json.loads(candidate)
        except ValueError:
            continue
        for e in obj.get("errors", ()) if isinstance(obj, dict) and isinstance(obj.get("errors"), list) else ():
            if isinstance(e, dict) and isinstance(e.get("severity"), str):  # "Major" is major
                e["severity"] = e["severity"].strip().lower()
        return ERROR_SPANS.parse(json.dumps(obj))
    return None


@dataclass
class LocatedErrors:
    """An item's errors mapped onto its translation: the spans found and the count of those not found."""

    score: float
    spans: list[dict[str, Any]] = field(default_factory=list)
    not_found: int = 0


def locate(errors: list[MarkedError], translation: str) -> LocatedErrors:
    """Character spans of ``errors`` in ``translation`` (first occurrence not yet used) and the MQM score."""
    out = LocatedErrors(0.0 - sum(mqm_weight(e.category, e.severity) for e in errors))
    used: set[tuple[int, int]] = set()
    for e in errors:
        if e.category == "no-error":
            continue
        text, start = e.span, -1
        if text:
            start = translation.find(text)
            while start >= 0 and (start, start + len(text)) in used:
                start = translation.find(text, start + 1)
        if start < 0:
            out.not_found += 1
            continue
        used.add((start, start + len(text)))
        out.spans.append({"start": start, "end": start + len(text), "severity": e.severity, "category": e.category})
    out.spans.sort(key=lambda s: (s["start"], s["end"]))
    return out
