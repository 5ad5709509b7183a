"""Helpers shared by the CLI verbs: corpus loading, output formatting, error handling."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from mtgauntlet.api.checks import input_formats, judgment_formats
from mtgauntlet.corpora.readers import DEFAULT_MAX_CHARS, FORMATS


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


def json_option(what: str = "the result"):
    return typer.Option(False, "--json", help=f"Print {what} as one JSON object on stdout (nothing else goes to "
                        "stdout; notes and progress go to stderr).")


def print_result(as_json: bool, text: str, obj: dict[str, Any]) -> None:
    """A command's result: ``text`` for a reader, or ``obj`` as one JSON object (``--json``)."""
    if as_json:
        print_json(obj)
    else:
        typer.echo(text)


def build_result(summary) -> dict[str, Any]:
    """A build's summary as the JSON object of ``gauntlet build ... --json``."""
    return {"out": str(summary.out_dir), "data": str(Path(summary.out_dir) / "data"), "records": summary.produced,
            "items": summary.items, "rejected": summary.rejected, "skipped": summary.skipped,
            "resumed_shards": summary.resumed_shards, "failures": summary.failures, "signature": summary.signature,
            "seconds": round(summary.seconds, 3)}


# -- options shared by every command that reads a table (one definition, one help text) ---------------
def quoting_option():
    return typer.Option("auto", "--quoting", help="TSV/CSV quoting: auto (detect), csv (standard \"…\" quoting) "
                        "or none (quotes are literal characters, as in the WMT MQM tables).")


def skip_bad_option():
    return typer.Option(False, "--skip-bad", help="Skip bad rows (empty or too long text, wrong type, invalid "
                        "UTF-8, wrong field count, invalid JSON) and count them by reason, instead of stopping.")


def max_chars_option():
    return typer.Option(DEFAULT_MAX_CHARS, "--max-chars", min=1,
                        help="Longest text a row may hold, in characters (longer rows are errors, or skipped).")


def limit_option(what: str = "rows"):
    return typer.Option(None, "--limit", min=1, help=f"Read at most N {what}.")


def sample_option():
    return typer.Option(None, "--sample", min=1, help="Seeds drawn at random from the rows read (the paper: 100): the "
                        "N with the smallest hash of (--seed, source text), so every target language draws the same "
                        "sources and editing other rows keeps a seed in or out.")


def overwrite_option():
    return typer.Option(False, "--overwrite", help="Discard a different or unfinished build found in --out and start over.")


def seed_option():
    return typer.Option(13, "--seed", help="Random seed (per-item randomness derives from it; part of the signature).")


def shard_size_option(default: int):
    return typer.Option(default, "--shard-size", min=1, help="Items per resumable shard.")


def checked(choices: tuple[str, ...], what: str = "format"):
    """An option callback that refuses a value outside ``choices`` (a usage error, exit 2, before any work)."""
    def check(value):
        if value is not None and value not in choices:
            raise typer.BadParameter(f"unknown {what} {value!r} (one of {', '.join(choices)})")
        return value
    return check


INPUT_FORMATS = input_formats()
JUDGMENT_FORMATS = judgment_formats()
OUTPUT_FORMATS = ("table", "csv", "json")


def format_option():
    return typer.Option(None, "--format", callback=checked(INPUT_FORMATS),
                        help="Input format: tsv, csv, jsonl, parquet, hf, or a named layout "
                        "(flores, wmt24, parallel-samples, demetr, aces); default: from the file name.")


def table_format_option():
    """``--format`` of a plain table (tsv, csv, jsonl, parquet, hf)."""
    return typer.Option(None, "--format", callback=checked(FORMATS),
                        help=f"{', '.join(FORMATS)}; default: from the file name.")


def judgment_format_option():
    return typer.Option(None, "--format", callback=checked(JUDGMENT_FORMATS),
                        help="google-mqm, wmt23-mtme, wmt23-esa, or a plain table format (tsv, csv, jsonl, parquet, hf).")


def output_format_option(default: str = "table"):
    return typer.Option(default, "--format", "-f", callback=checked(OUTPUT_FORMATS),
                        help=f"Output: {', '.join(OUTPUT_FORMATS)}.")
