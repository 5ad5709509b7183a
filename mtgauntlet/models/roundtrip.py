"""``roundtrip:<reverse translator spec>`` — QE by round-trip agreement.

Translate the hypothesis back into the source language and score chrF of the back-translation against
the source (0..100). Needs no reference and no trained model; it sees the translation, so it ranks
different translations of one source. Default reverse translator: Apertium for the pair.
"""

from __future__ import annotations

from mtgauntlet.models.base import QualityEstimator


class RoundTripQE(QualityEstimator):
    description = "round-trip chrF: back-translate the hypothesis, compare with the source"

    def __init__(self, arg: str = ""):
        from mtgauntlet.models import registry

        self.reverse = registry.load("translator", arg or None)

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        from sacrebleu.metrics import CHRF

        chrf = CHRF()
        back = self.reverse.translate(list(translations), tgt_lang, src_lang)
        return [chrf.sentence_score(b, [s]).score if t.strip() else 0.0
                for s, t, b in zip(sources, translations, back)]
