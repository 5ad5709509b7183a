"""The diff section (``--against``): records added / removed / replaced / changed, every metric side by side."""

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
    return t if len(t) <= n else t[: n - 1] + "…"


def _record_rows(kind: str, items: list[dict[str, Any]], change: str, shown: set[str]) -> list[str]:
    rows = []
    for r in items[:LISTED]:
        rid = r["id"]
        link = f'<a href="#{anchor(kind, rid)}">{e(rid)}</a>' if change != "removed" and rid in shown else e(rid)
        extra = ""
        if r.get("columns"):
            extra = f' <span class="note">columns: {e(", ".join(r["columns"]))}</span>'
        text = e(_preview(r.get("text")))
        rows.append(
            f'<tr data-diff="{e(change)}" data-kind="{e(kind)}" data-id="{e(rid)}"><td class="ids">{link}</td>'
            f"<td>{e(r.get('group') or '')}</td><td>{text}{extra}</td></tr>"
        )
    if len(items) > LISTED:
        rows.append(f'<tr><td colspan="3" class="note">… and {len(items) - LISTED} more</td></tr>')
    return rows


def _replaced_rows(kind: str, pairs: list[dict[str, Any]], shown: set[str]) -> list[str]:
    rows = []
    for p in pairs[:LISTED]:
        old, new = p["old"], p["new"]
        link = f'<a href="#{anchor(kind, new["id"])}">{e(new["id"])}</a>' if new["id"] in shown else e(new["id"])
        if isinstance(old.get("text"), str) and isinstance(new.get("text"), str):
            text = inline_diff(old["text"], new["text"])
        else:
            text = e(_preview(new.get("text")))
        rows.append(
            f'<tr data-diff="replaced" data-kind="{e(kind)}" data-id="{e(new["id"])}" '
            f'data-old-id="{e(old["id"])}"><td class="ids">{e(old["id"])} → {link}</td>'
            f"<td>{e(new.get('source_id'))}</td><td>{e(new.get('group') or '')}</td><td>{text}</td></tr>"
        )
    if len(pairs) > LISTED:
        rows.append(f'<tr><td colspan="4" class="note">… and {len(pairs) - LISTED} more</td></tr>')
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
        out.append(
            f'<tr class="{"changed" if r["changed"] else ""}"><td>{e(r["section"])}</td><td>{e(r["metric"])}</td>'
            f"{value_cell(r['old'], key, 'data-old')}{value_cell(r['new'], key, 'data-new')}{_delta(r)}</tr>"
        )
    return out


def diff(diff_data: dict[str, Any], old_label: str, shown_ids: dict[str, list[str]]) -> str:
    body = [
        (
            f"<p>Against <b>{e(old_label)}</b>. Records are matched by id (a content hash), or by a hash of their "
            "content where the kind has no id (e.g. bandit pulls): a record whose content changed shows as removed + "
            "added, or as <i>replaced</i> when it is the only old and the only new record of one source item and "
            "group (SMAUG: same source_id and phenomenon; the edit is shown against the old record); <i>changed</i> "
            "means same id, other columns differ (the time a record was written is not compared).</p>"
        )
    ]
    summary = []
    changes = ("added", "removed", "replaced", "changed", "unchanged")
    for kind, d in diff_data["records"].items():
        summary.append(
            f"<tr><td><code>{e(kind)}</code></td><td>{e(d.get('key', 'id'))}</td>"
            + "".join(
                value_cell(d[c] if c == "unchanged" else len(d[c]), f"{kind}:{c}", "data-diff-count") for c in changes
            )
            + "</tr>"
        )
    body.append(table(["kind", "matched by", *changes], summary, num_cols=(2, 3, 4, 5, 6)))
    for kind, d in diff_data["records"].items():
        shown = set(shown_ids.get(kind, []))
        if d["replaced"]:
            body.append(
                f"<details{' open' if len(d['replaced']) <= 20 else ''}><summary><code>{e(kind)}</code>: "
                f"{len(d['replaced'])} replaced</summary>"
                + table(
                    ["old id → new id", "source item", "group", "text: the new record as an edit of the old"],
                    _replaced_rows(kind, d["replaced"], shown),
                )
                + "</details>"
            )
        for change in ("added", "removed", "changed"):
            if d[change]:
                body.append(
                    f"<details{' open' if len(d[change]) <= 20 else ''}><summary><code>{e(kind)}</code>: "
                    f"{len(d[change])} {change}</summary>"
                    + table(["id", "group", "text"], _record_rows(kind, d[change], change, shown))
                    + "</details>"
                )
    rows = diff_data["metrics"]
    changed = [r for r in rows if r["changed"]]
    body.append(f"<h3>Metrics: {len(changed)} of {len(rows)} changed</h3>")
    header = ["section", "metric", "old", "new", "Δ"]
    body.append(table(header, _metric_rows(changed), num_cols=(2, 3, 4)) or '<p class="note">No metric changed.</p>')
    body.append(
        f"<details><summary>All {len(rows)} metrics side by side</summary>"
        + table(header, _metric_rows(rows), num_cols=(2, 3, 4))
        + "</details>"
    )
    return section("diff", "6. Diff", "".join(body))
