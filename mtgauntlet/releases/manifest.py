"""The release manifest: sha256 and size of every file of the release (data, card, Croissant, plots).

``verify_release`` fails on any changed, missing or extra file, so what ``publish`` uploads (exactly
the manifest's files plus the manifest) is what was released.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mtgauntlet.errors import GauntletError
from mtgauntlet.fileio import read_json, sha256_file

RELEASE_MANIFEST = "manifest.json"


def release_files(root: Path) -> list[str]:
    """Every file under a release directory (relative POSIX paths), the manifest excluded."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if (p.is_file() or p.is_symlink()) and p.relative_to(root).as_posix() != RELEASE_MANIFEST)


def describe_file(root: Path, rel: str, **extra: Any) -> dict[str, Any]:
    p = root / rel
    return {"path": rel, **extra, "sha256": sha256_file(p), "bytes": p.stat().st_size}


def read_manifest(release: str | Path) -> dict[str, Any]:
    """The manifest of a release; a missing or corrupt one is a one-line GauntletError."""
    path = Path(release) / RELEASE_MANIFEST
    if not Path(release).is_dir():
        raise GauntletError(f"{release}: not a release directory")
    data = read_json(path, "release manifest", "missing (not a release directory?)")
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list) or not all(isinstance(f, dict) and isinstance(f.get("path"), str)
                                              and isinstance(f.get("sha256"), str) for f in files):
        raise GauntletError(f"{path}: corrupt release manifest (no valid 'files' list)")
    for key in ("name", "version"):
        if not isinstance(data.get(key), str):
            raise GauntletError(f"{path}: corrupt release manifest (no '{key}')")
    return data


def verify_release(path: str | Path) -> list[str]:
    """Re-check every file of a release against its manifest; returns the problems (empty = fine).

    Raises GauntletError when the manifest itself is missing or corrupt.
    """
    root = Path(path)
    manifest = read_manifest(root)
    problems = []
    listed = set()
    for f in manifest["files"]:
        rel = f["path"]
        listed.add(rel)
        p = root / rel
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            problems.append(f"{rel}: path outside the release")
            continue
        if p.is_symlink() or not p.is_file():
            problems.append(f"{rel}: missing" if not p.exists() else f"{rel}: not a regular file")
            continue
        digest = sha256_file(p)
        if digest != f["sha256"]:
            problems.append(f"{rel}: changed (sha256 {digest[:12]}…, manifest {f['sha256'][:12]}…)")
            continue
        if "rows" in f:
            rows = pq.ParquetFile(p).metadata.num_rows
            if rows != f["rows"]:
                problems.append(f"{rel}: {rows} rows, manifest says {f['rows']}")
    for rel in release_files(root):
        if rel not in listed:
            problems.append(f"{rel}: extra file, not in the manifest")
    return problems
