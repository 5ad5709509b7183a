"""What MT-breaker and zero-shot share before scoring: their defaults and card flags, the word count, the
keyed seed sample, and asking the editing LLM for a usable ``SOURCE |||...|||`` text (retried, truncation counted)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mtgauntlet.builders.base import Item
from mtgauntlet.builders.keyed import keyed_rank
from mtgauntlet.corpora.word_count import chinese_rule
from mtgauntlet.corpora.word_count import words as count_words
from mtgauntlet.models import prompts, structured
from mtgauntlet.models.base import answer_tokens

DEFAULT_TEMPERATURE = 0.8  # MT-breaker and zero-shot alike (the paper gives none)
DEFAULT_MAX_TOKENS = 1024  # room for a capable LLM's reasoning before SOURCE |||...|||
LANGUAGE_GUARD_FLAG = (
    "language guard on (not in the paper): proposals not detected as the source language were "
    "rejected and counted in llm_failures"
)
FAILURE_KEYS = ("llm_failures", "truncated", "mt_failures", "qe_failures")


def temperature_flag(temperature: float) -> str:
    return f"sampling temperature {temperature:g} (the paper gives none)"


def word_count_flag(src_lang: str) -> dict[str, str]:
    """The card's note on how a Chinese or Japanese source's words were counted (``{}`` for other languages)."""
    base = (src_lang or "").split("-")[0].lower()
    if base == "zh":
        return {"word_count": f"Chinese words counted by {chinese_rule()} (length target, two-word minimum)"}
    if base == "ja":
        return {
            "word_count": "Japanese words counted as Han/kana characters / 2.3 (no segmenter installed; length "
            "target, two-word minimum)"
        }
    return {}


EMPTY_HINT = (
    "check --llm / --mt / --qe (an LLM that never answers SOURCE |||...|||, a translator or QE that never "
    "returns a result)"
)
_UNTERMINATED = re.compile(r"SOURCE\s*:?\s*\|\|\|(?:(?!\|\|\|).)*$", re.S)


def words(text: str, lang: str | None = None) -> int:
    """Words of a seed or proposal: ``\\w+`` runs, Chinese by jieba, Japanese by characters / 2.3
    (:mod:`mtgauntlet.corpora.word_count`): the prompt's length target and the two-word usability check."""
    return count_words(text, lang)


def item_key(item: Item) -> tuple[str, str]:
    """What an item is (its source id and text): its RNG is keyed by this, never by its position in the input."""
    return str(item.data.get("source_id")), str(item.data.get("src") or "")


def keyed_sample(rows: Sequence[dict[str, Any]], n: int | None, seed: int) -> list[dict[str, Any]]:
    """``n`` rows drawn at random, in input order: those with the smallest keyed hash of (seed, source text).
    The draw is by the text's identity, never its id (WMT24's ids name the language pair, ``en-cs:1``): the same
    English sources are drawn for every target language, as the paper compares them (Table 5, "Seeds"); the
    source id only breaks a tie between identical texts. A row's draw depends only on its own content, so adding,
    removing or editing other rows changes the sample only where such a row enters it or leaves it."""
    if n is None or n >= len(rows):
        return list(rows)
    order = sorted(
        range(len(rows)),
        key=lambda i: (
            keyed_rank(seed, "sample", rows[i].get("src")),
            keyed_rank(seed, "tie", rows[i].get("source_id")),
        ),
    )
    chosen = set(order[:n])
    return [r for i, r in enumerate(rows) if i in chosen]


def usable_source(text: str, src_lang: str, language_guard: bool = False) -> bool:
    """A proposal is usable when it has at least two words, is not the prompt's placeholder, does not repeat
    the prompt's instructions, and (with the guard) is detected as the source language — not a translation
    into the target language."""
    if words(text, src_lang) < 2 or "<SOURCE_TEXT>" in text or prompts.echoes_instructions(text):
        return False
    if language_guard:
        from mtgauntlet.models.langid import is_language

        return is_language(text, src_lang) is not False
    return True


def answer_truncated(llm, answer: str, budget: int) -> bool:
    """Whether the generation budget cut the answer: by token count where the backend has its tokenizer, otherwise
    when the last ``SOURCE |||`` span is never closed."""
    tokens = answer_tokens(llm, answer)
    return tokens >= budget - 3 if tokens is not None else bool(_UNTERMINATED.search(answer or ""))


@dataclass
class SourceRequest:
    """One conversation that needs a usable ``SOURCE |||...|||`` answer: its messages, the item's rng (sampling
    seeds are drawn from it, one per attempt) and the item's failure counters."""

    messages: list[dict]
    rng: Any
    counts: Counter
    answer: str | None = None  # the usable answer as the LLM wrote it (the chat history keeps it)


def ask_for_sources(
    llm,
    requests: Sequence[SourceRequest],
    *,
    budget: int,
    temperature: float,
    retries: int,
    src_lang: str,
    language_guard: bool = False,
) -> list[str | None]:
    """A usable source per request (1 try + ``retries``), ``None`` where none came. Every round sends the pending
    conversations as one list through ``llm.chat_many`` (concurrent for API backends), each with the next seed of
    its own rng, so an item's answers are those it gets when asked alone. Answers cut by the budget are unusable
    (the text may be cut) and counted in the request's ``counts['truncated']``. The usable answer, as written, is
    left in the request's ``answer``."""
    out: list[str | None] = [None] * len(requests)
    pending = list(range(len(requests)))
    for _ in range(retries + 1):
        if not pending:
            break
        seeds = [requests[i].rng.randrange(2**31) for i in pending]
        answers, texts = structured.ask(
            llm,
            [requests[i].messages for i in pending],
            structured.SOURCE,
            lambda a: prompts.parse_tagged(a, "SOURCE"),
            max_tokens=budget,
            temperature=temperature,
            seed=seeds,
        )
        for i, answer, text in zip(pending, answers, texts):
            if answer_truncated(llm, answer, budget):
                requests[i].counts["truncated"] += 1
                continue
            if text and usable_source(text, src_lang, language_guard):
                out[i], requests[i].answer = text, answer
        pending = [i for i in pending if out[i] is None]
    return out
