"""Helpers shared by the CLI verbs: corpus loading, output formatting, error handling."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from mtgauntlet.corpora.formats import READERS, read_parallel, sniff_named_format
from mtgauntlet.corpora.readers import RowSet, parse_column_map


def comma_list(value: str | None) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``; empty or None -> ``[]`` (options such as ``--mt A,B``)."""
    return [x.strip() for x in value.split(",") if x.strip()] if value else []


def fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def load_corpus(path: str, *, format: str | None = None, src_col: str = "src", ref_col: str = "ref",
                src_lang: str | None = None, tgt_lang: str | None = None, limit: int | None = None,
                skip_bad: bool = False, columns: str | None = None, quoting: str | None = None,
                lp: str | None = None) -> RowSet:
    """Read a parallel corpus: a named layout (flores, wmt24, parallel-samples, ...) or any table."""
    on_error = "skip" if skip_bad else "raise"
    named = format if format in READERS else (None if format else sniff_named_format(path))
    extra = parse_column_map(columns)
    if named == "flores":
        return READERS["flores"](path, src=src_lang or "en", tgt=tgt_lang or "es", on_error=on_error, limit=limit)
    if named == "wmt24":
        return READERS["wmt24"](path, lp=lp, on_error=on_error, limit=limit)
    if named == "parallel-samples":
        return READERS["parallel-samples"](path, lp=lp, on_error=on_error, limit=limit)
    if named in ("demetr", "aces"):
        return READERS[named](path, on_error=on_error)
    if named is not None and named != "parallel":
        return READERS[named](path, on_error=on_error)
    return read_parallel(path, src_col=src_col, ref_col=ref_col, src_lang=src_lang, tgt_lang=tgt_lang,
                         format=None if format in (None, "parallel") else format, extra=extra, quoting=quoting,
                         on_error=on_error, limit=limit)


def print_frame(df, fmt: str = "table") -> None:
    if fmt == "csv":
        sys.stdout.write(df.to_csv(index=False))
    elif fmt == "json":
        sys.stdout.write(df.to_json(orient="records", force_ascii=False, date_format="iso") + "\n")
    elif fmt == "table":
        from rich.console import Console
        from rich.table import Table

        table = Table(show_lines=False)
        for col in df.columns:
            table.add_column(str(col), overflow="fold")
        for row in df.itertuples(index=False):
            table.add_row(*[_cell(v) for v in row])
        Console(width=max(120, Console().width)).print(table)
        typer.echo(f"({len(df)} rows)")
    else:
        fail(f"unknown --format {fmt!r} (table, csv or json)")


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    s = str(v)
    return s if len(s) <= 200 else s[:197] + "..."


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


def summary_line(summary) -> str:
    parts = [f"{summary.produced} records from {summary.items} items -> {Path(summary.out_dir) / 'data'}"]
    if summary.rejected:
        parts.append("rejected: " + ", ".join(f"{k}={v}" for k, v in sorted(summary.rejected.items())))
    if summary.skipped:
        parts.append("skipped: " + ", ".join(f"{k}={v}" for k, v in sorted(summary.skipped.items())))
    if summary.resumed_shards:
        parts.append(f"resumed {summary.resumed_shards} finished shard(s)")
    parts.append(f"signature: {summary.signature}")
    return "\n".join(parts)
