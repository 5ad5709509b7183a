"""The release manifest: sha256 and size of every file of the release (data, card, Croissant, plots).

``verify_release`` fails on any changed, missing or extra file, so what ``publish`` uploads (exactly
the manifest's files plus the manifest) is what was released. A published copy verifies too: the
metadata that version control and the Hub put beside a release (``.git``, ``.gitattributes``, the
Hub's download cache ``.cache/huggingface/``, all at the release's top) is not part of it, and
nothing else is ignored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mtgauntlet.errors import GauntletError
from mtgauntlet.fileio import sha256_file

RELEASE_MANIFEST = "manifest.json"
VCS_FILES = (".git", ".gitattributes")  # at a release's top: a git clone, a Hub repository
VCS_DIRS = (".git", ".cache/huggingface")  # at a release's top: git, huggingface_hub's local_dir download cache


def is_vcs_metadata(rel: str) -> bool:
    """Whether a path (relative to a release) is version-control or Hub download metadata, not release data."""
    return rel in VCS_FILES or any(rel.startswith(d + "/") for d in VCS_DIRS)


def release_files(root: Path) -> list[str]:
    """Every file under a release directory (relative POSIX paths; symbolic links included, never followed),
    the manifest and version-control / Hub download metadata excluded."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = sorted(d for d in dirnames if not is_vcs_metadata(prefix + d + "/"))
        out += [prefix + d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        out += [prefix + f for f in filenames]
    return sorted(r for r in out if r != RELEASE_MANIFEST and not is_vcs_metadata(r))


def listed_file(root: Path, rel: str) -> tuple[Path | None, str]:
    """(path, "") for a file a manifest lists when it is a regular file inside the release, reached without
    any symbolic link; else (None, the problem)."""
    parts = Path(rel).parts
    if not rel or Path(rel).is_absolute() or ".." in parts or "\\" in rel:
        return None, "path outside the release"
    p = root
    for part in parts:
        p = p / part
        if p.is_symlink():
            return None, "reached through a symbolic link (not followed)"
    if not p.exists():
        return None, "missing"
    return (p, "") if p.is_file() else (None, "not a regular file")


def describe_file(root: Path, rel: str, **extra: Any) -> dict[str, Any]:
    p = root / rel
    return {"path": rel, **extra, "sha256": sha256_file(p), "bytes": p.stat().st_size}


def read_manifest(release: str | Path) -> dict[str, Any]:
    """The manifest of a release; a missing or corrupt one is a one-line GauntletError."""
    return read_manifest_bytes(release)[0]


def read_manifest_bytes(release: str | Path) -> tuple[dict[str, Any], bytes]:
    """The manifest of a release and the exact bytes it was parsed from (what ``publish`` uploads)."""
    path = Path(release) / RELEASE_MANIFEST
    if not Path(release).is_dir():
        raise GauntletError(f"{release}: not a release directory")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise GauntletError(f"{path}: missing (not a release directory?)") from None
    except OSError as exc:
        raise GauntletError(f"{path}: cannot read the release manifest ({exc.strerror})") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GauntletError(f"{path}: corrupt release manifest ({str(exc).splitlines()[0]})") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list) or not all(
        isinstance(f, dict) and isinstance(f.get("path"), str) and isinstance(f.get("sha256"), str) for f in files
    ):
        raise GauntletError(f"{path}: corrupt release manifest (no valid 'files' list)")
    for key in ("name", "version"):
        if not isinstance(data.get(key), str):
            raise GauntletError(f"{path}: corrupt release manifest (no '{key}')")
    return data, raw


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
        p, problem = listed_file(root, rel)
        if p is None:
            problems.append(f"{rel}: {problem}")
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
