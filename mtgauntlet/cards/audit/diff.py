"""What a new version changes: records added / removed / changed (by id, per kind) and every metric of the
overview, validation and quality sections side by side with its delta."""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa

from mtgauntlet.validators.validate import MAIN_TEXT

# never compared: when a record was written says nothing about its content
IGNORED_COLUMNS = {"created_at"}


def _rows_by_id(table: pa.Table) -> dict[str, dict[str, Any]]:
    if "id" not in table.column_names:
        return {}
    return {str(r["id"]): r for r in table.to_pylist()}


def record_diff(new: dict[str, pa.Table], old: dict[str, pa.Table]) -> dict[str, dict[str, Any]]:
    """Per kind: ids added (only in new), removed (only in old), changed (in both, some column differs: which)."""
    out = {}
    for kind in sorted(set(new) | set(old)):
        a = _rows_by_id(new[kind]) if kind in new else {}
        b = _rows_by_id(old[kind]) if kind in old else {}
        changed = {}
        for rid in sorted(set(a) & set(b)):
            cols = [c for c in sorted(set(a[rid]) | set(b[rid])) if c not in IGNORED_COLUMNS
                    and a[rid].get(c) != b[rid].get(c)]
            if cols:
                changed[rid] = cols
        text = MAIN_TEXT.get(kind)
        removed = [_brief(b[r], text) for r in sorted(set(b) - set(a))]
        by_item: dict[tuple, list[str]] = {}
        for r in removed:
            if r["source_id"] is not None:
                by_item.setdefault((r["source_id"], r["group"]), []).append(r["id"])
        added = [_brief(a[r], text) for r in sorted(set(a) - set(b))]
        old_text = {r["id"]: r["text"] for r in removed}
        for r in added:  # same source item and group, other content: the new record replaces the old one
            r["replaces"] = by_item.get((r["source_id"], r["group"]), []) if r["source_id"] is not None else []
            if len(r["replaces"]) == 1:
                r["old_text"] = old_text[r["replaces"][0]]
        out[kind] = {
            "added": added,
            "removed": removed,
            "changed": [{**_brief(a[r], text), "columns": cols} for r, cols in changed.items()],
            "unchanged": len(set(a) & set(b)) - len(changed),
        }
    return out


def _brief(row: dict[str, Any], text_col: str | None) -> dict[str, Any]:
    return {"id": str(row.get("id")), "source_id": row.get("source_id"), "group": _group(row),
            "text": row.get(text_col) if text_col else None}


def _group(row: dict[str, Any]) -> str | None:
    for col in ("phenomenon", "method", "topic", "domain", "lp"):
        if row.get(col) is not None:
            return str(row[col])
    return None


def flat_metrics(data: dict[str, Any]) -> dict[tuple[str, str], Any]:
    """(section, metric name) -> value over the overview counts, validation metrics and rule statuses, quality."""
    out: dict[tuple[str, str], Any] = {}
    for kind, counts in data["overview"]["counts"].items():
        for label, values in counts.items():
            for key, n in values.items():
                out[("overview", f"{kind} · {label}" + ("" if label == "records" else f" · {key}"))] = n
    for kind, entry in data["validation"]["kinds"].items():
        for metric, value in entry["metrics"].items():
            out[("validation", f"{kind} · {metric}")] = value
    for rule in data["validation"]["rules"]:
        out[("validation", f"{rule['kind']} · rule {rule['metric']} ({rule['threshold']})")] = rule["status"].upper()
    for kind, q in data["quality"].items():
        for m in q["measures"]:
            out[("quality", f"{kind} · {m['label']}")] = m["value"]
    return out


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return None if isinstance(v, float) and math.isnan(v) else float(v)


def metric_diff(new: dict[str, Any], old: dict[str, Any]) -> list[dict[str, Any]]:
    """Every metric of both versions: old, new, delta (numbers) and whether it changed; sections in page order."""
    a, b = flat_metrics(new), flat_metrics(old)
    order = {"overview": 0, "validation": 1, "quality": 2}
    rows = []
    for key in sorted(set(a) | set(b), key=lambda k: (order[k[0]], k[1])):
        nv, ov = a.get(key), b.get(key)
        n, o = _num(nv), _num(ov)
        delta = n - o if n is not None and o is not None else None
        same = (nv == ov) or (nv is not None and ov is not None and n is not None and o is not None
                              and math.isclose(n, o, rel_tol=0, abs_tol=1e-12)) or (_nan(nv) and _nan(ov))
        rows.append({"section": key[0], "metric": key[1], "old": ov, "new": nv, "delta": delta, "changed": not same})
    return rows


def _nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)
