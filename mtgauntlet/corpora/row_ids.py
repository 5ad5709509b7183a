"""The ``source_id`` of rows read by the ready-made layouts: the file's own id column, kept as written, else the
row's line; a blank id is refused (or skipped and counted), never replaced."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mtgauntlet.corpora.readers import RowSet
from mtgauntlet.errors import InputError


def row_id(row: dict[str, Any], key: str, path: str) -> str:
    """The row's own id from column ``key``, kept as written (``0`` and ``"0"`` are ids like any other); a missing
    or blank id is refused, naming file, line and field (never replaced by a line number or another column)."""
    value = row.get(key)
    if value is None or not str(value).strip():
        raise InputError("empty id", file=path, line=row.get("_line"), field=key)
    return str(value)


def id_column(rs: RowSet, keys: tuple[str, ...]) -> str | None:
    """The first of ``keys`` that the file has as a column (any row holding it), or None: rows then use their line."""
    return next((k for k in keys if any(k in r for r in rs.rows)), None)


def assign_ids(
    rs: RowSet,
    keys: tuple[str, ...],
    on_error: str,
    make: Callable[[dict[str, Any], str], str] = lambda row, value: value,
) -> None:
    """``source_id`` of every row: ``make(row, id)`` from the file's id column (the first of ``keys`` it has), else
    the row's line. A row with a blank id is refused, or skipped and counted ("empty id") when skipping."""
    key = id_column(rs, keys)
    rows = []
    for r in rs.rows:
        if key is None:
            r["source_id"] = str(r["_line"])
        else:
            try:
                r["source_id"] = make(r, row_id(r, key, rs.path))
            except InputError:
                if on_error != "skip":
                    raise
                rs.skipped.append((r["_line"], key, "empty id"))
                continue
        rows.append(r)
    rs.rows = rows
