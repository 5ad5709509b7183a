"""``schema``: the columns and types of the kind's schema, non-null columns, allowed values and unique ids (every
kind; pyarrow only)."""

from __future__ import annotations

from typing import Any

from mtgauntlet.schema import KINDS, get_kind
from mtgauntlet.validators.record_checks import schema_checks
from mtgauntlet.validators.registry import Example, Metric, RecordSet, Rule, pair_example, rule


@rule
class Schema(Rule):
    name = "schema"
    description = "the kind's schema, its non-null columns, allowed values and unique ids"
    kinds = tuple(KINDS)
    metrics = (
        Metric("n", "records of the kind"),
        Metric("schema.valid", "1 when the columns and their types are exactly the kind's schema, else 0"),
        Metric("values.null_violations", "null values in columns that may not be null"),
        Metric("values.not_allowed", "values outside a column's allowed values (an unknown phenomenon, protocol)"),
        Metric("ids.duplicates", "records whose id an earlier record has"),
    )
    defaults = {
        "schema.valid": {"equals": 1.0},
        "values.null_violations": {"max": 0},
        "values.not_allowed": {"max": 0},
        "ids.duplicates": {"max": 0},
    }

    def measure(self, records: RecordSet) -> dict[str, Any]:
        metrics, problems = schema_checks(records.table, get_kind(records.kind))
        records.problems.extend(problems)
        return {**metrics, "n": records.table.num_rows}

    @classmethod
    def example(cls) -> Example:
        pair = {"src": "Tengo dos gatos.", "ref": "I have two cats.", "good": "I have two cats."}
        return Example(
            "smaug_pair",
            pair_example(
                [
                    {**pair, "id": "x", "bad": "I have three cats.", "phenomenon": "num"},
                    {**pair, "id": "x", "bad": "I have two dogs.", "phenomenon": "pets"},  # same id, unknown value
                ]
            ),
            expect={
                "n": 2,
                "schema.valid": 1.0,
                "values.null_violations": 0,
                "values.not_allowed": 1,
                "ids.duplicates": 1,
            },
        )
