"""The results folder of the workbench, sealed like a release.

Layout::

    RESULTS/manifest.json                       sha256, size, kind and rows of every data file
    RESULTS/data/metric_score/part-*.parquet    stored scores, one shard per finished (metric, set) chunk
    RESULTS/data/metric_stat/leaderboard.parquet the leaderboard's statistics (rewritten at every seal)

A run holds ``RESULTS/.lock`` (:func:`results_lock`): two runs never write one folder. It appends score shards as they complete (each written atomically) and seals at the end: the manifest is
rewritten with every shard. A killed run leaves complete shards beside the last manifest; the next run reads them
too (they are its own output) and seals them. Readers (the catalog, the leaderboard page) read only what the
manifest seals: a shard that differs from its manifest entry is refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mtgauntlet import __version__
from mtgauntlet.atomic import atomic_path, write_text_atomic
from mtgauntlet.core.usage_journal import JOURNAL
from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.manifest import (
    RELEASE_MANIFEST,
    describe_file,
    listed_file,
    read_manifest,
)
from mtgauntlet.releases.results_files import RESULTS_KIND, conform, sealed_files  # noqa: F401 (re-exported)
from mtgauntlet.schema import kind_of_schema, to_table, utcnow
from mtgauntlet.versions import package_versions

SCORES_DIR = "data/metric_score"
STATS_FILE = "data/metric_stat/leaderboard.parquet"
RESULTS_NAME, RESULTS_VERSION = "metric-results", "0.0.0"
LOCK_FILE = ".lock"  # held by the run writing the folder (see results_lock)


def is_results(path: str | Path) -> bool:
    try:
        return read_manifest(path).get("kind") == RESULTS_KIND
    except GauntletError:
        return False


# a score shard's columns of a few values (metric, set, side, ...) are dictionary-encoded, its keys, record ids and
# scores (one per row) are not: smaller shards, less to encode
_UNIQUE_PER_ROW = ("item_key", "record_id", "score")


def write_parquet(table: pa.Table, target: Path, dictionary: bool | list[str] = True) -> None:
    """Write a results file atomically (zstd; ``dictionary``: the columns to dictionary-encode, or all): encoded in
    memory, then written to a temporary file beside the target, synced and renamed onto it."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", use_dictionary=dictionary)
    with atomic_path(target) as tmp, open(tmp, "wb") as fh:
        fh.write(sink.getvalue())


def append_scores(root: Path, rows: list[dict[str, Any]] | pa.Table) -> Path | None:
    """Write one score shard (atomically) of rows or of a ``metric_score`` table; returns its path."""
    if not len(rows):
        return None
    target = root / SCORES_DIR / f"part-{utcnow().strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:12]}.parquet"
    table = rows if isinstance(rows, pa.Table) else to_table("metric_score", rows)
    write_parquet(table, target, [c for c in table.column_names if c not in _UNIQUE_PER_ROW])
    return target


def _unsealed_shards(root: Path, sealed: set[Path]) -> list[Path]:
    """Complete score shards a killed run wrote after the last seal (this folder's own output)."""
    folder = root / SCORES_DIR
    if not folder.is_dir():
        return []
    out = []
    for p in sorted(folder.glob("part-*.parquet")):
        if p.resolve() in sealed or p.is_symlink():
            continue
        try:
            ok = kind_of_schema(pq.read_schema(p)) == "metric_score"
        except Exception:  # pyarrow raises several types for unreadable files
            ok = False
        if ok:
            out.append(p)
    return out


@contextlib.contextmanager
def results_lock(root: Path) -> Iterator[None]:
    """Hold ``RESULTS/.lock`` while a run writes the folder: a second run is refused at once with the holder's pid
    (exit 2). The lock is the kernel's (``flock``), so a run that died holds nothing: its lock file, pid and all,
    is taken over by the next run; the file is removed when the run ends."""
    import fcntl

    if root.exists() and not root.is_dir():
        raise GauntletError(f"--out {root}: not a folder")
    root.mkdir(parents=True, exist_ok=True)
    path = root / LOCK_FILE
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip()
            os.close(fd)
            raise GauntletError(
                f"another run ({holder or 'pid unknown'}) is writing {root}; wait for it to finish or give another "
                "--out"
            ) from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino  # not a file the last holder removed meanwhile
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()}".encode())
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        os.close(fd)  # closing the descriptor releases the lock


def open_results(root: Path) -> tuple[list[Path], list[Path]]:
    """(sealed score shards, unsealed ones a killed run left) of a results folder (created when missing)."""
    if root.exists() and not root.is_dir():
        raise GauntletError(f"--out {root}: not a folder")
    if (root / RELEASE_MANIFEST).is_file():
        sealed = sealed_files(root, "metric_score")
    elif root.is_dir() and any(p.name not in ("data", LOCK_FILE, JOURNAL) for p in root.iterdir()):
        raise GauntletError(
            f"--out {root}: a folder that is not a results folder (no {RELEASE_MANIFEST}); "
            "give a new or an existing results folder"
        )
    else:
        sealed = []
    root.mkdir(parents=True, exist_ok=True)
    return sealed, _unsealed_shards(root, {p.resolve() for p in sealed})


def read_scores(files: list[Path]) -> pa.Table:
    if not files:
        return to_table("metric_score", [])
    return pa.concat_tables([conform(pq.read_table(f), "metric_score") for f in files])


def read_stats(root: Path) -> pa.Table:
    files = sealed_files(root, "metric_stat") if (root / RELEASE_MANIFEST).is_file() else []
    if not files:
        return to_table("metric_stat", [])
    return pa.concat_tables([conform(pq.read_table(f), "metric_stat") for f in files])


def seal(
    root: Path, stats: pa.Table, runs: list[dict[str, Any]], statistics: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Write the leaderboard and the manifest over every score shard; returns the manifest. ``statistics``: the
    options the leaderboard's statistics were computed with (kept from the last seal when not given)."""
    for stray in list((root / "data").rglob(".*.tmp")):  # a temporary file a killed run left
        stray.unlink()
    write_parquet(stats, root / STATS_FILE)
    files = []
    for p in sorted((root / SCORES_DIR).glob("part-*.parquet")) + [root / STATS_FILE]:
        rel = p.relative_to(root).as_posix()
        if listed_file(root, rel)[0] is None:
            continue
        kind = kind_of_schema(pq.read_schema(p))
        files.append(describe_file(root, rel, kind=kind, rows=pq.ParquetFile(p).metadata.num_rows))
    previous = read_manifest(root) if (root / RELEASE_MANIFEST).is_file() else {}
    manifest = {
        "name": RESULTS_NAME,
        "version": RESULTS_VERSION,
        "kind": RESULTS_KIND,
        "created_at": previous.get("created_at") or utcnow().isoformat(),
        "sealed_at": utcnow().isoformat(),
        "mtgauntlet_version": __version__,
        "versions": package_versions(),
        "statistics": statistics if statistics is not None else previous.get("statistics"),
        "runs": [*previous.get("runs", []), *runs][-100:],
        "files": files,
    }
    write_text_atomic(root / RELEASE_MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return manifest
