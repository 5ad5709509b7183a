"""What the catalog reads: exactly the data files that release manifests seal.

A folder holding a ``manifest.json`` is a release, wherever it lies under the root (``name=/version=``
folders, a git clone, a Hub download). Its records are the data files its manifest lists, each a
regular file inside the release reached without a symbolic link, with the size, sha256, record kind
and row count the manifest states; its name and version come from the manifest (a ``name=X/version=Y``
path that says otherwise is a warning sign: the release is skipped). A release with any such problem is
skipped whole (a query never sees part of a release), and so is a second copy of a name and version.

A root without any release is a folder of build outputs: every record Parquet file in it (kind from
its Parquet metadata) is read, without names or versions. With releases, every other Parquet file is
skipped. Nothing is found by following a symbolic link, nothing takes a value from a path, and whatever is
skipped is reported with its reason.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mtgauntlet.errors import GauntletError
from mtgauntlet.fileio import sha256_file
from mtgauntlet.releases.manifest import RELEASE_MANIFEST, listed_file, read_manifest, release_files
from mtgauntlet.releases.version import Version, check_name
from mtgauntlet.schema import KINDS, kind_of_schema

_KIND = re.compile(r"[a-z][a-z0-9_]{0,62}")
SKIP_DIRS = ("work",)  # per-item shards of builds; their records are in data/


@dataclass
class Release:
    name: str
    version: Version
    path: Path
    manifest: dict[str, Any]
    files: list[dict[str, Any]]  # the manifest's data file entries, each with "file": its resolved Path


@dataclass
class Sources:
    root: Path
    releases: list[Release] = field(default_factory=list)
    builds: dict[str, list[Path]] = field(default_factory=dict)  # kind -> record files (a root without releases)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path relative to the root, why)

    def skip(self, path: Path, why: str) -> None:
        rel = path.relative_to(self.root).as_posix() if path != self.root else "."
        self.skipped.append((rel, why))


def record_kind(path: Path) -> tuple[str | None, str]:
    """(registered record kind, "") of a Parquet file, or (None, why not)."""
    try:
        kind = kind_of_schema(pq.read_schema(path))
    except Exception:  # pyarrow raises several types for unreadable files
        return None, "not a readable Parquet file"
    if kind is None:
        return None, "not an mtgauntlet record file (no kind in its Parquet metadata)"
    if not _KIND.fullmatch(kind) or kind not in KINDS:
        return None, f"unknown record kind {kind[:80]!r} in its Parquet metadata"
    return kind, ""


def _check_file(rel_dir: Path, entry: dict[str, Any]) -> str:
    """The problem of one data file a manifest lists ("" when it is exactly what the manifest seals)."""
    rel = entry["path"]
    p, problem = listed_file(rel_dir, rel)
    if p is None:
        return f"{rel}: {problem}"
    if not isinstance(entry.get("kind"), str) or entry["kind"] not in KINDS:
        return f"{rel}: unknown record kind {str(entry.get('kind'))[:80]!r} in the manifest"
    if isinstance(entry.get("bytes"), int) and p.stat().st_size != entry["bytes"]:
        return f"{rel}: {p.stat().st_size} bytes, the manifest says {entry['bytes']}"
    if sha256_file(p) != entry["sha256"]:
        return f"{rel}: changed since the release (sha256 differs from the manifest)"
    kind, why = record_kind(p)
    if kind != entry["kind"]:
        return f"{rel}: " + (why or f"holds {kind} records, the manifest says {entry['kind']}")
    rows = pq.ParquetFile(p).metadata.num_rows
    if "rows" in entry and rows != entry["rows"]:
        return f"{rel}: {rows} rows, the manifest says {entry['rows']}"
    entry["file"] = p.resolve()
    return ""


check_listed_file = _check_file  # the results folder of the metric workbench checks its shards the same way


def _release(sources: Sources, folder: Path) -> None:
    try:
        manifest = read_manifest(folder)
        name, version = check_name(manifest["name"]), Version.parse(manifest["version"])
    except GauntletError as exc:
        return sources.skip(folder, f"not a readable release ({exc})")
    if folder.name.startswith("version=") and folder.parent.name.startswith("name="):
        said = (folder.parent.name[len("name=") :], folder.name[len("version=") :])
        if said != (name, str(version)):
            return sources.skip(folder, f"its path says {said[0]} {said[1]} but its manifest {name} {version}")
    for other in sources.releases:
        if (other.name, other.version) == (name, version):
            return sources.skip(
                folder, f"{name} {version} again (read from {other.path.relative_to(sources.root).as_posix() or '.'})"
            )
    entries = [dict(f) for f in manifest["files"] if f.get("kind")]
    for entry in entries:
        problem = _check_file(folder, entry)
        if problem:
            return sources.skip(folder, f"release {name} {version}: {problem} (gauntlet verify lists every problem)")
    listed = {f["path"] for f in manifest["files"]}
    for rel in release_files(folder):
        if rel not in listed:
            sources.skip(folder / rel, f"not listed in the manifest of {name} {version}")
    sources.releases.append(Release(name, version, folder.resolve(), manifest, entries))


def find_sources(root: Path) -> Sources:
    """Walk ``root`` (never through a symbolic link) for releases, or build outputs when it holds none."""
    sources = Sources(root)
    loose: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        folder = Path(dirpath)
        if RELEASE_MANIFEST in filenames:
            dirnames[:] = []  # a release's files are what its manifest lists
            _release(sources, folder)
            continue
        for d in sorted(dirnames):
            if (folder / d).is_symlink():
                sources.skip(folder / d, "symbolic link (not followed)")
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS and not (folder / d).is_symlink()
        )
        for f in sorted(filenames):
            if f.endswith(".parquet") and not f.startswith("."):
                if (folder / f).is_symlink():
                    sources.skip(folder / f, "symbolic link (not followed)")
                else:
                    loose.append(folder / f)
    if sources.releases or any(why.startswith("not a readable release") for _, why in sources.skipped):
        for p in loose:
            sources.skip(p, "not in a release (with releases under the root, only their manifests' files are read)")
        return sources
    builds: dict[str, list[Path]] = defaultdict(list)
    for p in loose:
        kind, why = record_kind(p)
        if kind is None:
            sources.skip(p, why)
        else:
            builds[kind].append(p.resolve())
    sources.builds = dict(builds)
    return sources
