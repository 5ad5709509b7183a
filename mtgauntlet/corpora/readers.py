"""Generic corpus readers: TSV/CSV/JSONL/Parquet (optionally .gz) and HF datasets, with column mapping.

Rows come back as plain dicts plus ``_line`` (1-based line in the file; the header is line 1 for
delimited files). Texts are returned exactly as stored (no stripping, no normalisation). Bad input
raises :class:`InputError` naming file, line and field, or, when the caller passes ``on_error="skip"``,
the row is skipped and counted by reason in :attr:`RowSet.skipped`: ``empty text``, ``wrong type``,
``text too long``, ``invalid UTF-8``, ``wrong field count``, ``invalid JSON``, ``not a JSON object``.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.corpora.delimited import QUOTING, choose
from mtgauntlet.errors import InputError

FORMATS = ("tsv", "csv", "jsonl", "parquet", "hf")
# Longest text a row may hold (characters). One runaway line (a whole book on one line) would otherwise
# stall corpus-level preparation for minutes; --max-chars raises it.
DEFAULT_MAX_CHARS = 20_000


@dataclass
class RowSet:
    path: str
    rows: list[dict[str, Any]]
    skipped: list[tuple[int | None, str | None, str]] = field(default_factory=list)
    quoting: str | None = None  # the quoting a delimited file was read with

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def skipped_counts(self) -> dict[str, int]:
        return dict(Counter(reason for _, _, reason in self.skipped))


class _Skip(Exception):
    """A row-level problem: raised as InputError, or counted when skipping."""

    def __init__(self, reason: str, message: str, line: int | None, field: str | None = None):
        super().__init__(message)
        self.reason, self.message, self.line, self.field = reason, message, line, field


def guess_format(path: str | Path) -> str:
    p = str(path)
    if p.startswith("hf:"):
        return "hf"
    name = Path(p).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
        if name.endswith((".parquet", ".pq")):
            raise InputError(
                "Parquet files are compressed inside; a gzipped Parquet file cannot be read (gunzip it first)", file=p
            )
    for ext, fmt in (
        (".tsv", "tsv"),
        (".txt", "tsv"),
        (".csv", "csv"),
        (".jsonl", "jsonl"),
        (".json", "jsonl"),
        (".parquet", "parquet"),
        (".pq", "parquet"),
    ):
        if name.endswith(ext):
            return fmt
    if Path(p).is_dir():
        if any(Path(p).glob("*.parquet")):
            return "parquet"
        return "hf"
    raise InputError(f"cannot tell the format from the file name; pass --format ({', '.join(FORMATS)})", file=p)


def _read_text(path: Path, on_error: str) -> str:
    """The file's text; invalid UTF-8 is an error, or (skipping) kept as surrogates so its rows are skipped."""
    if not path.exists():
        raise InputError("file not found", file=str(path))
    if path.is_dir():
        raise InputError("is a directory, not a file", file=str(path))
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise InputError(f"not a valid gzip file ({exc})", file=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if on_error != "skip":
            line = raw.count(b"\n", 0, exc.start) + 1
            raise InputError(
                f"invalid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); --skip-bad skips such rows",
                file=str(path),
                line=line,
            ) from None
        text = raw.decode("utf-8", errors="surrogateescape")
    return text.removeprefix("\ufeff")


def _has_bad_bytes(value: Any) -> bool:
    return isinstance(value, str) and any("\udc80" <= ch <= "\udcff" for ch in value)


def _iter_delimited(path: Path, delimiter: str, quoting: str, on_error: str, info: dict):
    parsed, used = choose(_read_text(path, on_error), delimiter, quoting)
    info["quoting"] = used
    header = parsed.header
    if not header or header == [""]:
        raise InputError("empty file (no header line)", file=str(path), line=1)
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise InputError(
            f"duplicate column name(s) {', '.join(map(repr, dupes))} in the header", file=str(path), line=1
        )
    width = len(header)
    other = "none" if used == "csv" else "csv"
    for line, fields in parsed.rows:
        if len(fields) != width:
            yield (
                line,
                _Skip(
                    "wrong field count",
                    f"expected {width} fields (as the header), found {len(fields)} "
                    f"(read with quoting '{used}'; try --quoting {other})",
                    line,
                ),
            )
            continue
        yield line, dict(zip(header, fields))
    if parsed.error is not None:
        line, message = parsed.error
        raise InputError(f"{message}; for literal quote characters pass --quoting none", file=str(path), line=line)


def _iter_jsonl(path: Path, on_error: str):
    text = _read_text(path, on_error)
    for i, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield i, _Skip("invalid JSON", f"invalid JSON ({exc.msg}, column {exc.colno})", i)
            continue
        if not isinstance(obj, dict):
            yield i, _Skip("not a JSON object", f"expected a JSON object per line, found {type(obj).__name__}", i)
            continue
        yield i, obj


def _iter_parquet(path: Path, text_columns: Iterable[str]):
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not path.exists():
        raise InputError("file not found", file=str(path))
    try:
        table = pq.read_table(path) if path.is_file() else pq.ParquetDataset(path).read()
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise InputError(f"cannot read Parquet ({exc})", file=str(path)) from None
    for col in text_columns:
        if col in table.column_names:
            t = table.schema.field(col).type
            if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_null(t)):
                raise InputError(f"wrong type: expected string, found {t}", file=str(path), field=col)
    yield from enumerate(table.to_pylist(), start=1)


