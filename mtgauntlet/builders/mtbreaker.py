"""MT-breaker (Algorithm 1 and Appendix B prompts of the MT-breaker paper).

An editing LLM sees the chat history with the target model's translation(s) and proposes a modified
source, step by step; at the end every step is scored with QE and the most difficult source is kept.
Variants: seeded / seedless, each optionally ``+qe`` (the follow-up also shows the QE score). The follow-up
wording is the paper's (+qe) prompt in every variant; the plain variants leave out only the score line and its
"(one with lowest score)" hint, so seeded vs seeded+qe differs only in the QE feedback. Several target models at
once ("multi"): every step is translated by each, and the selection uses their average QE. Several QE specs
(``--qe A,B``, the paper: MetricX-24-QE and LLM-as-QE) are averaged per text on the 0-100 scale.

Trajectory: step 0 is the seed (seeded) or the LLM's first text (seedless); then edits: N of them seeded (N + 1
candidates, the seed one of them), N - 1 seedless (N LLM texts in all, as zero-shot (min) picks from N generations:
the paper's "same number of steps"). An
unusable LLM answer (no ``SOURCE |||…|||``, fewer than two words, a copy of the prompt's instructions, cut off
by the generation budget, or — with the opt-in language guard — not in the source language) is retried ``retries``
times (other sampling seeds), then counted in ``llm_failures`` and the step is skipped — never fatal.
A step whose translation or QE failed (``None``) is kept in the trajectory with ``failure`` set, is never
selected, is counted (``mt_failures`` / ``qe_failures``), and the conversation goes on from the last scored step
(in every variant alike). The conversation keeps the editor's answers as it wrote them (the paper's chat
history); a seed, which no LLM wrote, is shown as ``SOURCE |||seed|||``.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mtgauntlet.builders.base import Item, ItemResult
from mtgauntlet.builders.breaker_scoring import best_step, plan_walks
from mtgauntlet.builders.breaker_sources import SourceRequest, item_key, words
from mtgauntlet.builders.options.breaker import MTBreakerOptions
from mtgauntlet.builders.seed_texts import SeedTextBuilder
from mtgauntlet.core import progress
from mtgauntlet.models import prompts
from mtgauntlet.models.estimate import Plan
from mtgauntlet.models.llm_roles import lang_name

log = logging.getLogger(__name__)
PLAIN_FOLLOWUP_FLAG = (
    "follow-up wording: the paper gives the +qe variants' follow-up only; this plain variant used "
    "it without the score line and without '(one with lowest score)'"
)


@dataclass
class Walk:
    """The state of one item's MT-breaker run: the seed, the item's rng, the chat history with the editor, the
    trajectory so far, the last scored step (what the next follow-up shows) and the failure counters."""

    seed: str | None
    rng: Any
    messages: list[dict]
    trajectory: list[dict[str, Any]] = field(default_factory=list)
    anchor: dict[str, Any] | None = None
    counts: Counter = field(default_factory=Counter)


class MTBreakerBuilder(SeedTextBuilder):
    name = "mtbreaker"
    version = "7"  # 3: failed scores are missing, QE ensembles, same follow-up in all variants, truncation counted
    # 4: an item's sampling seeds come from its source id and text (not its position); seeds without a word skipped
    # 5: the chat history keeps the editor's answers as written (not only SOURCE |||x|||); language guard opt-in
    # 6: Chinese/Japanese words counted by jieba / characters (the length target and the two-word check)
    # 7: seedless makes --steps texts in all (its first text is step 0), as zero-shot (min) makes --generations

    def __init__(self, options: MTBreakerOptions, *, retries: int = 2):
        super().__init__(options, retries=retries)
        self.steps, self.grammatical_edits = options.steps, options.grammatical_edits
        self.seeded, self.show_qe = self.variant.startswith("seeded"), self.variant.endswith("+qe")

    def signature_fields(self) -> dict[str, Any]:
        return self.signature_with({"steps": self.steps}, {"grammatical": self.grammatical_edits})

    def config(self) -> dict[str, Any]:
        return self.config_with({"steps": self.steps, "grammatical_edits": self.grammatical_edits})

    def flags(self) -> dict[str, str]:
        """Departures from the paper, stated in the card (docs/methods/mtbreaker.md, "Reproducing the paper")."""
        return self.flags_with({} if self.show_qe else {"followup_wording": PLAIN_FOLLOWUP_FLAG})

    @staticmethod
    def item_key(item: Item) -> tuple[str, str]:
        return item_key(item)

    @property
    def edits(self) -> int:
        """Edit steps after step 0: ``steps`` after a seed, ``steps - 1`` after a seedless first text (the LLM writes
        ``steps`` texts either way, as zero-shot (min) writes ``--generations``)."""
        return self.steps if self.seeded else self.steps - 1

    def plan(self, items: Sequence[Item]) -> Plan:
        """``steps`` LLM texts per item (seeded: edits of the seed; seedless: the first text and ``steps - 1`` edits);
        the conversation grows one exchange a step."""

        def asks(seed: str, length: int, stand_in: str):
            if self.seeded and not seed:
                return None
            first = self._first_prompt(length)
            exchange = f"SOURCE |||{stand_in}|||" + prompts.breaker_followup(
                stand_in, 50.0 if self.show_qe else None, self.grammatical_edits
            )
            texts = ([first] if not self.seeded else []) + [first + exchange * k for k in range(1, self.edits + 1)]
            return texts, self.edits + 1

        return plan_walks(self, items, asks)

    # -- the loop: every trajectory of a shard advances step by step, each step's model calls as one list ------
    def _ask(self, walks: Sequence[Walk]) -> list[tuple[str, str] | None]:
        """Per walk: (the usable source, the answer as the LLM wrote it), or ``None``."""
        requests = [SourceRequest(w.messages, w.rng, w.counts) for w in walks]
        texts = self.ask(requests)
        return [None if t is None else (t, r.answer or f"SOURCE |||{t}|||") for t, r in zip(texts, requests)]

    def _followup(self, step: dict[str, Any]) -> str:
        translations = step["translations"]
        if len(translations) == 1:
            shown = translations[0]
        else:
            shown = " ||| ".join(f"[{spec}] {t}" for spec, t in zip(self.scorer.public_mt, translations))
        return prompts.breaker_followup(shown, step["qe_mean"] if self.show_qe else None, self.grammatical_edits)

    def _first_prompt(self, seed_length: int) -> str:
        return prompts.BREAKER_FIRST.format(
            lang1=lang_name(self.src_lang), lang2=lang_name(self.tgt_lang), seed_length=seed_length
        )

    def _score(self, step: int, proposals: Sequence[tuple[Walk, str, str]]) -> None:
        """Translate and score the step's proposals (walk, source, the answer that proposed it) of every walk as one
        list; extend the walks' trajectories and conversations (a step without a score leaves the conversation at
        the last scored step)."""
        for (walk, source, answer), scored in zip(proposals, self.scorer([source for _, source, _ in proposals])):
            entry = {"step": step, "source": source, **scored}
            walk.trajectory.append(entry)
            if step > 0 and entry["qe_mean"] is None:
                walk.messages.pop()  # no translation or score to show: go on from the last scored step
                continue
            walk.messages.append({"role": "assistant", "content": answer})
            if entry["qe_mean"] is not None:
                walk.anchor = entry

    def walk_all(self, walks: Sequence[Walk]) -> None:
        """Algorithm 1 for several items at once. Each walk's result equals the one it gets alone: its LLM samples
        depend only on its conversation and its own rng, translations and QE only on its texts."""
        rounds = 2 * (self.edits + 1)  # progress: an LLM round and a scoring round per step
        starts = [self._seeded_start(w) for w in walks] if self.seeded else self._ask(walks)
        progress.step(1, rounds)
        proposals: list[tuple[Walk, str, str]] = []
        for walk, start in zip(walks, starts):
            if start is None:
                walk.counts["llm_failures"] += 1
            else:
                proposals.append((walk, *start))
        self._score(0, proposals)
        progress.step(2, rounds)
        active = [w for w in walks if w.anchor is not None]  # step 0 scored: the editor can start
        for step in range(1, self.edits + 1):
            if not active:
                break
            for walk in active:
                assert walk.anchor is not None  # an active walk has a scored step, and keeps one
                walk.messages.append({"role": "user", "content": self._followup(walk.anchor)})
            proposals = []
            for walk, proposal in zip(active, self._ask(active)):
                if proposal is None:
                    walk.counts["llm_failures"] += 1
                    walk.messages.pop()  # drop the unanswered follow-up; the next step asks again from the same state
                else:
                    proposals.append((walk, *proposal))
            progress.step(2 * step + 1, rounds)
            self._score(step, proposals)
            progress.step(2 * step + 2, rounds)

    @staticmethod
    def _seeded_start(walk: Walk) -> tuple[str, str] | None:
        """A seeded walk's step 0: the seed itself, as if the editor had proposed it."""
        assert walk.seed is not None  # seeded builds skip an item without a seed (process_batch)
        return walk.seed, f"SOURCE |||{walk.seed}|||"

    def run(self, seed: str | None, seed_length: int, rng) -> dict[str, Any]:
        """One item's trajectory, counters and conversation."""
        walk = Walk(seed, rng, [{"role": "user", "content": self._first_prompt(seed_length)}])
        self.walk_all([walk])
        return {"trajectory": walk.trajectory, "counts": walk.counts, "messages": walk.messages}

    def process_batch(self, items: Sequence[Item], rngs) -> list[ItemResult]:
        results: list[ItemResult | None] = [None] * len(items)
        walks: dict[int, Walk] = {}
        for pos, (item, rng) in enumerate(zip(items, rngs)):
            seed = item.data.get("src")
            if self.seeded and not (seed and seed.strip()):
                results[pos] = ItemResult(skipped=["empty_seed"])
                continue
            # only emoji/symbols: text.empty_rate counts it as empty
            if self.seeded and seed and not words(seed, self.src_lang):
                results[pos] = ItemResult(skipped=["no words"])
                continue
            seed_length = words(seed, self.src_lang) if seed else int(item.data.get("length", 30))
            walks[pos] = Walk(seed, rng, [{"role": "user", "content": self._first_prompt(seed_length)}])
        self.walk_all(list(walks.values()))
        for pos, walk in walks.items():
            results[pos] = self._result(walk)
        return results  # type: ignore[return-value]

    def process(self, item: Item, rng) -> ItemResult:
        return self.process_batch([item], [rng])[0]

    def _result(self, walk: Walk) -> ItemResult:
        traj = walk.trajectory
        if not traj:
            return ItemResult(rejected=["llm_failed"])
        if traj[0]["qe_mean"] is None:
            return ItemResult(rejected=[f"step0_{traj[0]['failure']}_failed"])
        best = best_step(traj)
        assert best is not None  # step 0 is scored
        seed = walk.seed if self.seeded else None
        return ItemResult(records=[self.record(best, traj, walk.counts, seed=seed, method=f"mtbreaker-{self.variant}")])
