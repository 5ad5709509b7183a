"""Scoring an MT-breaker or zero-shot step: every target model translates it, the QE ensemble scores each
translation; the most difficult scored step is kept. Also the dry-run plan of their LLM, MT and QE calls."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mtgauntlet.builders.base import Item
from mtgauntlet.models import registry
from mtgauntlet.models.estimate import Plan
from mtgauntlet.models.qe_ensemble import load_qe
from mtgauntlet.models.registry import public_spec


class Scorer:
    """Translate with every target model and score each translation with the QE ensemble. A translation or a
    score that failed is ``None``; the step's ``qe_mean`` is then ``None`` and ``failure`` says which."""

    def __init__(self, mt_specs: Sequence[str], qe_specs: str | Sequence[str] | None, src_lang: str, tgt_lang: str):
        self.mt_specs = list(mt_specs)
        self.translators = [registry.load("translator", s) for s in self.mt_specs]
        self.qe = load_qe(qe_specs)
        self.qe_specs = self.qe.specs
        self.qe_spec = ",".join(self.qe_specs)
        # the specs as records and build.json name them: no price, pace or secret options, no URL user info
        self.public_mt, self.public_qe = public_spec(self.mt_specs), public_spec(list(self.qe_specs))
        self.public_qe_spec = ",".join(self.public_qe)
        self.src_lang, self.tgt_lang = src_lang, tgt_lang

    def roles(self) -> dict[str, Any]:
        return {"mt": self.translators, "qe": self.qe}

    def __call__(self, sources: list[str]) -> list[dict[str, Any]]:
        """Each translator gets all ``sources`` as one list, the QE ensemble all translations of a model as one."""
        if not sources:
            return []
        per_model = [list(tr.translate(sources, self.src_lang, self.tgt_lang)) for tr in self.translators]
        comps: list[list[list[float | None] | None]] = []  # [model][text] -> components, None: no translation
        for hyps in per_model:
            ok = [i for i, h in enumerate(hyps) if h is not None]
            scored = (
                self.qe.score_components([sources[i] for i in ok], [hyps[i] for i in ok], self.src_lang, self.tgt_lang)
                if ok
                else []
            )
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
            out.append(
                {
                    "translations": translations,
                    "qe": qe,
                    "qe_components": components,
                    "qe_mean": None if failure else sum(q for q in qe if q is not None) / len(qe),
                    "failure": failure,
                }
            )
        return out


def best_step(trajectory: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The most difficult scored step (lowest mean QE, earliest on ties); steps without a score are never chosen."""
    scored = [s for s in trajectory if s.get("qe_mean") is not None]
    return min(scored, key=lambda s: (s["qe_mean"], s["step"])) if scored else None


def failure_counts(trajectory: Sequence[dict[str, Any]]) -> dict[str, int]:
    return {
        "mt_failures": sum(s.get("failure") == "mt" for s in trajectory),
        "qe_failures": sum(s.get("failure") == "qe" for s in trajectory),
    }


def plan_walks(builder, items: Sequence[Item], asks) -> Plan:
    """The dry run of MT-breaker and zero-shot: per item, ``asks(seed, length, stand_in)`` gives the LLM prompts
    the item sends and how many texts get translated and scored (``None``: the item sends nothing). Follow-ups hold
    translations not known yet: the seed (or a stand-in of its length) takes their place."""
    plan = Plan()
    for item in items:
        seed = (item.data.get("src") or "").strip()
        length = len(seed.split()) or int(item.data.get("length", 30))
        stand_in = seed or " ".join(["word"] * length)
        asked = asks(seed, length, stand_in)
        if asked is None:
            continue
        texts, n_texts = asked
        plan.add(builder.llm, texts, builder.max_tokens)
        for translator in builder.scorer.translators:
            plan.add_role(translator, [stand_in], None, builder.src_lang, builder.tgt_lang, times=n_texts)
        plan.add_role(
            builder.scorer.qe,
            [stand_in],
            [stand_in],
            builder.src_lang,
            builder.tgt_lang,
            times=n_texts * len(builder.scorer.translators),
        )
    return plan
