"""Difficulty-selected subsets (Sentinel paper, eq. 1): score a corpus, keep the B hardest texts.

Optionally stratified by domain or by embedding clusters (section 6.2) to keep diversity: the budget
is split across strata in proportion to their size (largest remainder), and each stratum keeps its
hardest texts. With ``engine="ray"`` the corpus is scored on a Ray cluster before the shards run
(scores kept in ``work_dir``); the selection over the scored corpus is the same exact top-B.

Several target languages (``tgt_lang=["cs", "de"]``): a text's score is the mean of its scores for each target
language, as section 6.1 scores a text for the artificial crowd ("averaged over MT models and target languages"; the
crowd itself averages its MT models); a text that any language could not score has no score (rejected and counted).
The records are then for no single pair (``tgt_lang`` null); build.json's config lists the languages.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mtgauntlet.builders.base import Builder, Item, ItemResult
from mtgauntlet.builders.inputs import read_corpus
from mtgauntlet.builders.options.subset import SubsetOptions
from mtgauntlet.corpora.load import one_pair
from mtgauntlet.corpora.options import comma_list, lang_pair
from mtgauntlet.corpora.readers import RowSet
from mtgauntlet.engines import get_engine
from mtgauntlet.engines.scoring import ScoreTask
from mtgauntlet.errors import UsageError
from mtgauntlet.models import registry
from mtgauntlet.models.estimate import Plan
from mtgauntlet.models.registry import public_spec
from mtgauntlet.models.runtime import strip_runtime_options
from mtgauntlet.validators.checks import _words as word_count  # the count text.empty_rate uses

LENGTH_FLAG = (
    "the length estimator counts words (\\w+ runs; CJK: characters); the Sentinel paper counts spaCy "
    "tokens (punctuation included)"
)
NO_WORDS = "no words"  # a text without a word (only emoji, symbols or punctuation) cannot be a hard text to translate


class SubsetBuilder(Builder):
    name = "subset"
    version = "2"  # 2: texts without a word (emoji only, punctuation) are skipped ("no words"), never selected
    # (several target languages: the mean over them; one language keeps version 2's records and signature)
    kind = "selected_text"
    batched = True  # a shard is scored as one batch
    finalizing = True  # the B hardest texts need every score first

    def __init__(
        self,
        options: SubsetOptions,
        *,
        n_clusters: int = 8,
        embedder: str | None = None,
        work_dir: str | Path | None = None,
        shard_size: int = 10_000,
    ):
        """The build of ``options`` (its ``tgt_lang`` one language or several). ``work_dir``: where a distributed
        engine keeps its score shards (default ``OUT/scores``); ``shard_size``: texts per score shard there."""
        o = options
        tgt_lang = o.tgt_lang
        self.tgt_langs: list[str | None] = (
            [tgt_lang] if tgt_lang is None or isinstance(tgt_lang, str) else list(tgt_lang)
        ) or [None]
        if len(set(self.tgt_langs)) != len(self.tgt_langs):
            raise ValueError("tgt_lang: give each target language once")
        if work_dir is None and o.out is not None:
            work_dir = Path(o.out) / "scores"
        if o.engine != "local" and work_dir is None:
            raise ValueError(f"engine {o.engine!r} needs a work_dir for its score shards")
        self.estimator_spec, self.budget, self.stratify = o.estimator, o.budget, o.stratify
        self.src_lang = o.src_lang
        self.tgt_lang = self.tgt_langs[0] if len(self.tgt_langs) == 1 else None  # the records' pair, if one
        self.n_clusters, self.embedder_spec = n_clusters, embedder
        self.engine_name, self.work_dir, self.shard_size = o.engine, work_dir, shard_size
        self.engine = get_engine(o.engine, **({"actors": o.actors} if o.engine == "ray" else {}))
        self._estimator = None
        self._placement: dict[str, Any] | None = None
        self._scores: dict[int, float | None] | None = None

    @classmethod
    def read(cls, options: SubsetOptions) -> tuple[SubsetOptions, RowSet]:
        """The corpus, and the options' languages normalised: the source language the options' or the rows', the
        target languages those given (repeated or comma-separated; none: the rows', if one). With several, no
        row's target language goes into its record (the subset is for no single pair)."""
        o = options
        given = [o.tgt_lang] if o.tgt_lang is None or isinstance(o.tgt_lang, str) else list(o.tgt_lang)
        targets: list[str | None] = [t for g in given for t in comma_list(g)] or [None]
        if len(set(targets)) != len(targets):
            raise UsageError(f"--tgt-lang: {', '.join(map(str, targets))} names a language twice")
        src_lang, tgt_lang = lang_pair(o.src_lang, targets[0])
        targets = [tgt_lang, *(lang_pair(None, t)[1] for t in targets[1:])]
        rows = read_corpus(
            dataclasses.replace(o, src_lang=src_lang),
            o.input,
            text=o.src_col,
            limit=o.limit,
            columns={"domain": o.domain_col} if o.domain_col else None,
            tgt_lang=tgt_lang,
        )
        src_lang, targets[0] = one_pair(rows, src_lang, tgt_lang)
        if len(targets) > 1:
            for row in rows.rows:
                row.pop("tgt_lang", None)
        targets_given: Any = targets if len(targets) > 1 else targets[0]  # one: None where the rows name none
        return dataclasses.replace(o, src_lang=src_lang, tgt_lang=targets_given), rows

    def load_backends(self) -> None:
        _ = self.estimator  # a bad spec fails before anything is written

    @property
    def estimator(self):
        if self._estimator is None:
            self._estimator = registry.load("difficulty", self.estimator_spec)
        return self._estimator

    def _task(self, tgt_lang: str | None = None) -> ScoreTask:
        return ScoreTask(
            "difficulty", self.estimator_spec, self.src_lang, tgt_lang or self.tgt_langs[0], self.shard_size
        )

    def placement(self) -> dict[str, Any]:
        """Device, dtype and batch of a torch estimator as the engine resolves them (``{}`` otherwise)."""
        if self._placement is None:
            self._placement = self.engine.placement(self._task())
        return self._placement

    def signature_fields(self) -> dict[str, Any]:
        tgt = self.tgt_langs if len(self.tgt_langs) > 1 else self.tgt_lang
        fields = {
            "src": self.src_lang,
            "tgt": tgt,
            "estimator": self.public_estimator,
            "budget": self.budget,
            "stratify": self.stratify or "none",
        }
        if self.placement():  # bf16/fp16 change the scores; device and batch size do not (beyond float noise)
            fields["dtype"] = self.placement()["dtype"]
        return fields

    @property
    def public_estimator(self) -> str:
        """The estimator as the signature, the records and build.json name it: without placement (device, dtype,
        batch), price, pace or secret options, and without URL user info."""
        return public_spec(strip_runtime_options(self.estimator_spec))

    def config(self) -> dict[str, Any]:
        return {
            "estimator": self.public_estimator,
            "budget": self.budget,
            "stratify": self.stratify,
            "n_clusters": self.n_clusters,
            "embedder": public_spec(self.embedder_spec),
            "engine": self.engine_name,
            **({"tgt_langs": self.tgt_langs} if len(self.tgt_langs) > 1 else {}),
            **({"flags": {"length_words": LENGTH_FLAG}} if self.estimator_spec.split(":")[0] == "length" else {}),
            **({"placement": self.placement()} if self.placement() else {}),
        }

    def prepare(self, items: Sequence[Item], progress: Any = None) -> None:
        """With a distributed engine, score the whole corpus first (resumable); shards then only look up."""
        if self.engine_name == "local":
            return
        work_dir = self.work_dir
        assert work_dir is not None  # __init__ requires one for a distributed engine
        columns = {"src": [it.data["src"] for it in items]}
        per_lang = [
            [
                (None if s[0] != s[0] else float(s[0]))
                for s in self.engine.score(
                    self._task(t),
                    columns,
                    Path(work_dir) / f"tgt={t}" if len(self.tgt_langs) > 1 else work_dir,
                )
            ]
            for t in self.tgt_langs
        ]
        self._scores = {it.index: mean_or_none(scores) for it, scores in zip(items, zip(*per_lang))}
        if progress is not None:
            progress.advance(len(items))

    def plan(self, items: Sequence[Item]) -> Plan:
        """One estimator call per text and target language (an API-backed estimator, e.g. ``llm-judge:openai:...``)."""
        plan = Plan()
        for target in self.tgt_langs:  # one scoring pass per target language
            plan.add_role(self.estimator, [it.data["src"] for it in items], None, self.src_lang, target)
        return plan

    def model_specs(self) -> dict[str, str]:
        specs = {"difficulty": public_spec(self.estimator_spec)}
        if self.stratify == "clusters":
            specs["embedder"] = public_spec(self.embedder_spec or "e5")
        return specs

    def process_batch(self, items: Sequence[Item], rngs) -> list[ItemResult]:
        """Score the items with words (the estimator sees only those) and make one record each; an item without a
        word is skipped and counted ("no words"), as ``text.empty_rate`` counts such a text as empty."""
        out: list[ItemResult] = [ItemResult(skipped=[NO_WORDS]) for _ in items]
        worded = [(pos, it) for pos, it in enumerate(items) if word_count(it.data["src"])]
        if self._scores is not None:
            scores = [self._scores[it.index] for _, it in worded]
        else:
            texts = [it.data["src"] for _, it in worded]
            per_lang = [
                self.estimator.difficulty(texts, src_lang=self.src_lang, tgt_lang=t) if texts else []
                for t in self.tgt_langs
            ]
            scores = [mean_or_none(s) for s in zip(*per_lang)] if texts else []
        for (pos, it), score in zip(worded, scores):
            if score is None or score != score:  # the estimator could not score it (e.g. an LLM judge failed)
                out[pos] = ItemResult(rejected=["no difficulty score"])
                continue
            out[pos] = ItemResult(
                records=[
                    {
                        "text": it.data["src"],
                        "domain": it.data.get("domain"),
                        "estimator": self.public_estimator,
                        "difficulty": float(score),
                        "rank": None,
                        "src_lang": it.data.get("src_lang", self.src_lang),
                        "tgt_lang": it.data.get("tgt_lang", self.tgt_lang) if len(self.tgt_langs) == 1 else None,
                    }
                ]
            )
        return out

    def process(self, item: Item, rng) -> ItemResult:
        return self.process_batch([item], [rng])[0]

    def finalize(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        chosen = select_hardest(records, self.budget, self._strata(records))
        for rank, rec in enumerate(chosen, start=1):
            rec["rank"] = rank
        return chosen

    def _strata(self, records: list[dict[str, Any]]) -> list[str] | None:
        if self.stratify == "domain":
            return [str(r.get("domain")) for r in records]
        if self.stratify == "clusters":
            return [
                f"c{c}" for c in embedding_clusters([r["text"] for r in records], self.n_clusters, self.embedder_spec)
            ]
        return None


def mean_or_none(scores: Sequence[float | None]) -> float | None:
    """The mean of one text's scores over the target languages; ``None`` when any is missing (a failure is never a
    number, and a mean over fewer languages would not compare with the others)."""
    values = [x for x in scores if x is not None and x == x]
    if len(values) < len(scores):
        return None
    return sum(values) / len(values)


def select_hardest(records: list[dict[str, Any]], budget: int, strata: list[str] | None = None) -> list[dict[str, Any]]:
    """Top-``budget`` records by difficulty (ties broken by id), optionally spread across strata."""
    key = lambda r: (-r["difficulty"], r["id"])  # noqa: E731
    if strata is None:
        return sorted(records, key=key)[:budget]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r, s in zip(records, strata):
        groups[s].append(r)
    quota = proportional_quota({s: len(g) for s, g in groups.items()}, min(budget, len(records)))
    chosen = []
    for s, g in groups.items():
        chosen.extend(sorted(g, key=key)[: quota[s]])
    return sorted(chosen, key=key)


def proportional_quota(sizes: dict[str, int], budget: int) -> dict[str, int]:
    """Largest-remainder split of ``budget`` in proportion to ``sizes``, never above a stratum's size."""
    total = sum(sizes.values())
    if total == 0:
        return {s: 0 for s in sizes}
    raw = {s: budget * n / total for s, n in sizes.items()}
    quota = {s: min(int(v), sizes[s]) for s, v in raw.items()}
    left = budget - sum(quota.values())
    for s in sorted(sizes, key=lambda s: (-(raw[s] - int(raw[s])), s)):
        if left <= 0:
            break
        if quota[s] < sizes[s]:
            quota[s] += 1
            left -= 1
    while left > 0:  # some strata full: give the rest to those with room
        room = [s for s in sorted(sizes) if quota[s] < sizes[s]]
        if not room:
            break
        for s in room:
            if left == 0:
                break
            quota[s] += 1
            left -= 1
    return quota


def embedding_clusters(texts: list[str], k: int, embedder_spec: str | None = None, seed: int = 13) -> list[int]:
    """k-means (numpy, k-means++ init) over L2-normalised embeddings."""
    import numpy as np

    emb = registry.load("embedder", embedder_spec).embed(texts)
    k = max(1, min(k, len(texts)))
    rng = np.random.default_rng(seed)
    centers = [emb[rng.integers(len(emb))]]
    for _ in range(1, k):
        d = np.min(((emb[:, None, :] - np.array(centers)[None]) ** 2).sum(-1), axis=1)
        p = d / d.sum() if d.sum() > 0 else None
        centers.append(emb[rng.choice(len(emb), p=p)])
    c = np.array(centers)
    for _ in range(50):
        labels = np.argmax(emb @ c.T, axis=1)
        new = np.array([emb[labels == j].mean(0) if np.any(labels == j) else c[j] for j in range(k)])
        new /= np.linalg.norm(new, axis=1, keepdims=True) + 1e-12
        if np.allclose(new, c):
            break
        c = new
    return labels.tolist()
