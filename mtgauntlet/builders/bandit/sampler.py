"""Samplers: draw one text for a topic, without replacement, with provenance.

- ``CorpusSampler``: offline default over a local corpus (FLORES, WMT24, Tatoeba, ...). Texts of 20-40
  words (configurable). When the corpus carries topic labels, a topic's texts are those with its label;
  otherwise texts are retrieved by multilingual-e5 similarity between the topic name and the text. The draw is
  keyed: a topic's candidates are ordered by a hash of (seed, topic, source id, text) and the first unused one is
  taken, so adding, removing or editing other rows changes a draw only where such a row ranks first.
- ``LLMSampler``: the paper's extraction prompt for a search-grounded LLM (JSON snippets with URLs). Only snippets
  of 20-40 words (the paper's samples; ``min_words``/``max_words``) are usable; every usable snippet of an answer is
  kept with its URL and drawn by the topic's later pulls before the LLM is asked again. An answer without a usable
  snippet (unparseable, every snippet outside the length band, or every snippet drawn before) is asked again with
  a new seed, up to ``retries`` times, before the topic counts as exhausted; ``failures`` counts unparseable answers
  (``sampler_failures``), answers cut by the token limit (``sampler_truncated_failures``: their complete snippets
  are still used), answers whose snippets were all outside the band (``sampler_length_failures``), retries and
  calls (``sampler_calls``). The LLM is not grounded in a web search here (an ``openai:`` or local model answers from what it knows):
  ``flags`` says so on the card.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from mtgauntlet.builders.bandit.snippets import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_TEMPERATURE,
    answer_truncated,
    as_sample,
    complete_snippets,
    snippets_of,
)
from mtgauntlet.builders.bandit.topics import Topic
from mtgauntlet.builders.keyed import keyed_rank
from mtgauntlet.corpora.word_count import words as count_words


def n_words(text: str) -> int:
    return len(re.findall(r"\w+", text))


class CorpusSampler:
    flags = {
        "corpus_sampler": "texts were drawn from a local corpus (by topic label or e5 retrieval), not from a "
        "search-grounded LLM (the paper)"
    }

    def __init__(
        self,
        rows: Sequence[dict[str, Any]],
        topics: Sequence[Topic],
        *,
        text_key: str = "src",
        label_key: str | None = None,
        min_words: int = 20,
        max_words: int = 40,
        candidates: int = 5,
        embedder: str | None = None,
        seed: int = 13,
    ):
        self.seed = seed
        self.rows = [r for r in rows if min_words <= n_words(str(r.get(text_key) or "")) <= max_words]
        self.text_key, self.label_key, self.candidates = text_key, label_key, candidates
        self.topics = list(topics)
        self.by_topic: list[list[int]] = []
        if label_key:
            index: dict[str, list[int]] = {}
            for i, r in enumerate(self.rows):
                index.setdefault(str(r.get(label_key)).strip(), []).append(i)
            self.by_topic = [index.get(t.name, []) for t in self.topics]
        else:
            from mtgauntlet.models import registry

            emb = registry.load("embedder", embedder or "e5")
            T = emb.embed([f"query: {t.name}" for t in self.topics])
            X = emb.embed([str(r[text_key]) for r in self.rows])
            sims = T @ X.T
            top = min(200, len(self.rows))
            self.by_topic = [list(np.argsort(-sims[i])[:top]) for i in range(len(self.topics))]

    def sample(self, topic: int, used: set[str], rng: random.Random) -> dict[str, Any] | None:
        pool = [i for i in self.by_topic[topic] if self._id(i) not in used]
        if not pool:
            return None
        if not self.label_key:
            pool = pool[: self.candidates]  # the most similar unused texts
        name = self.topics[topic].name
        i = min(pool, key=lambda j: keyed_rank(self.seed, name, self._id(j), self.rows[j][self.text_key]))
        r = self.rows[i]
        return {
            "text": str(r[self.text_key]),
            "source_id": self._id(i),
            "url": r.get("url") or r.get("URL"),
            "source_dataset": r.get("source_dataset"),
        }

    def sample_many(self, topics: Sequence[int], used: set[str], rng: random.Random) -> list[dict[str, Any] | None]:
        """One text per topic (in order, never one drawn earlier in the list or in ``used``)."""
        return _one_by_one(self, topics, used, rng)

    def _id(self, i: int) -> str:
        return row_source_id(self.rows[i], i)


def row_source_id(row: dict[str, Any], default: Any) -> str:
    """A corpus row's id (``source_id``, else ``id``; ``0`` is an id), ``default`` where it has none."""
    value = row.get("source_id")
    if value is None:
        value = row.get("id")
    return str(default if value is None else value)


def _one_by_one(sampler, topics, used: set[str], rng: random.Random) -> list[dict[str, Any] | None]:
    taken, out = set(used), []
    for t in topics:
        s = sampler.sample(t, taken, rng)
        if s is not None:
            taken.add(s["source_id"])
        out.append(s)
    return out


