"""Which records fail a validation rule, or were not checked, one by one.

``gauntlet validate`` reports set-level numbers; a reviewer wants the records behind them. The per-record
tests here are the row-level counterparts of :func:`mtgauntlet.validators.record_checks.schema_checks` and
:func:`mtgauntlet.validators.checks.length_stats` (a record flagged here is counted there), plus the
record's own ``checks``: a check stored as null was not run (e.g. SMAUG's NLI check without a backend).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from mtgauntlet.schema import checks_dict, get_kind
from mtgauntlet.validators.checks import (
    _words as word_count,  # the count length_stats uses
)

FAILED, NOT_CHECKED, OUTLIER = "failed", "not checked", "length outlier"


@dataclass(frozen=True)
class Flag:
    record_id: str
    status: str  # FAILED, NOT_CHECKED or OUTLIER
    reason: str  # one line, e.g. "null in non-null column bad" or "check nli_contradiction not run"
    rule: str | None = None  # the validation metric the flag counts towards


def record_flags(kind_name: str, table: pa.Table, metrics: dict[str, Any], text_col: str | None) -> list[Flag]:
    """Flags of every record of one kind; ``metrics`` are the kind's validation metrics (outlier bounds)."""
    kind = get_kind(kind_name)
    cols = table.column_names
    ids = [
        str(v) if v is not None else f"(row {i + 1}, no id)"
        for i, v in enumerate(table.column("id").to_pylist() if "id" in cols else [None] * table.num_rows)
    ]
    flags: list[Flag] = []
    for col in kind.non_null_columns():
        if col in cols and table.column(col).null_count:
            flags += [
                Flag(ids[i], FAILED, f"null in non-null column {col}", "values.null_violations")
                for i, v in enumerate(table.column(col).to_pylist())
                if v is None
            ]
    for col, allowed in kind.allowed.items():
        if col in cols:
            flags += [
                Flag(ids[i], FAILED, f"{col} = {v!r} is not one of {', '.join(allowed)}", "values.not_allowed")
                for i, v in enumerate(table.column(col).to_pylist())
                if v not in allowed
            ]
    seen = Counter(ids)
    flags += [Flag(i, FAILED, "duplicate id", "ids.duplicates") for i in sorted(seen) if seen[i] > 1]
    if text_col and text_col in cols:
        lo, hi = metrics.get("text.outlier_low"), metrics.get("text.outlier_high")
        for i, t in enumerate(table.column(text_col).to_pylist()):
            n = word_count(t or "")
            if n == 0:
                flags.append(Flag(ids[i], FAILED, f"empty {text_col}", "text.empty_rate"))
            elif lo is not None and hi is not None and not lo <= n <= hi:
                flags.append(
                    Flag(ids[i], OUTLIER, f"word count of {text_col} outside [{lo:g}, {hi:g}]", "text.outlier_rate")
                )
    if "checks" in cols:
        for i, value in enumerate(table.column("checks").to_pylist()):
            for name, v in checks_dict(value).items():
                if v is None:
                    flags.append(Flag(ids[i], NOT_CHECKED, f"build check {name} was not run", None))
    return flags


def summarize(flags: list[Flag]) -> list[dict[str, Any]]:
    """One row per (status, reason): flags grouped so that 41 'check X not run' read as one line."""
    groups: dict[tuple[str, str, str | None], list[str]] = {}
    for f in flags:
        key = (f.status, f.reason, f.rule)
        groups.setdefault(key, []).append(f.record_id)
    order = {FAILED: 0, NOT_CHECKED: 1, OUTLIER: 2}
    return [
        {"status": s, "reason": r, "rule": rule, "ids": list(dict.fromkeys(ids))}
        for (s, r, rule), ids in sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][1]))
    ]
