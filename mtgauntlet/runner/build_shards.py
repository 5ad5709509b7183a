"""The shard files of a build directory: ``part-S-E.parquet`` holds the records of items S..E-1, written atomically
(temp + rename) with the shard's rejected/skipped counts in its Parquet metadata, and read back when a build
resumes (:mod:`.build_runner`)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mtgauntlet.atomic import atomic_path
from mtgauntlet.schema import to_table

COUNTS_KEY = b"mtgauntlet.shard_counts"


def shard_name(start: int, end: int) -> str:
    return f"part-{start:08d}-{end:08d}.parquet"


def existing_shards(shard_dir: Path) -> dict[tuple[int, int], Path]:
    """The shards already written in ``shard_dir``, by their (start, end) range of items."""
    out = {}
    for p in shard_dir.glob("part-*-*.parquet"):
        try:
            _, s, e = p.stem.split("-")
            out[(int(s), int(e))] = p
        except ValueError:
            continue
    return out


def write_shard(path: Path, kind: Any, records: list[dict], counts: dict, signature: str) -> None:
    """``records`` of record kind ``kind`` as the shard ``path`` (atomically), ``counts`` in its metadata."""
    table = to_table(kind, records, signature=signature)
    meta = dict(table.schema.metadata or {})
    meta[COUNTS_KEY] = json.dumps(counts, sort_keys=True).encode()
    table = table.replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


@dataclass
class DoneShards:
    """What the shards written by earlier runs hold: their records' ids and count, and their rejected/skipped
    counts by reason."""

    ids: set[str] = field(default_factory=set)
    produced: int = 0
    rejected: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)

    @classmethod
    def read(cls, existing: dict[tuple[int, int], Path]) -> DoneShards:
        done = cls()
        for _range, p in sorted(existing.items()):
            pf = pq.ParquetFile(p)
            counts = json.loads((pf.schema_arrow.metadata or {}).get(COUNTS_KEY, b"{}"))
            done.rejected.update(counts.get("rejected", {}))
            done.skipped.update(counts.get("skipped", {}))
            done.produced += pf.metadata.num_rows
            done.ids.update(pq.read_table(p, columns=["id"]).column("id").to_pylist())
        return done


def failure_totals(data_dir: Path, kind: Any, cols: tuple[str, ...]) -> dict[str, int] | None:
    """Sums of the per-record failure counters ``cols`` over the final records in ``data_dir`` (None: no counter)."""
    if not cols:
        return None
    totals = dict.fromkeys(cols, 0)
    for p in sorted(data_dir.glob("part-*.parquet")):
        t = pq.read_table(p, columns=[c for c in cols if c in kind.column_names])
        for c in t.column_names:
            totals[c] += int(sum(v or 0 for v in t.column(c).to_pylist()))
    return totals