class LLMSampler:
    """Ask a (search-grounded) LLM for 20-40-word snippets about the topic, with source URLs. Every usable snippet
    of an answer is kept with its URL (the paper asks for all relevant snippets and pairs each text with its URL):
    the first is drawn now, the others wait in the topic's pool, in the answer's order, and are drawn by the topic's
    next pulls before the LLM is asked again. The topics of one bandit step that need an answer are asked as one
    list (``chat_many``: concurrent requests for API backends): every request's seed is drawn first, in order.
    ``state()``/``restore()`` carry the pools across an interrupted search (the pull log keeps them per step)."""

    flags = {
        "no_search_grounding": "texts were sampled from an LLM without web-search grounding (the paper: a "
        "search-grounded LLM with the source URL of each snippet)"
    }

    def __init__(
        self,
        llm,
        language: str = "English",
        retries: int = 2,
        min_words: int = 20,
        max_words: int = 40,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = DEFAULT_TEMPERATURE,
    ):
        self.llm, self.language, self.retries = llm, language, retries
        self.min_words, self.max_words = min_words, max_words
        self.max_tokens, self.temperature = max_tokens, temperature
        self.word_band = f"{min_words}-{max_words}"  # in the search's signature (the LLM's snippets are kept by it)
        # sampler_failures, sampler_length_failures, sampler_truncated_failures, sampler_retries, sampler_calls
        self.failures: Counter = Counter()
        self.pool: dict[str, list[dict[str, Any]]] = {}  # topic name -> usable snippets not drawn yet
        self.flags = {
            **LLMSampler.flags,
            "sampler_settings": f"sampling temperature {temperature:g}, at most {max_tokens} tokens per answer (the "
            "paper gives neither; it reports 94 output tokens on average)",
        }

    def prompt(self, topic_name: str) -> str:
        from mtgauntlet.models.prompts import SAMPLE_TEXT

        return SAMPLE_TEXT.format(topic=topic_name, language=self.language)

    def state(self) -> dict[str, Any]:
        return {"pool": {k: list(v) for k, v in self.pool.items() if v}}

    def restore(self, state: dict[str, Any]) -> None:
        self.pool = {str(k): list(v) for k, v in (state.get("pool") or {}).items()}

    def sample(self, topic: Topic, used: set[str], rng: random.Random) -> dict[str, Any] | None:
        return self.sample_many([topic], used, rng)[0]

    def _draw(self, name: str, taken: set[str]) -> dict[str, Any] | None:
        pool = [s for s in self.pool.get(name, []) if s["text"] not in taken]
        if not pool:
            self.pool.pop(name, None)
            return None
        first, self.pool[name] = pool[0], pool[1:]
        taken.add(first["text"])
        return as_sample(first)

    def _usable(self, answer: str, obj: dict[str, Any] | None, taken: set[str]) -> list[dict[str, Any]]:
        """The answer's snippets of the word band, not drawn before, each once; counts the unusable answers."""
        truncated = answer_truncated(self.llm, answer, self.max_tokens)
        if truncated:
            self.failures["sampler_truncated_failures"] += 1
            found = complete_snippets(answer)  # the complete snippets of a cut answer are still the LLM's
        else:
            found = snippets_of(obj)
            if obj is None:
                self.failures["sampler_failures"] += 1
        texts = [s for s in found if isinstance(s.get("text"), str) and s["text"] and s["text"] not in taken]
        in_band = [s for s in texts if self.min_words <= count_words(s["text"]) <= self.max_words]
        if texts and not in_band:
            self.failures["sampler_length_failures"] += 1
        first: dict[str, dict[str, Any]] = {}
        for s in in_band:  # each text once, in the answer's order
            first.setdefault(s["text"], s)
        return list(first.values())

    def sample_many(self, topics: Sequence[Topic], used: set[str], rng: random.Random) -> list[dict[str, Any] | None]:
        from mtgauntlet.models import structured
        from mtgauntlet.models.prompts import parse_json_object

        taken = set(used)
        out: list[dict[str, Any] | None] = [self._draw(t.name, taken) for t in topics]
        asks = [[{"role": "user", "content": self.prompt(t.name)}] for t in topics]
        pending = [i for i in range(len(topics)) if out[i] is None]
        for attempt in range(self.retries + 1):  # every round: all seeds drawn first, then snippets in order
            if not pending:
                break
            if attempt:
                self.failures["sampler_retries"] += len(pending)
            seeds = [rng.randrange(2**31) for _ in pending]
            answers, objs = structured.ask(
                self.llm,
                [asks[i] for i in pending],
                structured.SNIPPETS,
                parse_json_object,
                max_tokens=self.max_tokens,
                temperature=self.temperature,
                seed=seeds,
            )
            self.failures["sampler_calls"] += len(pending)
            for i, answer, obj in zip(pending, answers, objs):
                name = topics[i].name
                self.pool[name] = self.pool.get(name, []) + self._usable(answer, obj, taken)
                out[i] = self._draw(name, taken)
            pending = [i for i in pending if out[i] is None]
        return out
