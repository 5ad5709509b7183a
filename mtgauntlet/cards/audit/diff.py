"""What a new version changes: records added / removed / replaced / changed (by id, or by content hash for kinds
without one, per kind) and every metric of the overview, validation and quality sections side by side with its
delta."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

import pyarrow as pa

from mtgauntlet.validators.validate import MAIN_TEXT

# never compared: when a record was written says nothing about its content
IGNORED_COLUMNS = {"created_at"}
# nor, in a content key, which run wrote it (a bandit pull's run_id names the search, not the pull)
KEY_IGNORED = IGNORED_COLUMNS | {"run_id"}


def content_key(row: dict[str, Any]) -> str:
    """A record's content hash (every column but when and by which run it was written): the key of kinds without
    an ``id``."""
    payload = {k: v for k, v in row.items() if k not in KEY_IGNORED}
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]


def rows_by_key(table: pa.Table) -> dict[str, dict[str, Any]]:
    """Records by id, or by content hash where the kind has no id (the n-th copy of a record keyed ``KEY#n``)."""
    rows = table.to_pylist()
    if "id" in table.column_names:
        return {str(r["id"]): r for r in rows}
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        key = base = content_key(r)
        n = 1
        while key in out:
            n += 1
            key = f"{base}#{n}"
        out[key] = {**r, "id": key}
    return out


def record_diff(new: dict[str, pa.Table], old: dict[str, pa.Table]) -> dict[str, dict[str, Any]]:
    """Per kind: records added (only in new), removed (only in old), replaced (an old record and the new one of
    the same source item and group, e.g. SMAUG's source_id and phenomenon, when exactly one of each) and changed
    (same id, some column differs: which). Kinds without an id are matched by content hash."""
    out = {}
    for kind in sorted(set(new) | set(old)):
        a = rows_by_key(new[kind]) if kind in new else {}
        b = rows_by_key(old[kind]) if kind in old else {}
        changed = {}
        for rid in sorted(set(a) & set(b)):
            cols = [
                c
                for c in sorted(set(a[rid]) | set(b[rid]))
                if c not in IGNORED_COLUMNS and a[rid].get(c) != b[rid].get(c)
            ]
            if cols:
                changed[rid] = cols
        text = MAIN_TEXT.get(kind) or ("text" if kind in new and "text" in new[kind].column_names else None)
        removed = [_brief(b[r], text) for r in sorted(set(b) - set(a))]
        added = [_brief(a[r], text) for r in sorted(set(a) - set(b))]
        replaced = _pair_replacements(added, removed)
        paired_new = {p["new"]["id"] for p in replaced}
        paired_old = {p["old"]["id"] for p in replaced}
        out[kind] = {
            "key": "id"
            if (kind in new and "id" in new[kind].column_names) or (kind in old and "id" in old[kind].column_names)
            else "content hash",
            "added": [r for r in added if r["id"] not in paired_new],
            "removed": [r for r in removed if r["id"] not in paired_old],
            "replaced": replaced,
            "changed": [{**_brief(a[r], text), "columns": cols} for r, cols in changed.items()],
            "unchanged": len(set(a) & set(b)) - len(changed),
        }
    return out


def _pair_replacements(added: list[dict[str, Any]], removed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """(old, new) pairs: the only removed and the only added record of one (source_id, group)."""

    def by_item(rows):
        out: dict[tuple, list[dict[str, Any]]] = {}
        for r in rows:
            if r["source_id"] is not None:
                out.setdefault((str(r["source_id"]), r["group"]), []).append(r)
        return out

    olds, news = by_item(removed), by_item(added)
    return [
        {"old": olds[k][0], "new": news[k][0]}
        for k in sorted(set(olds) & set(news), key=str)
        if len(olds[k]) == 1 and len(news[k]) == 1
    ]


def _brief(row: dict[str, Any], text_col: str | None) -> dict[str, Any]:
    return {
        "id": str(row.get("id")),
        "source_id": row.get("source_id"),
        "group": _group(row),
        "text": row.get(text_col) if text_col else None,
    }


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
        same = (
            (nv == ov)
            or (
                nv is not None
                and ov is not None
                and n is not None
                and o is not None
                and math.isclose(n, o, rel_tol=0, abs_tol=1e-12)
            )
            or (_nan(nv) and _nan(ov))
        )
        rows.append({"section": key[0], "metric": key[1], "old": ov, "new": nv, "delta": delta, "changed": not same})
    return rows


def _nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)
