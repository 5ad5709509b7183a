"""The LLM sampler's answers: the snippets of an answer (all of them, each with the URL the LLM paired it with),
whether the token limit cut the answer, and the complete snippets a cut answer still holds.

The bandit paper's sampling prompt asks for *all* relevant snippets of a topic, each with its ``source_url``; it
collected 25 texts per topic with about three queries (Appendix D), so an answer holds several texts. The paper
states neither a token limit nor a temperature for the call; it reports an average output of 94 tokens.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mtgauntlet.models.base import answer_tokens

DEFAULT_MAX_TOKENS = 2048  # room for ~20 snippets of 20-40 words with their URLs (the paper gives no limit)
DEFAULT_TEMPERATURE = 0.7  # the toolkit's (the paper gives none)

_OBJECT = re.compile(r"\{[^{}]*\}", re.S)


def json_cut(answer: str) -> bool:
    """Whether a JSON answer stops inside an object, an array or a string (the generation budget ended it)."""
    depth, in_string, escaped, opened = 0, False, False, False
    for ch in answer or "":
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = opened
        elif ch in "{[":
            depth, opened = depth + 1, True
        elif ch in "}]":
            depth -= 1
    return opened and (depth > 0 or in_string)


def answer_truncated(llm: Any, answer: str, budget: int) -> bool:
    """Whether the token limit cut the answer: by token count where the backend has its tokenizer, otherwise when its
    JSON is left open."""
    tokens = answer_tokens(llm, answer)
    return tokens >= budget - 3 if tokens is not None else json_cut(answer)


def complete_snippets(answer: str) -> list[dict[str, Any]]:
    """The snippet objects of an answer cut short that are complete (``{"text": ..., "source_url": ...}``); the
    one the limit cut is never used."""
    start = (answer or "").find("extracted_snippets")
    out = []
    for m in _OBJECT.finditer(answer[start:] if start >= 0 else ""):
        try:
            obj = json.loads(re.sub(r",\s*}", "}", m.group(0)))
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def snippets_of(obj: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The snippet objects with a non-empty text of a parsed answer."""
    listed = (obj or {}).get("extracted_snippets")
    return [s for s in listed if isinstance(s, dict)] if isinstance(listed, list) else []


def as_sample(snippet: dict[str, Any]) -> dict[str, Any]:
    """A drawn snippet as the search takes it: its text (also its id) and the URL the LLM gave (None without one)."""
    url = snippet.get("source_url")
    return {
        "text": snippet["text"],
        "source_id": snippet["text"],
        "url": url.strip() if isinstance(url, str) and url.strip() else None,
        "source_dataset": "llm",
    }


def url_note(records: list[dict[str, Any]]) -> str:
    """The card's word on the sampled texts' provenance: how many records carry the URL the LLM gave."""
    with_url = sum(1 for r in records if r.get("provenance_url"))
    return (
        f"{with_url} of {len(records)} texts carry the source URL the LLM paired with the snippet (provenance_url); "
        "the URLs were not fetched or checked"
    )


def sampler_signature(sampler: Any) -> dict[str, Any]:
    """The LLM sampler's token limit and temperature for the search's signature (a corpus sampler has neither)."""
    if getattr(sampler, "max_tokens", None) is None:
        return {}
    return {"sampler_tokens": sampler.max_tokens, "sampler_temp": sampler.temperature}
