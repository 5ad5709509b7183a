"""``roundtrip:<reverse translator spec>`` — QE by round-trip agreement.

Translate the hypothesis back into the source language and score chrF of the back-translation against
the source (0..100). Needs no reference and no trained model; it sees the translation, so it ranks
different translations of one source. Default reverse translator: the embedded one for the pair
(:func:`mtgauntlet.models.embedded.default_translator`): the packaged neural model for pt->en and en->pt
(``bergamot``), else Apertium. A round trip through a system favours that system's own output (a
translation it produced comes back closest to the source): use a reverse translator other than the
target system where one exists.
"""

from __future__ import annotations

from mtgauntlet.models.base import QualityEstimator


class RoundTripQE(QualityEstimator):
    description = "round-trip chrF: back-translate the hypothesis, compare with the source"
    options = None  # its argument is a translator spec

    def __init__(self, arg: str = ""):
        from mtgauntlet.models import registry

        self.reverse_spec = arg or None
        self.reverse = registry.load("translator", arg) if arg else None  # else chosen per language pair
        self.reverse_by_pair: dict[tuple[str, str], object] = {}

    def plan_calls(self, plan, sources, translations, src_lang, tgt_lang, times=1) -> None:
        """The back-translations' calls (of a paid reverse translator)."""
        if self.reverse is not None:
            plan.add_role(self.reverse, list(translations or sources), None, tgt_lang, src_lang, times)

    def reverse_for(self, tgt_lang: str, src_lang: str):
        """The reverse translator (target -> source) for one pair."""
        if self.reverse is not None:
            return self.reverse
        key = (tgt_lang, src_lang)
        if key not in self.reverse_by_pair:
            from mtgauntlet.models import registry
            from mtgauntlet.models.embedded import default_translator

            self.reverse_by_pair[key] = registry.load("translator", default_translator(tgt_lang, src_lang))
        return self.reverse_by_pair[key]

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        from sacrebleu.metrics import CHRF

        chrf = CHRF()
        back = self.reverse_for(tgt_lang, src_lang).translate(list(translations), tgt_lang, src_lang)
        return [chrf.sentence_score(b, [s]).score if t.strip() else 0.0 for s, t, b in zip(sources, translations, back)]
