"""``grammar``: rule-based grammar errors of the side of a set that should be fluent (SMAUG's good hypotheses,
MT-breaker's and the bandit's texts; Harper for English, Grammalecte for French where installed), with
``options.grammar`` or any ``grammar.*`` threshold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mtgauntlet.validators.registry import Example, Metric, RecordSet, Rule, pair_example, rule
from mtgauntlet.validators.rule_options import Options


@rule
class Grammar(Rule):
    name = "grammar"
    description = "grammar errors of the fluent side (SMAUG good, MT-breaker texts)"
    kinds = ("smaug_pair", "breaker_text", "topic_text")
    record_check = "grammar"
    switch = "grammar"
    metrics = (
        Metric("grammar.error_rate", "grammar errors per 100 words of the fluent side's texts with a checker"),
        Metric("grammar.flagged_rate", "share of those texts with a grammar error"),
        Metric("grammar.unchecked", "texts in a language without a grammar checker"),
    )

    def switched_on(self, options: Options, thresholded: Sequence[str] = ()) -> bool:
        return options.grammar or any(m.startswith("grammar.") for m in thresholded)

    def measure(self, records: RecordSet) -> dict[str, Any]:
        if not self.switched_on(records.options, records.thresholded):
            return {}
        from mtgauntlet.validators.grammar import flagged_records

        results = [r.get("grammar") for r in records.per_record]
        flagged, metrics = flagged_records(records.kind, records.rows, results)
        records.info["grammar_flagged"] = f"{len(flagged)} text(s) with grammar errors" if metrics else "no checker"
        return metrics

    @classmethod
    def example(cls) -> Example:
        rows = [
            {"src": "s", "ref": "r", "good": "I has a apple.", "bad": "b1", "phenomenon": "num"},  # 2 errors, 4 words
            {"src": "s", "ref": "r", "good": "This is fine.", "bad": "b2", "phenomenon": "num"},
        ]
        return Example(
            "smaug_pair",
            pair_example(rows),
            options={"grammar": True},
            expect={"grammar.error_rate": 100 * 2 / 7, "grammar.flagged_rate": 0.5, "grammar.unchecked": 0},
            info=("grammar_flagged",),
        )
