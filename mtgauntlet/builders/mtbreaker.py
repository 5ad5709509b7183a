"""MT-breaker (Algorithm 1 and Appendix B prompts of the MT-breaker paper).

An editing LLM sees the chat history with the target model's translation(s) and proposes a modified
source, step by step; at the end every step is scored with QE and the most difficult source is kept.
Variants: seeded / seedless, each optionally ``+qe`` (the follow-up shows the QE score and asks to modify
at most 75% of the best source so far). Several target models at once ("multi"): every step is translated
by each, and the selection uses their average QE.

Trajectory: step 0 is the seed (seeded) or the LLM's first text (seedless); steps 1..N are edits. An
unusable LLM answer (no ``SOURCE |||…|||``, fewer than two words, a copy of the prompt's instructions, or —
with the language guard — not in the source language) is retried ``retries`` times (other sampling
seeds), then counted in ``llm_failures`` and the step is skipped — never fatal.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Sequence

from mtgauntlet.builders.base import Item, ItemResult
from mtgauntlet.errors import GauntletError
from mtgauntlet.models import prompts, registry
from mtgauntlet.models.llm_roles import lang_name

log = logging.getLogger(__name__)
VARIANTS = ("seeded", "seedless", "seeded+qe", "seedless+qe")


def words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def usable_source(text: str, src_lang: str, language_guard: bool = True) -> bool:
    """A proposal is usable when it has at least two words, is not the prompt's placeholder, does not repeat
    the prompt's instructions, and (with the guard) is detected as the source language — not a translation
    into the target language."""
    if words(text) < 2 or "<SOURCE_TEXT>" in text or prompts.echoes_instructions(text):
        return False
    if language_guard:
        from mtgauntlet.models.langid import is_language

        return is_language(text, src_lang) is not False
    return True


def token_budget(seed_length: int) -> int:
    """Generation budget for a source of about ``seed_length`` words."""
    return max(48, int(seed_length * 2.5) + 16)


def ask_for_source(llm, messages: list[dict], rng, *, budget: int, temperature: float, retries: int,
                   src_lang: str, language_guard: bool = True) -> str | None:
    """Ask until the answer holds a usable ``SOURCE |||...|||`` (1 try + ``retries``); None when none did."""
    for _ in range(retries + 1):
        answer = llm.chat(messages, max_tokens=budget, temperature=temperature, seed=rng.randrange(2**31))
        text = prompts.parse_tagged(answer, "SOURCE")
        if text and usable_source(text, src_lang, language_guard):
            return text
    return None


class Scorer:
    """Translate with every target model and score with the QE, caching per source text."""

    def __init__(self, mt_specs: Sequence[str], qe_spec: str | None, src_lang: str, tgt_lang: str):
        self.mt_specs = list(mt_specs)
        self.translators = [registry.load("translator", s) for s in self.mt_specs]
        self.qe_spec = qe_spec or "qe"
        self.qe = registry.load("qe", self.qe_spec)
        self.src_lang, self.tgt_lang = src_lang, tgt_lang

    def __call__(self, sources: list[str]) -> list[tuple[list[str], list[float]]]:
        per_model = [tr.translate(sources, self.src_lang, self.tgt_lang) for tr in self.translators]
        qes = [self.qe.score(sources, hyps, self.src_lang, self.tgt_lang) for hyps in per_model]
        return [([h[i] for h in per_model], [float(q[i]) for q in qes]) for i in range(len(sources))]


class MTBreakerBuilder:
    name = "mtbreaker"
    version = "2"  # 2: answers that copy the prompt are unusable
    kind = "breaker_text"

    def __init__(self, *, variant: str = "seeded", llm: str | None = None, mt: Sequence[str] = ("apertium",),
                 qe: str | None = None, steps: int = 10, src_lang: str = "en", tgt_lang: str = "es",
                 retries: int = 2, temperature: float = 0.8, max_tokens: int | None = None,
                 language_guard: bool = True):
        if variant not in VARIANTS:
            raise GauntletError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
        if steps < 1:
            raise GauntletError("--steps must be >= 1")
        self.variant, self.steps, self.retries = variant, steps, retries
        self.seeded, self.show_qe = variant.startswith("seeded"), variant.endswith("+qe")
        self.llm_spec = llm or "smollm2"
        self.llm = registry.load("llm", llm)
        self.scorer = Scorer(mt, qe, src_lang, tgt_lang)
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        self.temperature, self.max_tokens = temperature, max_tokens
        self.language_guard = language_guard

    def signature_fields(self) -> dict[str, Any]:
        return {"src": self.src_lang, "tgt": self.tgt_lang, "variant": self.variant, "llm": self.llm_spec,
                "mt": self.scorer.mt_specs, "qe": self.scorer.qe_spec, "steps": self.steps,
                "temperature": self.temperature, "langid": self.language_guard}

    def config(self) -> dict[str, Any]:
        return {"variant": self.variant, "steps": self.steps, "retries": self.retries,
                "temperature": self.temperature, "max_tokens": self.max_tokens, "language_guard": self.language_guard}

    def model_specs(self) -> dict[str, str]:
        return {"llm": self.llm_spec, "mt": ",".join(self.scorer.mt_specs), "qe": self.scorer.qe_spec}

    # -- the loop ---------------------------------------------------------------------------------
    def _ask(self, messages: list[dict], rng, budget: int) -> str | None:
        return ask_for_source(self.llm, messages, rng, budget=budget, temperature=self.temperature,
                              retries=self.retries, src_lang=self.src_lang, language_guard=self.language_guard)

    def _followup(self, translations: list[str], qe: list[float]) -> str:
        if len(translations) == 1:
            shown = translations[0]
        else:
            shown = " ||| ".join(f"[{spec}] {t}" for spec, t in zip(self.scorer.mt_specs, translations))
        if self.show_qe:
            return prompts.BREAKER_FOLLOWUP_QE.format(translation=shown, qe=sum(qe) / len(qe))
        return prompts.BREAKER_FOLLOWUP.format(translation=shown)

    def run(self, seed: str | None, seed_length: int, rng) -> dict[str, Any]:
        budget = self.max_tokens or token_budget(seed_length)
        first = prompts.BREAKER_FIRST.format(lang1=lang_name(self.src_lang), lang2=lang_name(self.tgt_lang),
                                            seed_length=seed_length)
        messages = [{"role": "user", "content": first}]
        failures = 0
        if self.seeded:
            current = seed
            messages.append({"role": "assistant", "content": f"SOURCE |||{seed}|||"})
        else:
            current = self._ask(messages, rng, budget)
            if current is None:
                failures += 1
            else:
                messages.append({"role": "assistant", "content": f"SOURCE |||{current}|||"})
        trajectory: list[dict[str, Any]] = []
        if current is None:
            return {"trajectory": trajectory, "llm_failures": failures, "messages": messages}
        trajectory.append(self._scored(0, current))
        for step in range(1, self.steps + 1):
            last = trajectory[-1]
            messages.append({"role": "user", "content": self._followup(last["translations"], last["qe"])})
            proposal = self._ask(messages, rng, budget)
            if proposal is None:
                failures += 1
                messages.pop()  # drop the unanswered follow-up; the next step asks again from the same state
                continue
            messages.append({"role": "assistant", "content": f"SOURCE |||{proposal}|||"})
            trajectory.append(self._scored(step, proposal))
        return {"trajectory": trajectory, "llm_failures": failures, "messages": messages}

    def _scored(self, step: int, source: str) -> dict[str, Any]:
        (translations, qe), = self.scorer([source])
        return {"step": step, "source": source, "translations": translations, "qe": qe, "qe_mean": sum(qe) / len(qe)}

    def process(self, item: Item, rng) -> ItemResult:
        seed = item.data.get("src")
        if self.seeded and not (seed and seed.strip()):
            return ItemResult(skipped=["empty_seed"])
        seed_length = words(seed) if seed else int(item.data.get("length", 30))
        out = self.run(seed, seed_length, rng)
        traj = out["trajectory"]
        if not traj:
            return ItemResult(rejected=["llm_failed"])
        best = min(traj, key=lambda s: (s["qe_mean"], s["step"]))
        return ItemResult(records=[{
            "text": best["source"], "seed": seed if self.seeded else None, "method": f"mtbreaker-{self.variant}",
            "target_models": self.scorer.mt_specs, "qe_model": self.scorer.qe_spec, "qe_score": best["qe_mean"],
            "difficulty": 100.0 - best["qe_mean"], "llm_failures": out["llm_failures"], "trajectory": traj,
            "src_lang": self.src_lang, "tgt_lang": self.tgt_lang}])
