"""Read the records of a build directory, a release directory or Parquet files, grouped by record kind.

The kind of each file comes from its Parquet metadata (``mtgauntlet.kind``, written by the runner and
kept by releases), never from its path, so any layout works: ``BUILD/data/*.parquet``,
``RELEASE/data/<config>/*.parquet`` or loose files.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from mtgauntlet.errors import GauntletError
from mtgauntlet.schema import SIGNATURE_METADATA_KEY, kind_of_schema

# A released file may hold the records of several builds: it lists their signatures (JSON) here.
SIGNATURES_METADATA_KEY = b"mtgauntlet.signatures"


def record_files(path: str | Path) -> list[Path]:
    """The record Parquet files of a build dir (``data/`` only, never ``work/``), a release dir or a file/dir."""
    p = Path(path)
    if not p.exists():
        raise GauntletError(f"{p}: no such file or directory")
    if p.is_file():
        return [p]
    if (p / "data").is_dir():
        p = p / "data"
    files = [
        f
        for f in sorted(p.rglob("*.parquet"))
        if not any(part.startswith(".") or part == "work" for part in f.relative_to(p).parts)
    ]
    if not files:
        raise GauntletError(f"{path}: no Parquet record files")
    return files


def files_by_kind(path: str | Path) -> dict[str, list[Path]]:
    """Record files grouped by their kind; a Parquet file without mtgauntlet metadata is an error."""
    out: dict[str, list[Path]] = defaultdict(list)
    for f in record_files(path):
        try:
            kind = kind_of_schema(pq.read_schema(f))
        except Exception as exc:  # pyarrow raises several types for unreadable files
            raise GauntletError(f"{f}: cannot read Parquet ({exc})") from None
        if kind is None:
            raise GauntletError(f"{f}: not an mtgauntlet record file (no kind in its Parquet metadata)")
        out[kind].append(f)
    return dict(out)


def load_records_by_kind(path: str | Path) -> dict[str, pa.Table]:
    """Every record of a build/release/Parquet path as one table per record kind."""
    return {
        kind: pa.concat_tables([pq.read_table(f) for f in files], promote_options="default")
        for kind, files in sorted(files_by_kind(path).items())
    }


def load_records(path: str | Path, kind: str | None = None) -> pa.Table:
    """The records of one kind (``kind``, or the only kind present) from a build/release/Parquet path."""
    by_kind = load_records_by_kind(path)
    if kind is not None:
        if kind not in by_kind:
            raise GauntletError(f"{path}: no {kind} records (found: {', '.join(by_kind) or 'none'})")
        return by_kind[kind]
    if len(by_kind) > 1:
        raise GauntletError(f"{path}: holds several record kinds ({', '.join(by_kind)}); say which one")
    return next(iter(by_kind.values()))


def file_signatures(path: str | Path) -> list[str]:
    """The build signatures a record file declares (several for a released file that merges builds)."""
    meta = pq.read_schema(path).metadata or {}
    if SIGNATURES_METADATA_KEY in meta:
        try:
            sigs = json.loads(meta[SIGNATURES_METADATA_KEY])
        except ValueError:
            raise GauntletError(f"{path}: corrupt {SIGNATURES_METADATA_KEY.decode()} metadata") from None
        return [str(s) for s in sigs]
    sig = meta.get(SIGNATURE_METADATA_KEY, b"").decode()
    return [sig] if sig else []


def signatures_by_kind(path: str | Path) -> dict[str, list[str]]:
    """Sorted distinct build signatures per record kind of a build/release/Parquet path."""
    return {
        kind: sorted({s for f in files for s in file_signatures(f)})
        for kind, files in sorted(files_by_kind(path).items())
    }
