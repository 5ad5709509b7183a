"""Every number of an audit page, gathered once into plain data (JSON-able), before any HTML is written.

Validation is ``gauntlet validate``'s own :func:`~mtgauntlet.validators.validate.validate` (same rules, same
values); counts are taken from the records as the catalog sees them.
"""

from __future__ import annotations

import datetime as _dt
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from mtgauntlet.cards.audit import flags as flagmod
from mtgauntlet.cards.audit.methods import method_data
from mtgauntlet.cards.audit.quality import distributions, kind_quality, phenomenon_quality
from mtgauntlet.cards.audit.source import AuditSource
from mtgauntlet.validators.rules import Rules
from mtgauntlet.validators.validate import MAIN_TEXT

# (column, label) counted in the overview, in this order
COUNTED = (
    ("phenomenon", "phenomenon"),
    ("method", "variant"),
    ("topic", "topic"),
    ("domain", "domain"),
    ("estimator", "estimator"),
    ("protocol", "protocol"),
    ("source_dataset", "source"),
)
# the column examples are grouped (and filtered) by
GROUP_BY = {
    "smaug_pair": "phenomenon",
    "breaker_text": "method",
    "topic_text": "topic",
    "selected_text": "domain",
    "bandit_pull": "topic",
    "judgment": "lp",
}


@dataclass
class AuditOptions:
    rules: Rules | None = None
    examples: int = 5  # records shown per group
    flagged_examples: int = 25  # flagged records shown per group, beyond the sample
    seed: int = 13


def language_pairs(table: pa.Table) -> list[str]:
    cols = table.column_names
    if "src_lang" in cols:
        tgt = table.column("tgt_lang").to_pylist() if "tgt_lang" in cols else [None] * table.num_rows
        return [f"{s}-{t}" if t else str(s) for s, t in zip(table.column("src_lang").to_pylist(), tgt)]
    if "lp" in cols:
        return [str(v) for v in table.column("lp").to_pylist()]
    return []


def kind_counts(table: pa.Table) -> dict[str, dict[str, int]]:
    """records, then per language pair / phenomenon / variant / topic / … (labels as the page shows them)."""
    out: dict[str, dict[str, int]] = {"records": {"all": table.num_rows}}
    lps = language_pairs(table)
    if lps:
        out["language pair"] = dict(sorted(Counter(lps).items()))
    for col, label in COUNTED:
        if col in table.column_names:
            c = Counter("(none)" if v is None else str(v) for v in table.column(col).to_pylist())
            out[label] = dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))
    return out


def group_column(kind: str, table: pa.Table) -> str | None:
    col = GROUP_BY.get(kind)
    if col in table.column_names and table.column(col).null_count < table.num_rows:
        return col
    for alt in ("estimator", "lp", "src_lang"):
        if alt in table.column_names:
            return alt
    return None


def _jsonable(v: Any) -> Any:
    if isinstance(v, (_dt.datetime, _dt.date)):
        return v.isoformat()
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    return v


def examples(
    kind: str, table: pa.Table, flagged: dict[str, list[flagmod.Flag]], opts: AuditOptions, source: str | None = None
) -> dict[str, Any]:
    """Per group: a seeded sample of records plus the flagged ones (capped), each with its flags; ``source``: the
    one source dataset the build states, for records that do not name theirs (bandit pulls)."""
    col = group_column(kind, table)
    groups = (
        [str(v) if v is not None else "(none)" for v in table.column(col).to_pylist()]
        if col
        else ["all"] * table.num_rows
    )
    ids = (
        [str(i) for i in table.column("id").to_pylist()]
        if "id" in table.column_names
        else [f"row-{i + 1}" for i in range(table.num_rows)]
    )
    members: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        members.setdefault(g, []).append(i)
    rng = random.Random(opts.seed)
    out: dict[str, Any] = {"group_by": col, "groups": {}}
    for g in sorted(members):
        rows = members[g]
        chosen = sorted(rng.sample(rows, min(opts.examples, len(rows))))
        extra = [i for i in rows if ids[i] in flagged and i not in chosen][: opts.flagged_examples]
        shown = sorted(set(chosen) | set(extra))
        recs = []
        for i in shown:
            rec = _jsonable(table.slice(i, 1).to_pylist()[0])
            rec["_flags"] = [{"status": f.status, "reason": f.reason} for f in flagged.get(ids[i], [])]
            rec["_id"] = ids[i]
            if source and not rec.get("source_dataset"):
                rec["_source"] = source
            recs.append(rec)
        out["groups"][g] = {"total": len(rows), "flagged": sum(ids[i] in flagged for i in rows), "records": recs}
    return out


def grammar_flagged(kind: str, table: pa.Table) -> dict[str, Any]:
    """The fluent side's texts with grammar errors (Harper for English, Grammalecte for French), as the
    ``grammar.*`` rules count them; spelling hits (names) are not errors."""
    from mtgauntlet.validators.grammar import flagged_records

    flagged, metrics = flagged_records(kind, table.to_pylist())
    return {"records": flagged, "metrics": metrics}


def collect(
    src: AuditSource, opts: AuditOptions | None = None, step: Callable[[str], None] = lambda _: None
) -> dict[str, Any]:
    """The audit's data: overview, validation (with per-record flags), quality, examples and method plots."""
    from mtgauntlet.validators.validate import validate

    opts = opts or AuditOptions()
    rules = opts.rules or Rules.default()
    report = validate(src.path, rules)
    step("validation")
    data: dict[str, Any] = {
        "overview": {"counts": {k: kind_counts(t) for k, t in src.tables.items()}},
        "validation": report,
        "flags": {},
        "quality": {},
        "examples": {},
    }
    shown_ids: dict[str, set[str]] = {}
    source = src.sources[0] if src.sources and len(src.sources) == 1 else None
    for kind, table in sorted(src.tables.items()):
        metrics = report["kinds"].get(kind, {}).get("metrics", {})
        text_col = MAIN_TEXT.get(kind)
        kind_flags = flagmod.record_flags(kind, table, metrics, text_col)
        by_id: dict[str, list[flagmod.Flag]] = {}
        for f in kind_flags:
            by_id.setdefault(f.record_id, []).append(f)
        data["examples"][kind] = examples(kind, table, by_id, opts, source)
        shown_ids[kind] = {r["_id"] for g in data["examples"][kind]["groups"].values() for r in g["records"]}
        data["flags"][kind] = {"summary": flagmod.summarize(kind_flags), "records": len(by_id)}
        data["quality"][kind] = {
            "column": text_col if text_col in table.column_names else None,
            "measures": kind_quality(kind, table, text_col, metrics, rules.options),
            "distributions": distributions(kind, table),
            "phenomena": phenomenon_quality(table),
            "grammar": grammar_flagged(kind, table) if rules.grammar_on() else None,
        }
        step(f"quality {kind}")
    data["shown_ids"] = {k: sorted(v) for k, v in shown_ids.items()}
    data["methods"] = method_data(src)
    step("method plots")
    return data
