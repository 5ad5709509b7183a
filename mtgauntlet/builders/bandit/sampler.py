"""Samplers: draw one text for a topic, without replacement, with provenance.

- ``CorpusSampler``: offline default over a local corpus (FLORES, WMT24, Tatoeba, ...). Texts of 20-40
  words (configurable). When the corpus carries topic labels, a topic's texts are those with its label;
  otherwise texts are retrieved by multilingual-e5 similarity between the topic name and the text. The draw is
  keyed: a topic's candidates are ordered by a hash of (seed, topic, source id, text) and the first unused one is
  taken, so adding, removing or editing other rows changes a draw only where such a row ranks first.
- ``LLMSampler``: the paper's extraction prompt for a search-grounded LLM (JSON snippets with URLs). Only snippets
  of 20-40 words (the paper's samples; ``min_words``/``max_words``) are usable. An answer without a usable snippet
  (unparseable, every snippet outside the length band, or every snippet drawn before) is asked again with a new
  seed, up to ``retries`` times, before the topic counts as exhausted; ``failures`` counts unparseable answers
  (``sampler_failures``), answers whose snippets were all outside the band (``sampler_length_failures``) and
  retries. The LLM is not grounded in a web search here (an ``openai:`` or local model answers from what it knows):
  ``flags`` says so on the card.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

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
    """Ask a (search-grounded) LLM for 20-40-word snippets about the topic, with source URLs. The topics of one
    bandit step are asked as one list (``chat_many``: concurrent requests for API backends): every request's seed
    is drawn first, in order, then a snippet is chosen from each answer in order."""

    max_tokens = 800
    flags = {
        "no_search_grounding": "texts were sampled from an LLM without web-search grounding (the paper: a "
        "search-grounded LLM with the source URL of each snippet)"
    }

    def __init__(self, llm, language: str = "English", retries: int = 2, min_words: int = 20, max_words: int = 40):
        self.llm, self.language, self.retries = llm, language, retries
        self.min_words, self.max_words = min_words, max_words
        self.word_band = f"{min_words}-{max_words}"  # in the search's signature (the LLM's snippets are kept by it)
        self.failures: Counter = Counter()  # sampler_failures, sampler_length_failures, sampler_retries

    def prompt(self, topic_name: str) -> str:
        from mtgauntlet.models.prompts import SAMPLE_TEXT

        return SAMPLE_TEXT.format(topic=topic_name, language=self.language)

    def sample(self, topic: Topic, used: set[str], rng: random.Random) -> dict[str, Any] | None:
        return self.sample_many([topic], used, rng)[0]

    def sample_many(self, topics: Sequence[Topic], used: set[str], rng: random.Random) -> list[dict[str, Any] | None]:
        from mtgauntlet.models import structured
        from mtgauntlet.models.prompts import parse_json_object

        asks = [[{"role": "user", "content": self.prompt(t.name)}] for t in topics]
        taken = set(used)
        out: list[dict[str, Any] | None] = [None] * len(topics)
        pending = list(range(len(topics)))
        for attempt in range(self.retries + 1):  # every round: all seeds drawn first, then snippets in order
            if not pending:
                break
            if attempt:
                self.failures["sampler_retries"] += len(pending)
            seeds = [rng.randrange(2**31) for _ in pending]
            objs = structured.ask(
                self.llm,
                [asks[i] for i in pending],
                structured.SNIPPETS,
                parse_json_object,
                max_tokens=self.max_tokens,
                temperature=0.7,
                seed=seeds,
            )[1]
            for i, obj in zip(pending, objs):
                if obj is None:
                    self.failures["sampler_failures"] += 1
                snippets = [
                    s
                    for s in (obj or {}).get("extracted_snippets", [])
                    if isinstance(s, dict) and isinstance(s.get("text"), str) and s["text"] and s["text"] not in taken
                ]
                in_band = [s for s in snippets if self.min_words <= count_words(s["text"]) <= self.max_words]
                if snippets and not in_band:
                    self.failures["sampler_length_failures"] += 1
                snippets = in_band
                if snippets:
                    s = rng.choice(snippets)
                    taken.add(s["text"])
                    out[i] = {
                        "text": s["text"],
                        "source_id": s["text"],
                        "url": s.get("source_url"),
                        "source_dataset": "llm",
                    }
            pending = [i for i in pending if out[i] is None]
        return out
