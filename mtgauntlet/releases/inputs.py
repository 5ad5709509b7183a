"""What a release is made of: complete builds, whole, each given once, with their records grouped by kind.

Whatever path is given (the build directory, its ``data/`` folder, one of its Parquet files), the
release takes the whole build it belongs to, and only when the build is complete and its files
agree with its ``build.json`` (signature and record count). Loose Parquet files without a build are
refused: nothing says they are complete.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mtgauntlet.core.builds import MANIFEST as BUILD_MANIFEST
from mtgauntlet.errors import GauntletError
from mtgauntlet.fileio import read_json_object
from mtgauntlet.schema import SIGNATURE_METADATA_KEY, get_kind, kind_of_schema

SKIP_DIRS = ("work",)  # per-item shards of finalizing builders; the final records are in data/


@dataclass
class BuildInput:
    path: Path
    manifest: dict[str, Any]
    files: dict[str, list[Path]] = field(default_factory=dict)  # kind -> record files

    @property
    def signature(self) -> str:
        return self.manifest.get("signature") or ""


def find_build_dir(path: str | Path) -> Path:
    """The build directory (holding build.json) that ``path`` is or lies in."""
    p = Path(path)
    if not p.exists():
        raise GauntletError(f"{p}: no such file or directory")
    p = p.resolve()
    start = p.parent if p.is_file() else p
    for candidate in (start, *list(start.parents)[:2]):
        if (candidate / BUILD_MANIFEST).is_file():
            return candidate
    if (start / "manifest.json").is_file():
        raise GauntletError(f"{path}: is a release, not a build; release the builds it was made from")
    raise GauntletError(
        f"{path}: not a build (no {BUILD_MANIFEST} here or above); only complete builds made by "
        "`gauntlet build` can be released"
    )


def _read_build_manifest(build: Path) -> dict[str, Any]:
    manifest = read_json_object(build / BUILD_MANIFEST, "build manifest")
    if manifest.get("status") != "complete":
        raise GauntletError(
            f"{build}: the build is not complete (status {manifest.get('status')!r}); finish it "
            "(run the same build command again) before releasing"
        )
    return manifest


def _record_files(build: Path) -> list[Path]:
    files = []
    for p in sorted(build.rglob("*.parquet")):
        rel = p.relative_to(build).parts
        if rel[0] in SKIP_DIRS or any(part.startswith(".") for part in rel):
            continue
        files.append(p)
    return files


def load_build(path: str | Path) -> BuildInput:
    build = find_build_dir(path)
    manifest = _read_build_manifest(build)
    signature = manifest.get("signature")
    out = BuildInput(build, manifest)
    files: dict[str, list[Path]] = defaultdict(list)
    for f in _record_files(build):
        try:
            schema = pq.read_schema(f)
        except Exception as exc:  # pyarrow raises several types for unreadable files
            raise GauntletError(f"{f}: cannot read Parquet ({exc})") from None
        meta, kind = schema.metadata or {}, kind_of_schema(schema)
        if kind is None:
            raise GauntletError(f"{f}: not an mtgauntlet record file (no kind in its Parquet metadata)")
        file_sig = meta.get(SIGNATURE_METADATA_KEY, b"").decode()
        if file_sig and signature and file_sig != signature:
            raise GauntletError(
                f"{f}: belongs to another build (signature {file_sig}, {BUILD_MANIFEST} says {signature})"
            )
        files[kind].append(f)
    if not files:
        raise GauntletError(f"{build}: the build holds no record files")
    main = manifest.get("kind")
    produced = manifest.get("produced", (manifest.get("counts") or {}).get("produced"))
    if main and produced is not None:
        rows = sum(pq.ParquetFile(f).metadata.num_rows for f in files.get(main, []))
        if rows != produced:
            raise GauntletError(
                f"{build}: {rows} {main} records on disk but {BUILD_MANIFEST} says {produced}: "
                "files were added or removed after the build; rebuild it"
            )
    out.files = dict(files)
    return out


def load_builds(paths: Sequence[str | Path]) -> list[BuildInput]:
    """Every build once: the same directory, or two builds with the same signature, is refused."""
    builds: list[BuildInput] = []
    for p in paths:
        b = load_build(p)
        for other in builds:
            if other.path == b.path:
                raise GauntletError(f"{p}: build {b.path} is given twice; give each build once")
            if b.signature and other.signature == b.signature:
                raise GauntletError(
                    f"{b.path} and {other.path} are the same build (signature {b.signature}); release one of them"
                )
        builds.append(b)
    return builds


def dedupe_key(kind: str, table: pa.Table) -> list[str]:
    return ["id"] if "id" in table.column_names else list(get_kind(kind).id_fields)


PROVENANCE_ONLY = ("created_at",)  # when each build made a record: copies may differ here and still be one record


def _same(a: Any, b: Any) -> bool:
    """Equal values, NaN equal to NaN, lists and structs compared element by element."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def drop_duplicates(kind: str, table: pa.Table) -> tuple[pa.Table, int]:
    """Keep the first record of each id (or id fields) and drop its copies; returns the table and how many
    copies were dropped. A copy must equal the first record in every column (``created_at`` aside):
    records that share an id but differ are refused, since dropping one would lose data."""
    keys = dedupe_key(kind, table)
    if len(keys) == 1:
        if pc.count_distinct(table.column(keys[0]), mode="all").as_py() == table.num_rows:
            return table, 0
    idx = pa.array(range(table.num_rows), type=pa.int64())
    groups = (
        table.select(keys)
        .append_column("__row", idx)
        .group_by(keys, use_threads=False)
        .aggregate([("__row", "min"), ("__row", "list")])
    )
    if len(groups) == table.num_rows:
        return table, 0
    compared = [c for c in table.column_names if c not in PROVENANCE_ONLY]
    shared = groups.filter(pc.greater(pc.list_value_length(groups.column("__row_list")), 1))
    groups_rows = [sorted(rows) for rows in shared.column("__row_list").to_pylist()]
    records = iter(table.select(compared).take([r for rows in groups_rows for r in rows]).to_pylist())
    for rows in groups_rows:
        first, *copies = [next(records) for _ in rows]
        for copy in copies:
            differ = [c for c in compared if not _same(first[c], copy[c])]
            if differ:
                key = ", ".join(f"{k}={first[k]!r}" for k in keys)
                raise GauntletError(
                    f"{kind}: two records share the id {key[:200]} but differ in {', '.join(differ[:5])}: "
                    "releasing them together would drop one; release these builds separately (or rebuild the "
                    "older one: a bandit pull log made before bandit v4 names its search ambiguously)"
                )
    keep = pc.sort_indices(groups.column("__row_min"))
    firsts = pc.take(groups.column("__row_min"), keep)
    return table.take(firsts), table.num_rows - len(firsts)


