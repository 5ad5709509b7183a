"""MT-breaker (Algorithm 1 and Appendix B prompts of the MT-breaker paper).

An editing LLM sees the chat history with the target model's translation(s) and proposes a modified
source, step by step; at the end every step is scored with QE and the most difficult source is kept.
Variants: seeded / seedless, each optionally ``+qe`` (the follow-up also shows the QE score). The follow-up
wording is the paper's (+qe) prompt in every variant; the plain variants leave out only the score line and its
"(one with lowest score)" hint, so seeded vs seeded+qe differs only in the QE feedback. Several target models at
once ("multi"): every step is translated by each, and the selection uses their average QE. Several QE specs
(``--qe A,B``, the paper: MetricX-24-QE and LLM-as-QE) are averaged per text on the 0-100 scale.

Trajectory: step 0 is the seed (seeded) or the LLM's first text (seedless); steps 1..N are edits. An
unusable LLM answer (no ``SOURCE |||…|||``, fewer than two words, a copy of the prompt's instructions, cut off
by the generation budget, or — with the language guard — not in the source language) is retried ``retries``
times (other sampling seeds), then counted in ``llm_failures`` and the step is skipped — never fatal.
A step whose translation or QE failed (``None``) is kept in the trajectory with ``failure`` set, is never
selected, is counted (``mt_failures`` / ``qe_failures``), and the conversation goes on from the last scored step
(in every variant alike).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from typing import Any, Sequence

from mtgauntlet.builders.base import Item, ItemResult
from mtgauntlet.errors import GauntletError
from mtgauntlet.models import prompts, registry
from mtgauntlet.models.llm_roles import lang_name
from mtgauntlet.models.qe_ensemble import load_qe

log = logging.getLogger(__name__)
VARIANTS = ("seeded", "seedless", "seeded+qe", "seedless+qe")
DEFAULT_TEMPERATURE = 0.8  # MT-breaker and zero-shot alike (the paper gives none)
DEFAULT_MAX_TOKENS = 1024  # room for a capable LLM's reasoning before SOURCE |||...|||
FAILURE_KEYS = ("llm_failures", "truncated", "mt_failures", "qe_failures")
EMPTY_HINT = ("check --llm / --mt / --qe (an LLM that never answers SOURCE |||...|||, a translator or QE that never "
              "returns a result)")
_UNTERMINATED = re.compile(r"SOURCE\s*:?\s*\|\|\|(?:(?!\|\|\|).)*$", re.S)


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


def answer_truncated(llm, answer: str, budget: int) -> bool:
    """Whether the generation budget cut the answer: by token count where the backend has its tokenizer, by the
    backend's finish reason where it reports one, otherwise when the last ``SOURCE |||`` span is never closed."""
    tokenizer = getattr(llm, "tokenizer", None)
    if tokenizer is not None:
        try:
            return len(tokenizer(answer, add_special_tokens=False)["input_ids"]) >= budget - 3
        except Exception:  # noqa: BLE001 - a tokenizer that cannot re-encode: fall back to the answer's shape
            pass
    finish = getattr(llm, "last_finish_reason", None)
    if isinstance(finish, str):
        return finish == "length"
    return bool(_UNTERMINATED.search(answer or ""))


def ask_for_source(llm, messages: list[dict], rng, *, budget: int, temperature: float, retries: int,
                   src_lang: str, language_guard: bool = True, counts: Counter | None = None) -> str | None:
    """Ask until the answer holds a usable ``SOURCE |||...|||`` (1 try + ``retries``); None when none did.
    Answers cut by the budget are unusable (the text may be cut) and counted in ``counts['truncated']``."""
    for _ in range(retries + 1):
        answer = llm.chat(messages, max_tokens=budget, temperature=temperature, seed=rng.randrange(2**31))
        if answer_truncated(llm, answer, budget):
            if counts is not None:
                counts["truncated"] += 1
            continue
        text = prompts.parse_tagged(answer, "SOURCE")
        if text and usable_source(text, src_lang, language_guard):
            return text
    return None


