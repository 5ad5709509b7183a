"""Generic corpus readers: TSV/CSV/JSONL/Parquet (optionally .gz) and HF datasets, with column mapping.

Rows come back as plain dicts plus ``_line`` (1-based line in the file; the header is line 1 for
delimited files). Bad input raises :class:`InputError` naming file, line and field, or, when the
caller passes ``on_error="skip"``, the row is skipped and counted in :attr:`RowSet.skipped`.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from mtgauntlet.errors import InputError

csv.field_size_limit(sys.maxsize)

FORMATS = ("tsv", "csv", "jsonl", "parquet", "hf")


@dataclass
class RowSet:
    path: str
    rows: list[dict[str, Any]]
    skipped: list[tuple[int | None, str | None, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def skipped_counts(self) -> dict[str, int]:
        return dict(Counter(reason for _, _, reason in self.skipped))


def guess_format(path: str | Path) -> str:
    p = str(path)
    if p.startswith("hf:"):
        return "hf"
    name = Path(p).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for ext, fmt in ((".tsv", "tsv"), (".txt", "tsv"), (".csv", "csv"), (".jsonl", "jsonl"), (".json", "jsonl"),
                     (".parquet", "parquet"), (".pq", "parquet")):
        if name.endswith(ext):
            return fmt
    if Path(p).is_dir():
        if any(Path(p).glob("*.parquet")):
            return "parquet"
        return "hf"
    raise InputError(f"cannot tell the format from the file name; pass one of {', '.join(FORMATS)}", file=p)


def _read_text(path: Path) -> str:
    if not path.exists():
        raise InputError("file not found", file=str(path))
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise InputError(f"not a valid gzip file ({exc})", file=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(f"invalid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
                         file=str(path), line=line) from None
    return text.removeprefix("\ufeff")


def _delimited_rows(path: Path, delimiter: str, quoting: str):
    text = _read_text(path)
    if quoting == "none":
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        header = lines[0].rstrip("\r").split(delimiter) if lines else []
        yield header
        for i, line in enumerate(lines[1:], start=2):
            yield i, line.rstrip("\r").split(delimiter)
    else:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quoting=csv.QUOTE_MINIMAL)
        try:
            header = next(reader)
        except StopIteration:
            header = []
        yield header
        line_start = 2
        try:
            for fields in reader:
                yield line_start, fields
                line_start = reader.line_num + 1
        except csv.Error as exc:
            raise InputError(f"malformed CSV ({exc})", file=str(path), line=reader.line_num) from None


def _iter_raw(path: Path, fmt: str, quoting: str):
    """Yield (line, dict) pairs with the file's own column names."""
    if fmt in ("tsv", "csv"):
        gen = _delimited_rows(path, "\t" if fmt == "tsv" else ",", quoting)
        header = next(gen)
        if not header or header == [""]:
            raise InputError("empty file (no header line)", file=str(path), line=1)
        width = len(header)
        for line, fields in gen:
            if fields == [""] or not fields:
                continue
            if len(fields) != width:
                raise InputError(f"expected {width} fields (as the header), found {len(fields)}; "
                                 f"for fields with quoted tabs pass quoting='csv'", file=str(path), line=line)
            yield line, dict(zip(header, fields))
    elif fmt == "jsonl":
        text = _read_text(path)
        for i, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"invalid JSON ({exc.msg}, column {exc.colno})", file=str(path), line=i) from None
            if not isinstance(obj, dict):
                raise InputError("expected a JSON object per line", file=str(path), line=i)
            yield i, obj
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        if not path.exists():
            raise InputError("file not found", file=str(path))
        try:
            table = pq.read_table(path) if path.is_file() else pq.ParquetDataset(path).read()
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputError(f"cannot read Parquet ({exc})", file=str(path)) from None
        for i, row in enumerate(table.to_pylist(), start=1):
            yield i, row
    elif fmt == "hf":
        for i, row in enumerate(_iter_hf(str(path)), start=1):
            yield i, row
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
) -> RowSet:
    """Read a corpus file into dicts.

    columns: mapping ``our_name -> file_column``; mapped columns are copied to our names (originals kept).
    required: our names that must exist as columns (error at line 1 otherwise).
    text_fields: our names whose value must be a non-empty string (error or skip per row).
    quoting: for TSV/CSV, 'none' (fields never quoted; the default for TSV) or 'csv' (QUOTE_MINIMAL,
        the default for CSV).
    where: keep only rows whose (renamed) fields equal these values.
    """
    if on_error not in ("raise", "skip"):
        raise ValueError("on_error must be 'raise' or 'skip'")
    spath = str(path)
    fmt = format or guess_format(spath)
    quoting = quoting or ("csv" if fmt == "csv" else "none")
    columns = dict(columns or {})
    required = list(required)
    text_fields = list(text_fields)
    p = Path(spath) if fmt != "hf" or not spath.startswith("hf:") else Path(spath)
    out = RowSet(path=spath, rows=[])
    checked_header = False
    for line, raw in _iter_raw(p if fmt != "hf" else spath, fmt, quoting):  # type: ignore[arg-type]
        if not checked_header:
            present = set(raw)
            for ours in set(required) | set(columns):
                col = columns.get(ours, ours)
                if col not in present and (ours in required or ours in columns):
                    raise InputError(f"column '{col}' not found; available: {', '.join(map(str, raw))}",
                                     file=spath, line=1 if fmt in ("tsv", "csv") else line, field=col)
            checked_header = True
        row = dict(raw)
        for ours, col in columns.items():
            row[ours] = raw[col]
        if where and any(str(row.get(k)) != str(v) for k, v in where.items()):
            continue
        bad = None
        for f in text_fields:
            v = row.get(f)
            if v is None or not isinstance(v, str) or not v.strip():
                bad = (f, "empty text")
                break
        if bad:
            if on_error == "skip":
                out.skipped.append((line, columns.get(bad[0], bad[0]), bad[1]))
                continue
            raise InputError(bad[1], file=spath, line=line, field=columns.get(bad[0], bad[0]))
        row["_line"] = line
        out.rows.append(row)
        if limit is not None and len(out.rows) >= limit:
            break
    if not checked_header and (required or columns) and fmt != "hf":
        raise InputError("no data rows", file=spath)
    return out


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
            raise ValueError(f"bad column mapping {part!r}; expected ours=theirs")
        out[ours.strip()] = theirs.strip()
    return out
