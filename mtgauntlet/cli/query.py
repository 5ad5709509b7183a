"""`gauntlet query`: read-only SQL over the DuckDB catalog of releases / build outputs.

Results come from DuckDB as Arrow, so NULL and NaN stay apart and every value is written exactly:

* ``json``: an array of objects; floats round-trip (shortest repr), NaN and infinities are the strings
  ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` (JSON has no such numbers), decimals are strings, times ISO 8601,
  bytes base64; NULL is ``null``;
* ``csv``: the same values, nested columns (lists, structs) as JSON text; NULL is an empty field;
* ``table``: for reading; NULL is ``NULL`` whatever the column's type, floats shown to 4 significant digits.
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import json
import math
import sys
from decimal import Decimal
from typing import Any

import typer

from mtgauntlet.api.catalog_options import QueryOptions
from mtgauntlet.cli.common import fail, print_frame
from mtgauntlet.cli.declared import command, printing

FORMATS = ("table", "csv", "json")


def plain(v: Any) -> Any:
    """A result value as JSON data, without losing anything."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if math.isfinite(v):
            return v
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(bytes(v)).decode("ascii")
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, Decimal):
        return str(v)
    return str(v)


def _text(v: Any, null: str) -> str:
    if v is None:
        return null
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(plain(v), ensure_ascii=False, allow_nan=False)
    if isinstance(v, bool):
        return "true" if v else "false"
    p = plain(v)
    return repr(p) if isinstance(p, float) else str(p)


def write_result(table, fmt: str) -> None:
    """Print an Arrow result table as table, csv or json."""
    names = table.column_names
    columns = [c.to_pylist() for c in table.columns]
    rows = list(zip(*columns)) if columns else []
    if fmt == "json":
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            fail(f"the result has several columns named {twice[0]!r}: name them apart (AS ...) for -f json")
        sys.stdout.write(
            json.dumps([{n: plain(v) for n, v in zip(names, r)} for r in rows], ensure_ascii=False, allow_nan=False)
            + "\n"
        )
    elif fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([_text(v, "") for v in r] for r in rows)
    elif fmt == "table":
        import pandas as pd

        def cell(v: Any) -> str:
            return f"{v:.4g}" if isinstance(v, float) and math.isfinite(v) else _text(v, "NULL")

        print_frame(pd.DataFrame([[cell(v) for v in r] for r in rows], columns=names, dtype=object), "table")
    else:
        fail(f"unknown --format {fmt!r} ({', '.join(FORMATS)})")


def query(p: dict[str, Any]) -> None:
    """``gauntlet query``: the result of `mtgauntlet.api.catalog.query_table`, printed as ``--format`` says."""
    from mtgauntlet.api.catalog import query_table

    fmt = p.pop("format")
    write_result(query_table(**p, progress=None), fmt)


def register(app: typer.Typer) -> None:
    """``gauntlet query`` on the root command; ``--format`` is how it prints (``mg.query`` returns a DataFrame)."""
    output = printing(
        "format",
        "table",
        type=str,
        flags=("--format", "-f"),
        choices=lambda: FORMATS,
        help=f"Output: {', '.join(FORMATS)}.",
    )
    command(app, "query", QueryOptions, query, extra={"format": (None, output)})
