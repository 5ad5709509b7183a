"""Structured answers (``openai:...#json=1``): the roles that parse an answer send a JSON schema
(``response_format`` of type ``json_schema``), and read the JSON instead of the ``|||...|||`` text.

Each :class:`AnswerSchema` names the answer object (a reasoning field first where the paper's prompt asks for
reasoning before the answer, then the value), validates it (the small subset of JSON Schema used here: object,
required properties, no others, string (with an enum) / number with bounds / array) and extracts what the text parser
would give, so that both paths hand the caller the same value. An answer that does not validate is ``None`` (the
caller retries it and counts it, as an unparseable text answer) and is counted in the backend's usage
(``invalid_json``). Backends without ``#json=1`` get the text prompt and today's text parsers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

JSON_INSTRUCTION = "\nAnswer with one JSON object with the fields {fields} (JSON schema given)."


@dataclass(frozen=True)
class AnswerSchema:
    name: str
    properties: dict[str, dict[str, Any]]
    extract: Callable[[dict], Any]

    def json_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": self.properties,
            "required": list(self.properties),
            "additionalProperties": False,
        }

    def response_format(self) -> dict[str, Any]:
        return {"type": "json_schema", "json_schema": {"name": self.name, "strict": True, "schema": self.json_schema()}}

    def instruction(self) -> str:
        return JSON_INSTRUCTION.format(fields=", ".join(f'"{k}"' for k in self.properties))

    def validate(self, answer: str) -> dict | None:
        """The answer object when ``answer`` is JSON that fits the schema, else None."""
        try:
            obj = json.loads(answer)
        except (TypeError, ValueError):
            return None
        if not isinstance(obj, dict) or set(obj) != set(self.properties):
            return None
        return obj if all(_fits(obj[k], p) for k, p in self.properties.items()) else None

    def parse(self, answer: str) -> Any:
        obj = self.validate(answer)
        return None if obj is None else self.extract(obj)


def _fits(value: Any, prop: dict[str, Any]) -> bool:
    kind = prop.get("type")
    if kind == "string":
        return isinstance(value, str) and value in prop.get("enum", [value])
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            return False
        return prop.get("minimum", value) <= value <= prop.get("maximum", value)
    if kind == "array":
        return isinstance(value, list) and all(_fits(v, prop.get("items", {})) for v in value)
    if kind == "object":
        props = prop.get("properties")
        return isinstance(value, dict) and (
            props is None or (set(value) == set(props) and all(_fits(value[k], p) for k, p in props.items()))
        )
    return False


def _text(value: str) -> str | None:
    value = value.strip()
    return value or None


def _proficiency(obj: dict) -> tuple[float, str]:
    from mtgauntlet.models.prompts import CEFR_BANDS, cefr_level

    level = obj["level"].strip().upper()[:2]
    return float(obj["score"]), level if level in {b[0] for b in CEFR_BANDS} else cefr_level(float(obj["score"]))


def _source_analysis(obj: dict) -> dict | None:
    from mtgauntlet.models.prompts import source_analysis_values

    return source_analysis_values(obj)


_STR, _STRS = {"type": "string"}, {"type": "array", "items": {"type": "string"}}
QE = AnswerSchema(
    "translation_quality",
    {"errors": _STR, "score": {"type": "number", "minimum": 0, "maximum": 100}},
    lambda o: float(o["score"]),
)
DIFFICULTY = AnswerSchema(
    "translation_difficulty",
    {"reasoning": _STR, "score": {"type": "number", "minimum": 0, "maximum": 120}, "level": _STR},
    _proficiency,
)
SOURCE = AnswerSchema("source_text", {"reasoning": _STR, "source": _STR}, lambda o: _text(o["source"]))
ERROR_MODES = AnswerSchema(
    "error_modes", {"error_modes": _STRS}, lambda o: [m.strip().lower() for m in o["error_modes"] if m.strip()]
)
_SCORE = {"type": "number", "minimum": 0, "maximum": 100}
SOURCE_ANALYSIS = AnswerSchema(
    "source_analysis",
    {
        "grammaticality": _SCORE,
        "naturalness": _SCORE,
        "word_rarity": _SCORE,
        "syntax_complexity": _SCORE,
        "topics": _STRS,
    },
    _source_analysis,
)
SNIPPETS = AnswerSchema(
    "extracted_snippets",
    {
        "extracted_snippets": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"text": _STR, "source_url": _STR},
                "required": ["text", "source_url"],
                "additionalProperties": False,
            },
        }
    },
    lambda o: o,
)


def is_structured(llm) -> bool:
    """Whether ``llm`` asks for schema-constrained JSON answers (``openai:...#json=1``)."""
    return bool(getattr(llm, "structured", False))


def conversations(llm, convs: Sequence[Sequence[dict]], schema: AnswerSchema) -> list[list[dict]]:
    """The conversations as sent: with ``#json=1`` the last user message gets the JSON instruction."""
    if not is_structured(llm):
        return [list(c) for c in convs]
    out = []
    for conv in convs:
        conv = [dict(m) for m in conv]
        conv[-1]["content"] = conv[-1]["content"] + schema.instruction()
        out.append(conv)
    return out


def ask(
    llm, convs: Sequence[Sequence[dict]], schema: AnswerSchema, text_parse: Callable[[str], Any], **kw
) -> tuple[list[str], list[Any]]:
    """(raw answers, parsed values) of ``convs``: schema-constrained JSON with ``#json=1``, else text parsed by
    ``text_parse``; a value is None where the answer is unusable."""
    if is_structured(llm):
        answers = llm.chat_many(conversations(llm, convs, schema), schema=schema, **kw)
        return answers, [schema.parse(a) for a in answers]
    answers = llm.chat_many(convs, **kw)
    return answers, [text_parse(a) for a in answers]
