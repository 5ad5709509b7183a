"""Record stability under input edits (issue #26): how many records of the rows nobody touched stay byte-identical
when other rows of the input are edited, deleted or appended. Used by tests/builders/smaug/test_stability.py and
benchmarks/stability_smaug.py; works on any build's records keyed by ``source_id``."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

VOLATILE = ("created_at",)  # the build's timestamp, not part of what a record says


def edit_text(text: str) -> str:
    """A small real-world edit of a sentence (one word added before the final punctuation)."""
    body = text.rstrip()
    end = len(body)
    while end > 0 and body[end - 1] in ".!?…\"'»”)":
        end -= 1
    return body[:end] + " again" + text[end:]


def read_tsv(path: str | Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def write_tsv(path: str | Path, rows: Sequence[Mapping[str, str]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def variants(
    rows: Sequence[dict[str, str]], touched: Sequence[int], text_cols: Sequence[str], id_col: str = "id"
) -> dict[str, list[dict[str, str]]]:
    """The input with the ``touched`` rows edited (:func:`edit_text` on ``text_cols``), deleted, or copied to the
    end (edited, with new ids): ``{"edit": rows, "delete": rows, "append": rows}``."""

    def edited(r):
        return dict(r, **{c: edit_text(r[c]) for c in text_cols})

    return {
        "edit": [edited(r) if i in touched else r for i, r in enumerate(rows)],
        "delete": [r for i, r in enumerate(rows) if i not in touched],
        "append": list(rows)
        + [dict(edited(r), **{id_col: f"new-{r[id_col]}"}) for i, r in enumerate(rows) if i in touched],
    }


def record_bytes(rec: Mapping[str, Any]) -> str:
    """The record as canonical JSON without the volatile fields (what 'byte-identical' compares)."""
    return json.dumps(
        {k: v for k, v in rec.items() if k not in VOLATILE}, sort_keys=True, ensure_ascii=False, default=str
    )


def by_source(records: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for rec in records:
        out.setdefault(str(rec["source_id"]), []).append(record_bytes(rec))
    return {k: sorted(v) for k, v in out.items()}


def unchanged_share(
    before: Iterable[Mapping[str, Any]], after: Iterable[Mapping[str, Any]], untouched: Sequence[str]
) -> tuple[int, int]:
    """(records of the ``untouched`` source ids found byte-identical in ``after``, records of them in ``before``),
    counted per phenomenon-independent record: a record counts as kept when the same bytes are built again."""
    a, b = by_source(before), by_source(after)
    kept = total = 0
    for sid in untouched:
        old, new = a.get(str(sid), []), list(b.get(str(sid), []))
        total += len(old)
        for rec in old:
            if rec in new:
                new.remove(rec)
                kept += 1
    return kept, total


def per_phenomenon(
    before: Iterable[Mapping[str, Any]], after: Iterable[Mapping[str, Any]], untouched: Sequence[str]
) -> dict[str, tuple[int, int]]:
    """:func:`unchanged_share` for each phenomenon of a SMAUG build."""
    before, after = list(before), list(after)
    phenomena = sorted({r["phenomenon"] for r in before})
    return {
        ph: unchanged_share(
            [r for r in before if r["phenomenon"] == ph], [r for r in after if r["phenomenon"] == ph], untouched
        )
        for ph in phenomena
    }