class Scorer:
    """Translate with every target model and score each translation with the QE ensemble. A translation or a
    score that failed is ``None``; the step's ``qe_mean`` is then ``None`` and ``failure`` says which."""

    def __init__(self, mt_specs: Sequence[str], qe_specs: str | Sequence[str] | None, src_lang: str, tgt_lang: str):
        self.mt_specs = list(mt_specs)
        self.translators = [registry.load("translator", s) for s in self.mt_specs]
        self.qe = load_qe(qe_specs)
        self.qe_specs = self.qe.specs
        self.qe_spec = ",".join(self.qe_specs)
        self.src_lang, self.tgt_lang = src_lang, tgt_lang

    def __call__(self, sources: list[str]) -> list[dict[str, Any]]:
        per_model = [list(tr.translate(sources, self.src_lang, self.tgt_lang)) for tr in self.translators]
        comps: list[list[list[float | None] | None]] = []  # [model][text] -> components, None: no translation
        for hyps in per_model:
            ok = [i for i, h in enumerate(hyps) if h is not None]
            scored = self.qe.score_components([sources[i] for i in ok], [hyps[i] for i in ok], self.src_lang,
                                              self.tgt_lang) if ok else []
            row: list[list[float | None] | None] = [None] * len(sources)
            for i, c in zip(ok, scored):
                row[i] = c
            comps.append(row)
        out = []
        for i in range(len(sources)):
            translations = [h[i] for h in per_model]
            components = [c[i] for c in comps]
            qe = [None if c is None else self.qe.combine(c) for c in components]
            failure = "mt" if any(t is None for t in translations) else "qe" if any(q is None for q in qe) else None
            out.append({"translations": translations, "qe": qe, "qe_components": components,
                        "qe_mean": None if failure else sum(qe) / len(qe), "failure": failure})
        return out


