"""``labels``: how many distinct topics, domains and phenomena a set's records name."""

from __future__ import annotations

from typing import Any

from mtgauntlet.schema import KINDS
from mtgauntlet.validators import checks
from mtgauntlet.validators.registry import Example, Metric, RecordSet, Rule, pair_example, rule

COLUMNS = ("topic", "domain", "phenomenon")


@rule
class Labels(Rule):
    name = "labels"
    description = "distinct topics, domains and phenomena of the records"
    kinds = tuple(k for k, kind in KINDS.items() if any(c in kind.schema.names for c in COLUMNS))
    metrics = tuple(Metric(f"unique_{c}s", f"distinct non-null values of `{c}`") for c in COLUMNS)

    def applies(self, metric: str, kind: str) -> bool:
        column = metric.removeprefix("unique_").removesuffix("s")
        return kind in KINDS and column in KINDS[kind].schema.names

    def measure(self, records: RecordSet) -> dict[str, Any]:
        return {
            f"unique_{c}s": checks.unique_values(records.column(c)) for c in COLUMNS if c in records.table.column_names
        }

    @classmethod
    def example(cls) -> Example:
        phenomena = ("neg", "neg", "num")
        rows = [{"src": "s", "ref": "r", "good": "g", "bad": f"b{i}", "phenomenon": p} for i, p in enumerate(phenomena)]
        return Example("smaug_pair", pair_example(rows), expect={"unique_phenomenons": 2})
