"""Schema and value checks (fast, pyarrow only) and SMAUG NLI contradiction rules."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from mtgauntlet.schema import RecordKind


def schema_checks(table: pa.Table, kind: RecordKind) -> tuple[dict[str, float], list[str]]:
    """Schema equality, non-null columns, allowed values, unique ids. Returns (metrics, problems)."""
    problems = []
    expected = kind.schema
    for f in expected:
        if f.name not in table.column_names:
            problems.append(f"missing column {f.name}")
        elif not table.schema.field(f.name).type.equals(f.type):
            problems.append(f"column {f.name}: type {table.schema.field(f.name).type}, expected {f.type}")
    extra = [c for c in table.column_names if c not in expected.names]
    problems += [f"unexpected column {c}" for c in extra]
    metrics: dict[str, float] = {"schema.valid": float(not problems)}
    nulls = 0
    for col in kind.non_null_columns():
        if col in table.column_names:
            n = table.column(col).null_count
            if n:
                problems.append(f"{n} null value(s) in non-null column {col}")
            nulls += n
    metrics["values.null_violations"] = float(nulls)
    bad_values = 0
    for col, allowed in kind.allowed.items():
        if col in table.column_names:
            mask = pc.invert(pc.is_in(table.column(col), value_set=pa.array(list(allowed))))
            n = pc.sum(pc.cast(pc.fill_null(mask, True), pa.int64())).as_py() or 0
            if n:
                problems.append(f"{n} value(s) of {col} outside {list(allowed)}")
            bad_values += n
    metrics["values.not_allowed"] = float(bad_values)
    if "id" in table.column_names:
        n_unique = pc.count_distinct(table.column("id")).as_py()
        metrics["ids.duplicates"] = float(table.num_rows - n_unique)
        if table.num_rows != n_unique:
            problems.append(f"{table.num_rows - n_unique} duplicate id(s)")
    return metrics, problems


def span_identity_holds(ref: str, bad: str, start: int | None, end: int | None, replacement: str | None) -> bool:
    """Does the recorded span describe the whole edit: ``ref[:start] + replacement + ref[end:] == bad``?"""
    if start is None or end is None or replacement is None or not 0 <= start <= end <= len(ref):
        return False
    return ref[:start] + replacement + ref[end:] == bad


def smaug_record_metrics(rows: list[dict[str, Any]]) -> dict[str, float]:
    """What the stored SMAUG records say about themselves (no model needed):

    - ``smaug.span_mismatches``: records whose span does not describe the edit
      (``ref[:span_start] + span_replacement + ref[span_end:] != bad``);
    - ``smaug.good_equals_ref_rate``: records whose good hypothesis equals the reference (up to whitespace;
      the paper keeps only good != reference);
    - ``smaug.nli.not_checked_rate``: ``neg`` records whose NLI contradiction check did not run
      (``checks.nli_contradiction`` null) — only when the set has ``neg`` records."""
    from mtgauntlet.schema import checks_dict

    if not rows:
        return {}
    out = {
        "smaug.span_mismatches": float(
            sum(
                not span_identity_holds(
                    r["ref"], r["bad"], r.get("span_start"), r.get("span_end"), r.get("span_replacement")
                )
                for r in rows
            )
        )
    }
    out["smaug.good_equals_ref_rate"] = sum(r["good"].split() == r["ref"].split() for r in rows) / len(rows)
    neg = [checks_dict(r.get("checks")).get("nli_contradiction") for r in rows if r["phenomenon"] == "neg"]
    if neg:
        out["smaug.nli.not_checked_rate"] = sum(v is None or v != v for v in neg) / len(neg)
    return out


def smaug_nli_rules(rows: list[dict[str, Any]], nli) -> dict[str, float]:
    """bad must contradict ref (argmax contradiction), good must not.

    ``smaug.nli.bad_contradicts_ref_rate`` is over ``neg`` records only: the paper's NLI check is the
    negation's validation, and deleted or inserted content does not contradict the reference, so pooling
    every phenomenon would fail faithful sets. ``smaug.nli.good_contradicts_ref_rate`` is over all
    records; per-phenomenon rates of both are reported too."""
    if not rows:
        return {}
    return smaug_nli_rates(rows, *smaug_nli_predictions(rows, nli))


def smaug_nli_predictions(rows: list[dict[str, Any]], nli) -> tuple[list[dict], list[dict]]:
    """NLI probabilities of (ref, bad) and of (ref, good), one per record."""
    refs = [r["ref"] for r in rows]
    return nli.predict(refs, [r["bad"] for r in rows]), nli.predict(refs, [r["good"] for r in rows])


def smaug_nli_rates(rows: list[dict[str, Any]], bad: list[dict], good: list[dict]) -> dict[str, float]:
    """The rates of :func:`smaug_nli_rules` from each record's NLI probabilities (``bad``, ``good``)."""
    out: dict[str, float] = {}
    per: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for r, b, g in zip(rows, bad, good):
        per[r["phenomenon"]].append(
            (max(b, key=b.__getitem__) == "contradiction", max(g, key=g.__getitem__) == "contradiction")
        )
    allv = [x for v in per.values() for x in v]
    if per.get("neg"):
        out["smaug.nli.bad_contradicts_ref_rate"] = sum(b for b, _ in per["neg"]) / len(per["neg"])
    out["smaug.nli.good_contradicts_ref_rate"] = sum(g for _, g in allv) / len(allv)
    for ph, v in sorted(per.items()):
        out[f"smaug.nli.{ph}.bad_contradicts_ref_rate"] = sum(b for b, _ in v) / len(v)
        out[f"smaug.nli.{ph}.good_contradicts_ref_rate"] = sum(g for _, g in v) / len(v)
    return out
