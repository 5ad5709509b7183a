"""``smaug_nli``: the SMAUG paper's NLI check, with an NLI backend (``options.nli``): a bad hypothesis must
contradict the reference (over ``neg`` records: deleted or inserted content does not contradict it), a good one
must not (over every record); per phenomenon too. Without a backend its thresholds are reported NOT CHECKED."""

from __future__ import annotations

from typing import Any

from mtgauntlet.validators.record_checks import smaug_nli_rates
from mtgauntlet.validators.registry import Example, Metric, RecordSet, Rule, pair_example, rule


@rule
class SmaugNli(Rule):
    name = "smaug_nli"
    description = "NLI contradiction of SMAUG pairs (bad must contradict the reference, good must not)"
    kinds = ("smaug_pair",)
    record_check = "nli"
    switch = "nli"
    switched_off_note = ("nli", "not checked: no NLI backend configured (options.nli, e.g. hf:roberta-large-mnli)")
    metrics = (
        Metric(
            "smaug.nli.bad_contradicts_ref_rate",
            "share of `neg` records whose bad hypothesis contradicts the reference (argmax of the NLI classifier)",
        ),
        Metric("smaug.nli.good_contradicts_ref_rate", "share of records whose good hypothesis contradicts it"),
        Metric("smaug.nli.<phenomenon>.bad_contradicts_ref_rate", "the same over the records of one phenomenon"),
        Metric("smaug.nli.<phenomenon>.good_contradicts_ref_rate", "the same over the records of one phenomenon"),
    )
    defaults = {
        "smaug.nli.bad_contradicts_ref_rate": {"min": 0.8},
        "smaug.nli.good_contradicts_ref_rate": {"max": 0.2},
    }

    def measure(self, records: RecordSet) -> dict[str, Any]:
        nli = self.record_results(records, records.rows)
        if nli is None:
            return {}
        return smaug_nli_rates(records.rows, [b for b, _ in nli], [g for _, g in nli])

    @classmethod
    def example(cls) -> Example:
        rows = [
            {
                "src": "s",
                "ref": "The dog barks.",
                "good": "The dog is barking.",
                "bad": "The dog does not bark.",
                "phenomenon": "neg",
            }
        ]
        return Example("smaug_pair", pair_example(rows), info=("nli",))  # no NLI model ships: the note, no rate
