"""``naturalness``: the LM naturalness of the main texts (``options.lm``: the embedded SmolLM2's mean token
log-probability, calibrated to 0..100; slow). Opt-in: while it is off its thresholds are left out of the report."""

from __future__ import annotations

from typing import Any

from mtgauntlet.validators.registry import MAIN_TEXT, Example, Metric, RecordSet, Rule, pair_example, rule


@rule
class Naturalness(Rule):
    name = "naturalness"
    description = "LM naturalness of the main texts (the embedded LLM)"
    kinds = tuple(MAIN_TEXT)
    record_check = "lm"
    switch = "lm"
    reports_unchecked = False
    switched_off_note = ("lm_naturalness", "not computed (options.lm: true runs the embedded LLM)")
    metrics = (
        Metric("lm_naturalness_mean", "mean LM naturalness (0..100) of the main texts"),
        Metric("lm_naturalness_below_30_rate", "share of main texts below 30"),
    )
    defaults = {"lm_naturalness_mean": {"min": 30.0}}

    def measure(self, records: RecordSet) -> dict[str, Any]:
        nat = self.record_results(records, records.texts)
        if nat is None:
            return {}
        return {
            "lm_naturalness_mean": sum(nat) / len(nat),
            "lm_naturalness_below_30_rate": sum(v < 30 for v in nat) / len(nat),
        }

    @classmethod
    def example(cls) -> Example:
        rows = [{"src": "s", "ref": "r", "good": "g", "bad": "The cat sat on the mat.", "phenomenon": "num"}]
        return Example("smaug_pair", pair_example(rows), info=("lm_naturalness",))  # off: the note, no LLM run
