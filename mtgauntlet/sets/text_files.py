"""Byte-exact reading and writing of the text files sets come in: TSV without quoting, JSON lines, plain lines.

Text goes through unchanged: files are decoded as UTF-8 (a BOM stays part of the first field), lines are split on
``\\n`` only (a file whose header ends in ``\\r\\n`` has CRLF lines: one ``\\r`` is taken off each line), fields on
TAB only; quotes, trailing spaces and every other character are kept. ``.gz`` files are read decompressed.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError, InputError
from mtgauntlet.sets.field_checks import text_value


def read_text(path: str | Path) -> str:
    p = Path(path)
    if not p.is_file():
        raise GauntletError(f"{p}: no such file")
    try:
        data = gzip.decompress(p.read_bytes()) if p.name.endswith(".gz") else p.read_bytes()
    except (OSError, EOFError) as exc:
        raise GauntletError(f"{p}: cannot read ({exc})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"not UTF-8 (byte {exc.start})", file=str(p), line=line) from None


def parse_json(text: str, path: str | Path, line: int | None = None) -> Any:
    """``json.loads``; malformed JSON (or a number Python refuses, e.g. one over its digit limit) is one line naming
    the file and the line (``line``, or where the parser stopped)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg})", file=str(path), line=line or exc.lineno) from None
    except ValueError as exc:
        raise InputError(f"not JSON ({exc})", file=str(path), line=line) from None


def text_lines(path: str | Path) -> list[str]:
    """The lines of a text file, exactly (no final empty line for a file that ends in a newline)."""
    text = read_text(path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


@dataclass
class Table:
    """A TSV file: its header and rows as (line number, {column: text})."""

    path: str
    columns: list[str]
    rows: list[tuple[int, dict[str, str]]] = field(default_factory=list)


def read_tsv(path: str | Path) -> Table:
    """A TSV file with a header; every row must have as many fields as the header (one-line error otherwise)."""
    lines = text_lines(path)
    if not lines:
        raise InputError("empty file: expected a header line", file=str(path), line=1)
    crlf = lines[0].endswith("\r")
    if crlf:
        lines = [ln.removesuffix("\r") for ln in lines]
    columns = lines[0].split("\t")
    for c in columns:
        text_value(c, file=str(path), line=1, field="header")
    seen = set()
    for c in columns:
        if c in seen:
            raise InputError(f"column {c!r} appears twice in the header", file=str(path), line=1)
        seen.add(c)
    table = Table(str(path), columns)
    for i, line in enumerate(lines[1:], start=2):
        values = line.split("\t")
        if len(values) != len(columns):
            raise InputError(
                f"{len(values)} fields, the header has {len(columns)} (TAB-separated, no quoting)",
                file=str(path),
                line=i,
            )
        for c, v in zip(columns, values):
            text_value(v, file=str(path), line=i, field=c)
        table.rows.append((i, dict(zip(columns, values))))
    return table


def check_field(value: str, where: str, name: str, hint: str = "") -> str:
    """A text that a TSV (or line) file can hold: no TAB, no newline, no NUL byte (a lone CR is kept as it is)."""
    bad = [c for c in ("\t", "\n", "\x00") if c in value]
    if bad:
        what = {"\t": "TAB", "\n": "line break", "\x00": "NUL byte"}[bad[0]]
        raise GauntletError(f"{where}: field {name} holds a {what}, which the format cannot carry{hint}")
    return value


def write_tsv(path: Path, columns: Sequence[str], rows: Iterator[tuple[str, dict[str, Any]]]) -> int:
    """Write rows (where, {column: text}) as TSV with a header; returns the number of rows."""
    n = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("\t".join(check_field(c, str(path), "header") for c in columns) + "\n")
        hint = "; export it as ACES JSON lines (an --out path ending in .jsonl)"
        for where, row in rows:
            f.write(
                "\t".join(check_field("" if row.get(c) is None else str(row[c]), where, c, hint) for c in columns)
                + "\n"
            )
            n += 1
    return n


def write_lines(path: Path, lines: Sequence[Sequence[str]], what: str, names: Sequence[str] = ("text",)) -> None:
    """A file of one row per line, its fields (``names``) joined by TAB (the mt-metrics-eval layout)."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        for i, row in enumerate(lines):
            fields = [row] if isinstance(row, str) else row
            f.write("\t".join(check_field(v, f"{what} line {i + 1}", n) for v, n in zip(fields, names)) + "\n")
