"""Free-text search over the records of an audit page, client-side: an index of every record (up to a cap) is
embedded as JSON (``<script type="application/json">``, ``<`` and ``>`` escaped so no text can close it), and the
page's own script matches a query against each record's id, group, source item and texts. Results are built
with ``textContent`` (never as HTML); nothing is loaded from the network. Without scripts the box stays hidden."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from mtgauntlet.cards.audit.markup import anchor, e, section

MAX_RECORDS = 20_000  # records indexed (the rest are counted)
TEXT_COLUMNS = ("src", "ref", "good", "bad", "text", "seed", "tgt", "span_original", "span_replacement")
GROUP_COLUMNS = ("phenomenon", "method", "topic", "domain", "estimator", "lp")


def search_index(tables: dict[str, pa.Table], shown_ids: dict[str, list[str]]) -> tuple[list[dict[str, Any]], int]:
    """(entries, records in all): kind, id, group, source item, texts, and the anchor of the record's example."""
    entries: list[dict[str, Any]] = []
    total = 0
    for kind, table in sorted(tables.items()):
        total += table.num_rows
        shown = set(shown_ids.get(kind, []))
        cols = [c for c in (*TEXT_COLUMNS, *GROUP_COLUMNS, "id", "source_id") if c in table.column_names]
        for i, r in enumerate(table.select(cols).to_pylist()):
            if len(entries) >= MAX_RECORDS:
                break
            rid = str(r["id"]) if r.get("id") is not None else f"row-{i + 1}"
            group = next((str(r[c]) for c in GROUP_COLUMNS if r.get(c) is not None), "")
            entries.append(
                {
                    "k": kind,
                    "i": rid,
                    "g": group,
                    "s": "" if r.get("source_id") is None else str(r["source_id"]),
                    "t": [str(r[c]) for c in TEXT_COLUMNS if r.get(c)],
                    "a": anchor(kind, rid) if rid in shown else None,
                }
            )
    return entries, total


def embed_json(value: Any) -> str:
    """JSON safe inside a <script> element: no '<', '>' or '&' as such (a text cannot end the element)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def search_section(entries: list[dict[str, Any]], total: int) -> str:
    capped = f" The first {len(entries):,} of {total:,} records are indexed." if len(entries) < total else ""
    return section(
        "search",
        "Search records",
        (
            f'<p class="note">Find records by any word of their texts, id, group or source item ({total:,} records).'
            f"{e(capped)} Matches link to their example when it is shown. Needs scripts; everything stays in this "
            "file.</p>"
            '<div class="search" hidden><input type="search" id="record-search" placeholder="search the records" '
            'aria-label="search the records" autocomplete="off"> <span class="note" id="search-count"></span>'
            '<ol id="search-results"></ol></div>'
            f'<script type="application/json" id="search-index">{embed_json(entries)}</script>'
        ),
    )