def _iter_raw(path, fmt: str, quoting: str, on_error: str, text_columns: Iterable[str], info: dict):
    """Yield (line, dict | _Skip) pairs with the file's own column names."""
    if fmt in ("tsv", "csv"):
        yield from _iter_delimited(Path(path), "\t" if fmt == "tsv" else ",", quoting, on_error, info)
    elif fmt == "jsonl":
        yield from _iter_jsonl(Path(path), on_error)
    elif fmt == "parquet":
        yield from _iter_parquet(Path(path), text_columns)
    elif fmt == "hf":
        yield from enumerate(_iter_hf(str(path)), start=1)
    else:
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}", file=str(path))


def _iter_hf(spec: str):
    """A local ``datasets`` directory (save_to_disk) or an installed/cached dataset ``hf:name[:config][@split]``."""
    import datasets  # lazy: heavy

    if spec.startswith("hf:"):
        name, _, split = spec[3:].partition("@")
        name, _, config = name.partition(":")
        try:
            ds = datasets.load_dataset(name, config or None, split=split or "train")
        except Exception as exc:
            raise InputError(f"cannot load dataset ({exc})", file=spec) from None
    else:
        try:
            ds = datasets.load_from_disk(spec)
        except Exception as exc:
            raise InputError(f"not a saved datasets directory ({exc})", file=spec) from None
        if isinstance(ds, datasets.DatasetDict):
            ds = ds["train"] if "train" in ds else ds[next(iter(ds))]
    yield from ds


def read_rows(
    path: str | Path,
    *,
    format: str | None = None,
    columns: Mapping[str, str] | None = None,
    required: Iterable[str] = (),
    text_fields: Iterable[str] = (),
    quoting: str | None = None,
    on_error: str = "raise",
    limit: int | None = None,
    where: Mapping[str, Any] | None = None,
    max_chars: int | None = DEFAULT_MAX_CHARS,
) -> RowSet:
    """Read a corpus file into dicts.

    columns: mapping ``our_name -> file_column``; mapped columns are copied to our names (originals kept).
    required: our names that must exist as columns (error at line 1 otherwise).
    text_fields: our names whose value must be a non-empty string of at most ``max_chars`` characters.
    quoting: for TSV/CSV, 'auto' (default: detected, see :mod:`mtgauntlet.corpora.delimited`), 'csv'
        (standard quoting) or 'none' (quotes are literal characters).
    where: keep only rows whose (renamed) fields equal these values (others are filtered, not skipped).
    """
    if on_error not in ("raise", "skip"):
        raise ValueError("on_error must be 'raise' or 'skip'")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")
    if quoting is not None and quoting not in QUOTING:
        raise InputError(f"unknown quoting {quoting!r}; expected {', '.join(QUOTING)}")
    spath = str(path)
    fmt = format or guess_format(spath)
    columns = dict(columns or {})
    required = list(required)
    text_fields = list(text_fields)
    out = RowSet(path=spath, rows=[])
    info: dict[str, Any] = {}
    checked_header = False
    text_columns = [columns.get(f, f) for f in text_fields]
    for line, raw in _iter_raw(spath, fmt, quoting or "auto", on_error, text_columns, info):
        try:
            if isinstance(raw, _Skip):
                raise raw
            if not checked_header:
                present = set(raw)
                for ours in set(required) | set(columns):
                    col = columns.get(ours, ours)
                    if col not in present:
                        raise InputError(
                            f"column '{col}' not found; available: {', '.join(map(str, raw))}",
                            file=spath,
                            line=1 if fmt in ("tsv", "csv") else line,
                            field=col,
                        )
                checked_header = True
            row = dict(raw)
            for ours, col in columns.items():
                row[ours] = raw[col]
            if where and any(str(row.get(k)) != str(v) for k, v in where.items()):
                continue
            _check_row(row, text_fields, columns, line, max_chars)
        except _Skip as bad:
            if on_error == "skip":
                out.skipped.append((bad.line, bad.field, bad.reason))
                continue
            raise InputError(
                f"{bad.message}; --skip-bad skips such rows", file=spath, line=bad.line, field=bad.field
            ) from None
        row["_line"] = line
        out.rows.append(row)
        if limit is not None and len(out.rows) >= limit:
            break
    out.quoting = info.get("quoting")
    if not checked_header and (required or columns) and fmt != "hf" and not out.skipped:
        raise InputError("no data rows", file=spath)
    return out


def _check_row(row: dict, text_fields: list[str], columns: Mapping[str, str], line: int, max_chars: int | None) -> None:
    for f in text_fields:
        v, col = row.get(f), columns.get(f, f)
        if v is not None and not isinstance(v, str):
            raise _Skip("wrong type", f"wrong type: expected string, found {type(v).__name__}", line, col)
        if v is None or not v.strip():
            raise _Skip("empty text", "empty text", line, col)
        if max_chars is not None and len(v) > max_chars:
            raise _Skip(
                "text too long",
                f"text of {len(v)} characters is longer than the limit of {max_chars} (--max-chars)",
                line,
                col,
            )
    for k, v in row.items():
        if _has_bad_bytes(v):
            raise _Skip("invalid UTF-8", "invalid UTF-8", line, columns.get(k, k))


def parse_column_map(spec: str | None) -> dict[str, str]:
    """'score=esa_score_mean,item_id=line_id' -> {'score': 'esa_score_mean', 'item_id': 'line_id'}."""
    out: dict[str, str] = {}
    if not spec:
        return out
    for part in spec.split(","):
        if not part.strip():
            continue
        ours, sep, theirs = part.partition("=")
        if not sep or not ours.strip() or not theirs.strip():
            raise InputError(f"bad column mapping {part!r}; expected ours=theirs (e.g. score=esa_score)")
        out[ours.strip()] = theirs.strip()
    return out
