"""The diff section (``--against``): records added / removed / changed by id, every metric side by side."""

from __future__ import annotations

from typing import Any

from mtgauntlet.cards.audit.markup import (
    anchor,
    e,
    fmt_value,
    section,
    table,
    value_cell,
)
from mtgauntlet.cards.audit.textdiff import inline_diff

LISTED = 200  # records listed per change type and kind (the rest are counted)


def _preview(text: Any, n: int = 110) -> str:
    t = "" if text is None else str(text)
    return t if len(t) <= n else t[:n - 1] + "…"


def _record_rows(kind: str, items: list[dict[str, Any]], change: str, shown: set[str]) -> list[str]:
    rows = []
    for r in items[:LISTED]:
        rid = r["id"]
        link = f'<a href="#{anchor(kind, rid)}">{e(rid)}</a>' if change != "removed" and rid in shown else e(rid)
        extra = ""
        if r.get("replaces"):
            extra = f' <span class="note">replaces {e(", ".join(r["replaces"]))}</span>'
        if r.get("columns"):
            extra = f' <span class="note">columns: {e(", ".join(r["columns"]))}</span>'
        if isinstance(r.get("old_text"), str) and isinstance(r.get("text"), str):
            text = inline_diff(r["old_text"], r["text"])  # against the record it replaces
        else:
            text = e(_preview(r.get("text")))
        rows.append(f'<tr data-diff="{e(change)}" data-kind="{e(kind)}" data-id="{e(rid)}"><td class="ids">{link}</td>'
                    f'<td>{e(r.get("group") or "")}</td><td>{text}{extra}</td></tr>')
    if len(items) > LISTED:
        rows.append(f'<tr><td colspan="3" class="note">… and {len(items) - LISTED} more</td></tr>')
    return rows


def _delta(row: dict[str, Any]) -> str:
    d = row["delta"]
    if d is None:
        return '<td class="num na">' + ("changed" if row["changed"] else "") + "</td>"
    sign = "+" if d > 0 else ""
    return f'<td class="num">{sign}{e(fmt_value(d))}</td>'


def _metric_rows(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in rows:
        key = f"{r['section']}:{r['metric']}"
        out.append(f'<tr class="{"changed" if r["changed"] else ""}"><td>{e(r["section"])}</td><td>{e(r["metric"])}</td>'
                   f'{value_cell(r["old"], key, "data-old")}{value_cell(r["new"], key, "data-new")}{_delta(r)}</tr>')
    return out


def diff(diff_data: dict[str, Any], old_label: str, shown_ids: dict[str, list[str]]) -> str:
    body = [(f"<p>Against <b>{e(old_label)}</b>. Records are matched by id (a content hash): a record whose content "
             "changed gets a new id and shows as removed + added; <i>changed</i> means same id, other columns differ "
             "(the time a record was written is not compared).</p>")]
    summary = []
    for kind, d in diff_data["records"].items():
        summary.append(f'<tr><td><code>{e(kind)}</code></td>{value_cell(len(d["added"]), f"{kind}:added", "data-diff-count")}'
                       f'{value_cell(len(d["removed"]), f"{kind}:removed", "data-diff-count")}'
                       f'{value_cell(len(d["changed"]), f"{kind}:changed", "data-diff-count")}'
                       f'{value_cell(d["unchanged"], f"{kind}:unchanged", "data-diff-count")}</tr>')
    body.append(table(["kind", "added", "removed", "changed", "unchanged"], summary, num_cols=(1, 2, 3, 4)))
    for kind, d in diff_data["records"].items():
        shown = set(shown_ids.get(kind, []))
        for change in ("added", "removed", "changed"):
            if d[change]:
                body.append(f'<details{" open" if len(d[change]) <= 20 else ""}><summary><code>{e(kind)}</code>: '
                            f'{len(d[change])} {change}</summary>'
                            + table(["id", "group", "text, as an edit of the record it replaces" if change == "added" else "text"], _record_rows(kind, d[change], change, shown)) + "</details>")
    rows = diff_data["metrics"]
    changed = [r for r in rows if r["changed"]]
    body.append(f"<h3>Metrics: {len(changed)} of {len(rows)} changed</h3>")
    header = ["section", "metric", "old", "new", "Δ"]
    body.append(table(header, _metric_rows(changed), num_cols=(2, 3, 4)) or '<p class="note">No metric changed.</p>')
    body.append(f"<details><summary>All {len(rows)} metrics side by side</summary>"
                + table(header, _metric_rows(rows), num_cols=(2, 3, 4)) + "</details>")
    return section("diff", "6. Diff", "".join(body))
