"""The sealed files of a workbench results folder (``gauntlet evaluate metric --out``): what the catalog reads of
it (its ``metric_score`` and ``leaderboard`` views), each file checked against the folder's manifest."""

from __future__ import annotations

from pathlib import Path

from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.catalog_sources import check_listed_file
from mtgauntlet.releases.manifest import read_manifest

RESULTS_KIND = "metric_results"  # the manifest kind of a results folder


def sealed_files(root: Path, kind: str | None = None) -> list[Path]:
    """The data files the manifest seals, each checked (size, sha256, kind, rows); any difference is an error."""
    manifest = read_manifest(root)
    if manifest.get("kind") != RESULTS_KIND:
        raise GauntletError(
            f"{root}: not a results folder of `gauntlet evaluate metric --out` (its manifest's kind "
            f"is {manifest.get('kind')!r})"
        )
    out = []
    for entry in (dict(f) for f in manifest["files"] if f.get("kind")):
        problem = check_listed_file(root, entry)
        if problem:
            raise GauntletError(f"{root}: results refused: {problem}")
        if kind is None or entry["kind"] == kind:
            out.append(entry["file"])
    return out
