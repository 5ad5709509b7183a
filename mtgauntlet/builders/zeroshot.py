"""Zero-shot baselines of the MT-breaker paper: the LLM writes a hard-to-translate text in one shot, with the same
first prompt as MT-breaker (Appendix B) and the same default temperature and generation budget.

- ``plain``: one generation per item (length-matched to the item's seed);
- ``history``: all previously generated texts are listed in the prompt so they are not repeated (the paper;
  ``history_size`` caps the list at the last N, a departure the card states);
- ``min``: ``generations`` texts per item (default 10, as MT-breaker's steps), keep the most difficult by QE.

Texts whose translation or QE failed are kept in the trajectory, never selected, and counted.

Items of a shard are generated together: generation g of every item goes out as one list (``chat_many``:
concurrent for API backends), then all texts of the shard are translated and scored as one list. An item's
generations stay in order (each draws its sampling seeds from the item's rng after the previous one), so a record
equals the one its item gets alone. ``history`` prompts depend on earlier items' texts: its items run one by one.
The language guard (not in the paper) is off by default, as in MT-breaker; the card states it when on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from mtgauntlet.builders.base import Builder, Item, ItemResult
from mtgauntlet.builders.breaker_scoring import Scorer, best_step, failure_counts, plan_walks
from mtgauntlet.builders.breaker_sources import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_TEMPERATURE,
    EMPTY_HINT,
    FAILURE_KEYS,
    LANGUAGE_GUARD_FLAG,
    SourceRequest,
    ask_for_sources,
    temperature_flag,
    word_count_flag,
    words,
)
from mtgauntlet.builders.runtime_info import roles_runtime
from mtgauntlet.core import progress
from mtgauntlet.errors import GauntletError
from mtgauntlet.models import prompts, registry
from mtgauntlet.models.embedded import refuse_embedded_llm_writer
from mtgauntlet.models.estimate import Plan
from mtgauntlet.models.llm_roles import lang_name
from mtgauntlet.models.registry import public_spec

VARIANTS = ("plain", "history", "min")
HISTORY = "Do not repeat or paraphrase any of these previously generated texts:\n{texts}"


class ZeroShotBuilder(Builder):
    name = "zeroshot"
    version = "5"  # 3: failed scores are missing, QE ensembles, MT-breaker's temperature and budget
    # 4: history lists all earlier texts (history_size caps it); the language guard is opt-in
    # 5: Chinese/Japanese words counted by jieba / characters (the length target and the two-word check)
    kind = "breaker_text"
    failure_columns = FAILURE_KEYS  # summed into build.json counts.failures by the runner
    records_seeds = True  # build.json "seeds": the source id and sha256 of each seed, written when planned
    empty_hint = EMPTY_HINT
    batched = True  # a shard's generations are asked together
    stateful = True  # the history variant's prompts list the texts of earlier items: restored on a resume

    def __init__(
        self,
        *,
        variant: str = "plain",
        llm: str | None = None,
        mt=("apertium",),
        qe=None,
        src_lang: str = "en",
        tgt_lang: str = "es",
        generations: int = 10,
        retries: int = 2,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        history_size: int | None = None,
        language_guard: bool = False,
        sample: int | None = None,
    ):
        if variant not in VARIANTS:
            raise GauntletError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
        if generations < 1:
            raise GauntletError("--generations must be >= 1")
        if history_size is not None and history_size < 1:
            raise GauntletError("--history-size must be >= 1")
        self.variant, self.generations, self.retries, self.temperature = variant, generations, retries, temperature
        self.max_tokens, self.history_size, self.language_guard = max_tokens, history_size, language_guard
        self.sample = sample  # the seeds are a keyed random sample of this size (provenance; drawn by the caller)
        self.llm_spec = llm or "smollm2"
        refuse_embedded_llm_writer(llm, "zeroshot", variant)  # a default that cannot produce a record says so now
        self.llm = registry.load("llm", llm)
        self.scorer = Scorer(mt, qe, src_lang, tgt_lang)
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        self.history: list[str] = []

    @property
    def per_item(self) -> int:
        return self.generations if self.variant == "min" else 1

    def signature_fields(self) -> dict[str, Any]:
        return {
            "src": self.src_lang,
            "tgt": self.tgt_lang,
            "variant": self.variant,
            "llm": self.llm_spec,
            "mt": self.scorer.mt_specs,
            "qe": self.scorer.qe_specs,
            "generations": self.per_item,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "langid": self.language_guard,
            **({"history_size": self.history_size} if self.capped else {}),
        }

    @property
    def capped(self) -> bool:
        """Whether the history prompt lists only the last ``history_size`` texts (not the paper's all)."""
        return self.variant == "history" and self.history_size is not None

    def flags(self) -> dict[str, str]:
        """Departures from the paper, stated in the card."""
        out = {"temperature": temperature_flag(self.temperature)}
        if self.variant == "history":
            out["history_wording"] = (
                "history prompt wording is this project's ('Do not repeat or paraphrase any of "
                "these previously generated texts:'): the paper says only that earlier texts "
                "are included so that they are not repeated"
            )
        if self.capped:
            out["history_size"] = (
                f"history capped (not in the paper): each prompt listed only the last {self.history_size} earlier texts"
            )
        if self.language_guard:
            out["language_guard"] = LANGUAGE_GUARD_FLAG
        return {**out, **word_count_flag(self.src_lang)}

    def config(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "generations": self.per_item,
            "retries": self.retries,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "qe": self.scorer.public_qe,
            "language_guard": self.language_guard,
            **({"history_size": self.history_size} if self.capped else {}),
            **({"sample": self.sample} if self.sample is not None else {}),
            "flags": self.flags(),
        }

    def model_specs(self) -> dict[str, str]:
        return {
            "llm": public_spec(self.llm_spec),
            "mt": ",".join(self.scorer.public_mt),
            "qe": self.scorer.public_qe_spec,
        }

    def runtime_info(self) -> dict[str, Any]:
        return roles_runtime({"llm": self.llm, **self.scorer.roles()})

    def plan(self, items: Sequence[Item]) -> Plan:
        """``generations`` texts per item, each one prompt (the history the run would add is not known yet)."""
        return plan_walks(
            self, items, lambda seed, length, stand_in: ([self._prompt(length)] * self.per_item, self.per_item)
        )

    def restore(self, records: list[dict[str, Any]]) -> None:
        """On resume: earlier items' texts form the history (the runner passes finished records)."""
        ordered = sorted(records, key=lambda r: int(r.get("source_id") or 0))
        self.history = [r["text"] for r in ordered]

    def _prompt(self, length: int) -> str:
        prompt = prompts.BREAKER_FIRST.format(
            lang1=lang_name(self.src_lang), lang2=lang_name(self.tgt_lang), seed_length=length
        )
        if self.variant == "history" and self.history:
            shown = self.history[-self.history_size :] if self.history_size else self.history
            prompt += "\n" + HISTORY.format(texts="\n".join(f"- {t}" for t in shown))
        return prompt

    def process_batch(self, items: Sequence[Item], rngs) -> list[ItemResult]:
        if self.variant == "history":  # each prompt lists the texts of the items before it
            out = []
            for item, rng in zip(items, rngs):
                with progress.unit(1):
                    out.append(self._generate_and_pick([item], [rng])[0])
            return out
        return self._generate_and_pick(items, rngs)

    def process(self, item: Item, rng) -> ItemResult:
        return self.process_batch([item], [rng])[0]

    def _generate_and_pick(self, items: Sequence[Item], rngs) -> list[ItemResult]:
        counts: list[Counter[str]] = [Counter() for _ in items]
        requests = [
            SourceRequest([{"role": "user", "content": self._prompt(self._length(item))}], rng, c)
            for item, rng, c in zip(items, rngs, counts)
        ]
        texts: list[list[str]] = [[] for _ in items]
        for g in range(self.per_item):  # generation g of every item at once; an item's generations stay in order
            answers = ask_for_sources(
                self.llm,
                requests,
                budget=self.max_tokens,
                temperature=self.temperature,
                retries=self.retries,
                src_lang=self.src_lang,
                language_guard=self.language_guard,
            )
            for pos, text in enumerate(answers):
                if text is None:
                    counts[pos]["llm_failures"] += 1
                else:
                    texts[pos].append(text)
            progress.step(g + 1, self.per_item + 1)  # the last part: scoring
        scored = iter(self.scorer([t for item_texts in texts for t in item_texts]))
        return [
            self._pick(item, item_texts, [next(scored) for _ in item_texts], c)
            for item, item_texts, c in zip(items, texts, counts)
        ]

    def _length(self, item: Item) -> int:
        return words(item.data.get("src") or "", self.src_lang) or int(item.data.get("length", 30))

    def _pick(self, item: Item, texts: list[str], scored: list[dict[str, Any]], counts: Counter) -> ItemResult:
        if not texts:
            return ItemResult(rejected=["llm_failed"])
        cands = [{"step": i, "source": t, **sc} for i, (t, sc) in enumerate(zip(texts, scored))]
        best = best_step(cands)
        if best is None:
            return ItemResult(rejected=[f"{cands[0]['failure']}_failed"])
        self.history.append(best["source"])
        method = {"plain": "zeroshot", "history": "zeroshot-history", "min": "zeroshot-min"}[self.variant]
        return ItemResult(
            records=[
                {
                    "text": best["source"],
                    "seed": None,
                    "method": method,
                    "target_models": self.scorer.public_mt,
                    "qe_model": self.scorer.public_qe_spec,
                    "qe_models": self.scorer.public_qe,
                    "qe_score": best["qe_mean"],
                    "difficulty": 100 - best["qe_mean"],
                    "trajectory": cands,
                    "llm_failures": counts["llm_failures"],
                    "truncated": counts["truncated"],
                    **failure_counts(cands),
                    "src_lang": self.src_lang,
                    "tgt_lang": self.tgt_lang,
                    "source_id": str(item.index),
                }
            ]
        )
