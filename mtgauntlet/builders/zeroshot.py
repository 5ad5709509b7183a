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

from mtgauntlet.builders.base import Item, ItemResult
from mtgauntlet.builders.breaker_scoring import best_step, plan_walks
from mtgauntlet.builders.breaker_sources import SourceRequest, words
from mtgauntlet.builders.options.breaker import ZeroShotOptions
from mtgauntlet.builders.seed_texts import SeedTextBuilder
from mtgauntlet.core import progress
from mtgauntlet.models import prompts
from mtgauntlet.models.embedded import refuse_embedded_llm_writer
from mtgauntlet.models.estimate import Plan
from mtgauntlet.models.llm_roles import lang_name

HISTORY = "Do not repeat or paraphrase any of these previously generated texts:\n{texts}"


class ZeroShotBuilder(SeedTextBuilder):
    name = "zeroshot"
    version = "5"  # 3: failed scores are missing, QE ensembles, MT-breaker's temperature and budget
    # 4: history lists all earlier texts (history_size caps it); the language guard is opt-in
    # 5: Chinese/Japanese words counted by jieba / characters (the length target and the two-word check)
    stateful = True  # the history variant's prompts list the texts of earlier items: restored on a resume

    def __init__(self, options: ZeroShotOptions, *, retries: int = 2):
        # a default that cannot produce a record says so before anything is loaded
        refuse_embedded_llm_writer(options.llm, "zeroshot", options.variant)
        super().__init__(options, retries=retries)
        self.generations, self.history_size = options.generations, options.history_size
        self.history: list[str] = []

    @property
    def per_item(self) -> int:
        return self.generations if self.variant == "min" else 1

    def signature_fields(self) -> dict[str, Any]:
        return self.signature_with(
            {"generations": self.per_item}, {"history_size": self.history_size} if self.capped else {}
        )

    @property
    def capped(self) -> bool:
        """Whether the history prompt lists only the last ``history_size`` texts (not the paper's all)."""
        return self.variant == "history" and self.history_size is not None

    def flags(self) -> dict[str, str]:
        """Departures from the paper, stated in the card."""
        out: dict[str, str] = {}
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
        return self.flags_with(out)

    def config(self) -> dict[str, Any]:
        return self.config_with(
            {"generations": self.per_item, **({"history_size": self.history_size} if self.capped else {})}
        )

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
            answers = self.ask(requests)
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
        record = self.record(best, cands, counts, seed=None, method=method)
        return ItemResult(records=[{**record, "source_id": str(item.index)}])
