"""What MT-breaker and zero-shot share as builders: seed texts read and drawn alike, an LLM that writes source texts
(asked for usable ``SOURCE |||...|||`` answers with the same budget, temperature and retries), the target MT
models and QE ensemble that score them, and records of the same kind (``breaker_text``) with the same fields."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from mtgauntlet.builders.base import Builder
from mtgauntlet.builders.breaker_scoring import Scorer, failure_counts
from mtgauntlet.builders.breaker_sources import (
    EMPTY_HINT,
    FAILURE_KEYS,
    LANGUAGE_GUARD_FLAG,
    SourceRequest,
    ask_for_sources,
    keyed_sample,
    temperature_flag,
    word_count_flag,
)
from mtgauntlet.builders.inputs import read_corpus, with_languages
from mtgauntlet.builders.options import BREAKER_SHARD_SIZE
from mtgauntlet.builders.options.breaker import MTBreakerOptions, ZeroShotOptions
from mtgauntlet.builders.runtime_info import roles_runtime
from mtgauntlet.corpora.readers import RowSet
from mtgauntlet.models import registry
from mtgauntlet.models.qe_ensemble import split_specs
from mtgauntlet.models.registry import public_spec

SeedTextOptions = MTBreakerOptions | ZeroShotOptions


class SeedTextBuilder(Builder):
    """The common part of `MTBreakerBuilder` and `ZeroShotBuilder`: made from their options (``retries``: more
    tries per unusable LLM answer, each with the item's next sampling seed)."""

    kind = "breaker_text"
    failure_columns = FAILURE_KEYS  # summed into build.json counts.failures by the runner
    records_seeds = True  # build.json "seeds": the source id and sha256 of each seed, written when planned
    empty_hint = EMPTY_HINT
    batched = True  # a shard's LLM calls go out together
    default_shard_size = BREAKER_SHARD_SIZE

    def __init__(self, options: SeedTextOptions, *, retries: int = 2):
        o = options
        self.variant, self.retries = o.variant, retries
        self.temperature, self.max_tokens, self.language_guard = o.temperature, o.max_tokens, o.language_guard
        self.sample = o.sample  # the seeds are a keyed random sample of this size (provenance; drawn by `read`)
        self.llm_spec = o.llm or "smollm2"
        self.llm = registry.load("llm", o.llm)
        self.scorer = Scorer(split_specs(o.mt), o.qe, o.src_lang, o.tgt_lang)
        self.src_lang, self.tgt_lang = o.src_lang, o.tgt_lang

    @classmethod
    def read(cls, options: SeedTextOptions) -> tuple[SeedTextOptions, RowSet]:
        """Seed texts (source side only) of any table or named layout, drawn to ``sample`` (content-keyed: the same
        ``sample`` and ``seed`` give both methods the same seeds)."""
        o = with_languages(options)
        rows = read_corpus(o, o.seeds, text=o.column, limit=o.limit)
        rows.rows = keyed_sample(rows.rows, o.sample, o.seed)
        return o, rows

    def signature_with(self, own: dict[str, Any], tail: dict[str, Any] | None = None) -> dict[str, Any]:
        """The signature fields: languages and models, the method's ``own``, the generation settings, ``tail``."""
        return {
            "src": self.src_lang,
            "tgt": self.tgt_lang,
            "variant": self.variant,
            "llm": self.llm_spec,
            "mt": self.scorer.mt_specs,
            "qe": self.scorer.qe_specs,
            **own,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "langid": self.language_guard,
            **(tail or {}),
        }

    def config_with(self, own: dict[str, Any]) -> dict[str, Any]:
        """build.json's config: the generation settings, the QE ensemble, the seed sample, the method's ``own``,
        the card's flags."""
        return {
            "variant": self.variant,
            **own,
            "retries": self.retries,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "language_guard": self.language_guard,
            "qe": self.scorer.public_qe,
            **({"sample": self.sample} if self.sample is not None else {}),
            "flags": self.flags(),
        }

    def flags(self) -> dict[str, str]:
        """Departures from the paper, stated in the card (each method's, via `flags_with`)."""
        raise NotImplementedError

    def flags_with(self, own: dict[str, str]) -> dict[str, str]:
        """Departures from the paper, stated in the card: the temperature, the method's ``own``, the language guard,
        how a Chinese or Japanese source's words are counted."""
        out = {"temperature": temperature_flag(self.temperature), **own}
        if self.language_guard:
            out["language_guard"] = LANGUAGE_GUARD_FLAG
        return {**out, **word_count_flag(self.src_lang)}

    def model_specs(self) -> dict[str, str]:
        return {
            "llm": public_spec(self.llm_spec),
            "mt": ",".join(self.scorer.public_mt),
            "qe": self.scorer.public_qe_spec,
        }

    def runtime_info(self) -> dict[str, Any]:
        return roles_runtime({"llm": self.llm, **self.scorer.roles()})

    def ask(self, requests: Sequence[SourceRequest]) -> list[str | None]:
        """A usable source per request, ``None`` where none came (`ask_for_sources` with this build's settings)."""
        return ask_for_sources(
            self.llm,
            requests,
            budget=self.max_tokens,
            temperature=self.temperature,
            retries=self.retries,
            src_lang=self.src_lang,
            language_guard=self.language_guard,
        )

    def record(self, best: dict[str, Any], trajectory: list[dict[str, Any]], counts: Counter, **own: Any) -> dict:
        """The record of the selected step ``best`` of ``trajectory`` (the method's fields in ``own``)."""
        return {
            "text": best["source"],
            **own,
            "target_models": self.scorer.public_mt,
            "qe_model": self.scorer.public_qe_spec,
            "qe_models": self.scorer.public_qe,
            "qe_score": best["qe_mean"],
            "difficulty": 100.0 - best["qe_mean"],
            "trajectory": trajectory,
            "llm_failures": counts["llm_failures"],
            "truncated": counts["truncated"],
            **failure_counts(trajectory),
            "src_lang": self.src_lang,
            "tgt_lang": self.tgt_lang,
        }
