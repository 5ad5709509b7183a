"""``length``: words and characters of the kind's main text, empty texts and length outliers (beyond ``iqr_k``
interquartile ranges)."""

from __future__ import annotations

from typing import Any

from mtgauntlet.validators.checks import length_stats
from mtgauntlet.validators.registry import MAIN_TEXT, Example, Metric, RecordSet, Rule, pair_example, rule

_STATS = {
    "words_mean": "mean words of the main text",
    "words_min": "fewest words of a main text",
    "words_max": "most words of a main text",
    "chars_mean": "mean characters of the main text",
    "empty_rate": "share of records whose main text has no word",
    "outlier_rate": "share of records whose word count lies beyond `options.iqr_k` interquartile ranges",
    "outlier_low": "the low outlier bound (words)",
    "outlier_high": "the high outlier bound (words)",
}


@rule
class Length(Rule):
    name = "length"
    description = "words and characters of the main text, empty texts and length outliers"
    kinds = tuple(MAIN_TEXT)
    metrics = tuple(Metric(f"text.{k}", doc) for k, doc in _STATS.items())
    defaults = {"text.empty_rate": {"max": 0}}

    def measure(self, records: RecordSet) -> dict[str, Any]:
        return length_stats(records.texts, "text", records.options.iqr_k) if records.texts else {}

    @classmethod
    def example(cls) -> Example:
        bads = ["I have three cats.", "She was not there.", "..."]
        rows = [{"src": "s", "ref": "r", "good": "g", "bad": b, "phenomenon": "num"} for b in bads]
        return Example(
            "smaug_pair",
            pair_example(rows),
            expect={"text.words_mean": 8 / 3, "text.words_min": 0, "text.words_max": 4, "text.empty_rate": 1 / 3},
        )