def best_step(trajectory: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The most difficult scored step (lowest mean QE, earliest on ties); steps without a score are never chosen."""
    scored = [s for s in trajectory if s.get("qe_mean") is not None]
    return min(scored, key=lambda s: (s["qe_mean"], s["step"])) if scored else None


def failure_counts(trajectory: Sequence[dict[str, Any]]) -> dict[str, int]:
    return {"mt_failures": sum(s.get("failure") == "mt" for s in trajectory),
            "qe_failures": sum(s.get("failure") == "qe" for s in trajectory)}


class MTBreakerBuilder:
    name = "mtbreaker"
    version = "3"  # 3: failed scores are missing, QE ensembles, same follow-up in all variants, truncation counted
    kind = "breaker_text"
    failure_columns = FAILURE_KEYS  # summed into build.json counts.failures by the runner
    empty_hint = EMPTY_HINT

    def __init__(self, *, variant: str = "seeded", llm: str | None = None, mt: Sequence[str] = ("apertium",),
                 qe: str | Sequence[str] | None = None, steps: int = 10, src_lang: str = "en", tgt_lang: str = "es",
                 retries: int = 2, temperature: float = DEFAULT_TEMPERATURE, max_tokens: int = DEFAULT_MAX_TOKENS,
                 language_guard: bool = True, grammatical_edits: bool = False):
        if variant not in VARIANTS:
            raise GauntletError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
        if steps < 1:
            raise GauntletError("--steps must be >= 1")
        if max_tokens < 16:
            raise GauntletError("--max-tokens must be >= 16")
        self.variant, self.steps, self.retries = variant, steps, retries
        self.seeded, self.show_qe = variant.startswith("seeded"), variant.endswith("+qe")
        self.llm_spec = llm or "smollm2"
        self.llm = registry.load("llm", llm)
        self.scorer = Scorer(mt, qe, src_lang, tgt_lang)
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        self.temperature, self.max_tokens = temperature, max_tokens
        self.language_guard, self.grammatical_edits = language_guard, grammatical_edits

    def signature_fields(self) -> dict[str, Any]:
        return {"src": self.src_lang, "tgt": self.tgt_lang, "variant": self.variant, "llm": self.llm_spec,
                "mt": self.scorer.mt_specs, "qe": self.scorer.qe_specs, "steps": self.steps,
                "temperature": self.temperature, "max_tokens": self.max_tokens, "langid": self.language_guard,
                "grammatical": self.grammatical_edits}

    def config(self) -> dict[str, Any]:
        return {"variant": self.variant, "steps": self.steps, "retries": self.retries,
                "temperature": self.temperature, "max_tokens": self.max_tokens,
                "language_guard": self.language_guard, "grammatical_edits": self.grammatical_edits,
                "qe": self.scorer.qe_specs}

    def model_specs(self) -> dict[str, str]:
        return {"llm": self.llm_spec, "mt": ",".join(self.scorer.mt_specs), "qe": self.scorer.qe_spec}

    # -- the loop ---------------------------------------------------------------------------------
    def _ask(self, messages: list[dict], rng, counts: Counter) -> str | None:
        return ask_for_source(self.llm, messages, rng, budget=self.max_tokens, temperature=self.temperature,
                              retries=self.retries, src_lang=self.src_lang, language_guard=self.language_guard,
                              counts=counts)

    def _followup(self, step: dict[str, Any]) -> str:
        translations = step["translations"]
        if len(translations) == 1:
            shown = translations[0]
        else:
            shown = " ||| ".join(f"[{spec}] {t}" for spec, t in zip(self.scorer.mt_specs, translations))
        return prompts.breaker_followup(shown, step["qe_mean"] if self.show_qe else None, self.grammatical_edits)

    def run(self, seed: str | None, seed_length: int, rng) -> dict[str, Any]:
        first = prompts.BREAKER_FIRST.format(lang1=lang_name(self.src_lang), lang2=lang_name(self.tgt_lang),
                                            seed_length=seed_length)
        messages = [{"role": "user", "content": first}]
        counts: Counter = Counter()
        current = seed if self.seeded else self._ask(messages, rng, counts)
        trajectory: list[dict[str, Any]] = []
        if current is None:
            counts["llm_failures"] += 1
            return {"trajectory": trajectory, "counts": counts, "messages": messages}
        messages.append({"role": "assistant", "content": f"SOURCE |||{current}|||"})
        trajectory.append(self._scored(0, current))
        anchor = trajectory[0]  # the last scored step: what the next follow-up shows
        if anchor["qe_mean"] is None:
            return {"trajectory": trajectory, "counts": counts, "messages": messages}
        for step in range(1, self.steps + 1):
            messages.append({"role": "user", "content": self._followup(anchor)})
            proposal = self._ask(messages, rng, counts)
            if proposal is None:
                counts["llm_failures"] += 1
                messages.pop()  # drop the unanswered follow-up; the next step asks again from the same state
                continue
            scored = self._scored(step, proposal)
            trajectory.append(scored)
            if scored["qe_mean"] is None:  # no translation or score to show: go on from the last scored step
                messages.pop()
                continue
            messages.append({"role": "assistant", "content": f"SOURCE |||{proposal}|||"})
            anchor = scored
        return {"trajectory": trajectory, "counts": counts, "messages": messages}

    def _scored(self, step: int, source: str) -> dict[str, Any]:
        (scored,) = self.scorer([source])
        return {"step": step, "source": source, **scored}

    def process(self, item: Item, rng) -> ItemResult:
        seed = item.data.get("src")
        if self.seeded and not (seed and seed.strip()):
            return ItemResult(skipped=["empty_seed"])
        seed_length = words(seed) if seed else int(item.data.get("length", 30))
        out = self.run(seed, seed_length, rng)
        traj = out["trajectory"]
        if not traj:
            return ItemResult(rejected=["llm_failed"])
        if traj[0]["qe_mean"] is None:
            return ItemResult(rejected=[f"step0_{traj[0]['failure']}_failed"])
        best = best_step(traj)
        return ItemResult(records=[{
            "text": best["source"], "seed": seed if self.seeded else None, "method": f"mtbreaker-{self.variant}",
            "target_models": self.scorer.mt_specs, "qe_model": self.scorer.qe_spec, "qe_models": self.scorer.qe_specs,
            "qe_score": best["qe_mean"], "difficulty": 100.0 - best["qe_mean"], "trajectory": traj,
            "llm_failures": out["counts"]["llm_failures"], "truncated": out["counts"]["truncated"],
            **failure_counts(traj), "src_lang": self.src_lang, "tgt_lang": self.tgt_lang}])