def tables_by_kind(
    builds: Sequence[BuildInput],
) -> tuple[dict[str, pa.Table], dict[str, dict[str, int]], dict[str, int]]:
    """(records per kind, kind -> build signature -> records before dedup, duplicates dropped per kind)."""
    tables: dict[str, list[pa.Table]] = defaultdict(list)
    rows: dict[str, dict[str, int]] = defaultdict(dict)
    for b in builds:
        for kind, files in sorted(b.files.items()):
            t = pa.concat_tables([pq.read_table(f) for f in files], promote_options="default")
            tables[kind].append(t)
            rows[kind][b.signature] = rows[kind].get(b.signature, 0) + t.num_rows
    out, dropped = {}, {}
    for kind, ts in sorted(tables.items()):
        table = pa.concat_tables(ts, promote_options="default") if len(ts) > 1 else ts[0]
        out[kind], dropped[kind] = drop_duplicates(kind, table)
    return out, dict(rows), dropped


def reader_dataset_name(path: str | Path) -> str:
    """The ``source_dataset`` the generic readers give records of an input file (its name up to the first dot,
    as :func:`mtgauntlet.corpora.formats.read_parallel` names it)."""
    return Path(str(path)).name.split(".")[0]


def input_provenance(files: Sequence[str | Path]) -> tuple[dict[str, Any], list[str]]:
    """Provenance of the input files the builds read, recognised by sha256 only (never by name): a file that is
    data mtgauntlet ships gives its provenance to the source_dataset names its readers give it. Returns
    (source_dataset -> Provenance, notes on files not recognised)."""
    from mtgauntlet.cards.licenses import recognise, with_origin
    from mtgauntlet.fileio import sha256_file

    out: dict[str, Any] = {}
    notes = []
    for f in files:
        p = Path(f)
        if not p.is_file():
            raise GauntletError(f"{p}: no such input file (--input-file names a file the builds read)")
        digest = sha256_file(p)
        known = recognise(digest)
        if known is None:
            # the file's name only: a local absolute path says nothing to a reader and tells where files live
            notes.append(
                f"{p.name} (sha256 {digest[:12]}) is not data mtgauntlet recognises: state the provenance of "
                f"its records with --provenance '{reader_dataset_name(p)}:license=ID'"
            )
            continue
        prov = with_origin(known.provenance, f"recognised by content: sha256 {digest} is {known.describe}")
        for name in dict.fromkeys((*known.datasets, reader_dataset_name(p))):
            out[name] = prov
    return out, notes
