"""The bandit's artificial crowd over several target languages: a pull's text is translated into every target
language by every ``--mt`` model and each translation scored by QE; its difficulty is 100 - the mean QE over all
(language, model) pairs, i.e. the mean over languages of each language's mean over models (every language has the
same models). The bandit paper's Table 1 averages topic difficulty over 4 target languages x 3 MT models; one
target language is the special case of one scorer. A pull fails (no reward, counted) when any translation or
score of any language failed, as a step of one language does."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class CrowdScorer:
    """One :class:`~mtgauntlet.builders.breaker_scoring.Scorer` per target language, combined per text: the
    translations, QE and QE components are listed language by language (in ``tgt_langs`` order, models in ``--mt``
    order within each)."""

    def __init__(self, scorers: Sequence[Any]):
        if not scorers:
            raise ValueError("a crowd needs at least one target language")
        self.scorers = list(scorers)
        self.tgt_langs = [s.tgt_lang for s in self.scorers]
        self.src_lang = self.scorers[0].src_lang
        self.translators = self.scorers[0].translators
        self.qe = self.scorers[0].qe

    def roles(self) -> dict[str, Any]:
        return self.scorers[0].roles()

    def __call__(self, sources: list[str]) -> list[dict[str, Any]]:
        per_lang = [scorer(sources) for scorer in self.scorers]
        out = []
        for i in range(len(sources)):
            steps = [scored[i] for scored in per_lang]
            failure = next((s["failure"] for s in steps if s["failure"]), None)
            means = [s["qe_mean"] for s in steps]
            out.append(
                {
                    "translations": [t for s in steps for t in s["translations"]],
                    "qe": [q for s in steps for q in s["qe"]],
                    "qe_components": [c for s in steps for c in s["qe_components"]],
                    "qe_mean": None if failure else sum(means) / len(means),
                    "per_lang_qe": dict(zip(self.tgt_langs, means)),
                    "failure": failure,
                }
            )
        return out


def with_bandit_qe_prompt(scorer):
    """``scorer`` whose ``llm-as-qe:`` components ask with the bandit paper's QE prompt (Appendix E); other QE
    backends are kept. Its own instances (the registry keys them by the prompt): MT-breaker's stay as they were."""
    from mtgauntlet.models import registry
    from mtgauntlet.models.llm_roles import LLMQualityEstimator

    qe = scorer.qe
    qe.backends = [
        registry.load("qe", c.backend_spec, prompt="bandit") if isinstance(b, LLMQualityEstimator) else b
        for c, b in zip(qe.components, qe.backends)
    ]
    return scorer
