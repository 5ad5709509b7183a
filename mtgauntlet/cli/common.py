"""Helpers shared by the CLI verbs: corpus loading, output formatting, error handling."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer


def fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def print_frame(df, fmt: str = "table") -> None:
    if fmt == "csv":
        sys.stdout.write(df.to_csv(index=False))
    elif fmt == "json":
        sys.stdout.write(df.to_json(orient="records", force_ascii=False, date_format="iso") + "\n")
    elif fmt == "table":
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        table = Table(show_lines=False)
        for col in df.columns:  # names and values are data, never Rich markup ("[bold]", "qe[SPEC]")
            table.add_column(escape(str(col)), overflow="fold")
        for row in df.itertuples(index=False):
            table.add_row(*[escape(_cell(v)) for v in row])
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


def json_or_result(run: Callable[..., Any], p: dict[str, Any]) -> Any:
    """``run(**p)`` without a progress bar (``p``: the command's options, its ``json_out`` taken out): with
    ``--json`` the result is printed as JSON and None comes back, else the result, for the command to print."""
    json_out = p.pop("json_out")
    res = run(**p, progress=None)
    if json_out:
        print_json(res)
        return None
    return res


def json_option(what: str = "the result"):
    """``--json`` as a typer option, made from its declaration (`mtgauntlet.cli.declared.json_flag`)."""
    from mtgauntlet.cli.declared import json_flag, typer_option

    return typer_option(json_flag(what))


def print_result(as_json: bool, text: str, obj: dict[str, Any]) -> None:
    """A command's result: ``text`` for a reader, or ``obj`` as one JSON object (``--json``)."""
    if as_json:
        print_json(obj)
    else:
        typer.echo(text)


def build_result(summary) -> dict[str, Any]:
    """A build's summary as the JSON object of ``gauntlet build ... --json``."""
    return {
        "out": str(summary.out_dir),
        "data": str(Path(summary.out_dir) / "data"),
        "records": summary.produced,
        "items": summary.items,
        "rejected": summary.rejected,
        "skipped": summary.skipped,
        "resumed_shards": summary.resumed_shards,
        "failures": summary.failures,
        "signature": summary.signature,
        "seconds": round(summary.seconds, 3),
    }
