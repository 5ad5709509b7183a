"""The records of a path, read the way the catalog reads them: a folder sealed by a manifest (a release, or a results
folder of ``gauntlet evaluate metric --out``) gives exactly the data files its manifest lists, each checked against
it (size, sha256, record kind, rows: any difference is a one-line error naming the file, exit 2); a file beside them
that the manifest does not seal (a planted shard, a killed run's unsealed one) is not read, with a warning. A path
without a manifest (a build folder, loose Parquet files) is read as :mod:`mtgauntlet.records` reads it.

What `gauntlet export` reads, so that what it writes is what was released or sealed.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from mtgauntlet.errors import GauntletError, GauntletWarning
from mtgauntlet.records import load_records_by_kind
from mtgauntlet.releases.catalog_sources import check_listed_file
from mtgauntlet.releases.manifest import RELEASE_MANIFEST, read_manifest, release_files


def is_sealed(path: str | Path) -> bool:
    """Whether ``path`` is a folder with a manifest (its records are what the manifest seals)."""
    return Path(path).is_dir() and (Path(path) / RELEASE_MANIFEST).is_file()


def sealed_files_by_kind(path: str | Path) -> dict[str, list[Path]]:
    """record kind -> the data files the manifest of ``path`` seals, each checked against its entry."""
    root = Path(path)
    manifest = read_manifest(root)
    out: dict[str, list[Path]] = defaultdict(list)
    for entry in (dict(f) for f in manifest["files"] if f.get("kind")):
        problem = check_listed_file(root, entry)
        if problem:
            raise GauntletError(f"{root}: refused: {problem} (`gauntlet verify` lists every problem)")
        out[entry["kind"]].append(entry["file"])
    listed = {f["path"] for f in manifest["files"]}
    unsealed = [rel for rel in release_files(root) if rel.endswith(".parquet") and rel not in listed]
    if unsealed:
        more = f" and {len(unsealed) - 1} more" if len(unsealed) > 1 else ""
        warnings.warn(
            GauntletWarning(f"{root}: {unsealed[0]}{more} not sealed by its manifest: not read"), stacklevel=2
        )
    return dict(out)


def load_sealed_by_kind(path: str | Path) -> dict[str, pa.Table]:
    """Every record of ``path``, one table per kind: through the seal where there is one (see the module)."""
    if not is_sealed(path):
        return load_records_by_kind(path)
    return {
        kind: pa.concat_tables([pq.read_table(f) for f in files], promote_options="default")
        for kind, files in sorted(sealed_files_by_kind(path).items())
    }


def load_sealed(path: str | Path, kind: str) -> pa.Table:
    """The ``kind`` records of ``path`` (through its seal, see :func:`load_sealed_by_kind`)."""
    by_kind = load_sealed_by_kind(path)
    if kind not in by_kind:
        raise GauntletError(f"{path}: no {kind} records (found: {', '.join(by_kind) or 'none'})")
    return by_kind[kind]
