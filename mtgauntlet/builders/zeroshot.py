"""Zero-shot baselines of the MT-breaker paper: the LLM writes a hard-to-translate text in one shot.

- ``plain``: one generation per item (length-matched to the item's seed);
- ``history``: previously generated texts are listed in the prompt so they are not repeated;
- ``min``: ``n`` generations per item (default 10, as MT-breaker's steps), keep the most difficult by QE.
"""

from __future__ import annotations

from typing import Any

from mtgauntlet.builders.base import Item, ItemResult
from mtgauntlet.builders.mtbreaker import Scorer, ask_for_source, token_budget, words
from mtgauntlet.errors import GauntletError
from mtgauntlet.models import prompts, registry
from mtgauntlet.models.llm_roles import lang_name

VARIANTS = ("plain", "history", "min")
HISTORY = "Do not repeat or paraphrase any of these previously generated texts:\n{texts}"


class ZeroShotBuilder:
    name = "zeroshot"
    version = "2"  # 2: answers that copy the prompt are unusable
    kind = "breaker_text"

    def __init__(self, *, variant: str = "plain", llm: str | None = None, mt=("apertium",), qe: str | None = None,
                 src_lang: str = "en", tgt_lang: str = "es", n: int = 10, retries: int = 2,
                 temperature: float = 0.9, history_size: int = 20):
        if variant not in VARIANTS:
            raise GauntletError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
        self.variant, self.n, self.retries, self.temperature = variant, n, retries, temperature
        self.history_size = history_size
        self.llm_spec = llm or "smollm2"
        self.llm = registry.load("llm", llm)
        self.scorer = Scorer(mt, qe, src_lang, tgt_lang)
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        self.history: list[str] = []

    def signature_fields(self) -> dict[str, Any]:
        return {"src": self.src_lang, "tgt": self.tgt_lang, "variant": self.variant, "llm": self.llm_spec,
                "mt": self.scorer.mt_specs, "qe": self.scorer.qe_spec,
                "generations": self.n if self.variant == "min" else 1, "temperature": self.temperature}

    def config(self) -> dict[str, Any]:
        return {"variant": self.variant, "n": self.n, "retries": self.retries, "temperature": self.temperature}

    def model_specs(self) -> dict[str, str]:
        return {"llm": self.llm_spec, "mt": ",".join(self.scorer.mt_specs), "qe": self.scorer.qe_spec}

    def restore(self, records: list[dict[str, Any]]) -> None:
        """On resume: earlier items' texts form the history (the runner passes finished records)."""
        ordered = sorted(records, key=lambda r: int(r.get("source_id") or 0))
        self.history = [r["text"] for r in ordered]

    def _generate(self, length: int, rng, failures: list[int]) -> str | None:
        prompt = prompts.BREAKER_FIRST.format(lang1=lang_name(self.src_lang), lang2=lang_name(self.tgt_lang),
                                             seed_length=length)
        if self.variant == "history" and self.history:
            prompt += "\n" + HISTORY.format(texts="\n".join(f"- {t}" for t in self.history[-self.history_size:]))
        text = ask_for_source(self.llm, [{"role": "user", "content": prompt}], rng, budget=token_budget(length),
                              temperature=self.temperature, retries=self.retries, src_lang=self.src_lang)
        if text is None:
            failures[0] += 1
        return text

    def process(self, item: Item, rng) -> ItemResult:
        seed = item.data.get("src") or ""
        length = words(seed) or int(item.data.get("length", 30))
        failures = [0]
        k = self.n if self.variant == "min" else 1
        texts = [t for t in (self._generate(length, rng, failures) for _ in range(k)) if t]
        if not texts:
            return ItemResult(rejected=["llm_failed"])
        scored = self.scorer(texts)
        cands = [{"step": i, "source": t, "translations": tr, "qe": q, "qe_mean": sum(q) / len(q)}
                 for i, (t, (tr, q)) in enumerate(zip(texts, scored))]
        best = min(cands, key=lambda c: (c["qe_mean"], c["step"]))
        self.history.append(best["source"])
        method = {"plain": "zeroshot", "history": "zeroshot-history", "min": "zeroshot-min"}[self.variant]
        return ItemResult(records=[{
            "text": best["source"], "seed": None, "method": method, "target_models": self.scorer.mt_specs,
            "qe_model": self.scorer.qe_spec, "qe_score": best["qe_mean"], "difficulty": 100 - best["qe_mean"],
            "llm_failures": failures[0], "trajectory": cands, "src_lang": self.src_lang, "tgt_lang": self.tgt_lang,
            "source_id": str(item.index)}])
