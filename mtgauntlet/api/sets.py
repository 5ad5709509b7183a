"""Sets in and out from Python: `import_set` (``gauntlet import``) and `export_set` (``gauntlet export``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.api.inputs import path_of
from mtgauntlet.api.results import Release
from mtgauntlet.api.session import public, warn

__all__ = ["Export", "export_set", "import_set"]


@dataclass
class Export:
    """What `export_set` wrote: ``format``, ``path`` (a file or folder), ``records`` and ``files``."""

    format: str
    path: Path
    records: int
    files: list[Path] = field(default_factory=list)

    def describe(self) -> str:
        return f"exported {self.records} records as {self.format} -> {self.path}"


def _names(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    return [n.strip() for item in items for n in str(item).split(",") if n.strip()]


@public
def import_set(
    format: str,
    path: str | Path,
    *,
    name: str,
    version: str,
    provenance: Sequence[str] = (),
    out: str | Path = "releases",
    score_col: str | Sequence[str] | None = None,
    reference: str | Sequence[str] | None = None,
    ref_systems: str | Sequence[str] | None = None,
    exclude_systems: str | Sequence[str] | None = None,
    progress: bool | None = False,
) -> Release:
    """Import a public challenge set or human-judgment set as a sealed release ``OUT/name=NAME/version=VERSION``
    (manifest, card, Croissant), of ``challenge_pair`` (pair sets) or ``human_score`` (human judgments) records.
    Rows skipped (DEMETR's ``pert_check = false``, mt-metrics-eval pairs without a human score) are counted by
    reason in the manifest (``builds[0].counts.skipped``) and the card.

    Args:
        format: ``aces`` (TSV or JSON lines), ``span-aces``, ``demetr`` (a folder of its per-perturbation JSON
            files or their JSON-lines concatenation, ``.gz`` accepted), ``wmt-challenge`` (TSV ``lp, source, good,
            incorrect, reference, phenomena``), ``mtme`` (a folder in the mt-metrics-eval layout) or
            ``human-table`` (a flat TSV ``lp, seg_id, system, <score columns>, src, ref, tgt``) or ``mqm-spans``
            (Google's MQM error annotations, one row per error, the span marked ``<v>…</v>`` in the target).
        path: The file or folder to import.
        name: Release name (letters, digits, ``.`` ``_`` ``-``).
        version: Semantic version ``X.Y.Z``; never overwritten.
        provenance: The set's provenance, as ``DATASET:FIELD=VALUE`` (DATASET: the input's name up to its first
            dot) or ``FIELD=VALUE`` for the imported set (``license=mit``, ``name=…``, ``url=…``, ``citation=…``).
            Data mtgauntlet knows by its sha256 (DEMETR, the WMT23 MQM table) needs none.
        out: Releases root.
        score_col: human-table only: the human score column(s), e.g. ``"mqm,da_sqm"``.
        reference: Human-judgment sets (mtme, human-table): the standard reference, ``NAME`` for every language
            pair or ``LP=NAME`` (``"he-en=refB"``); never a system. Default: a human table's ``ref`` column, an
            mt-metrics-eval folder's refA.
        ref_systems: Human-judgment sets: the human references scored as systems, ``"all"``, names or ``LP:NAME``.
            Default none, as in WMT's metrics task: their rows are skipped, counted, and warned about.
        exclude_systems: Human-judgment sets: systems left out (a task's outliers), names or ``LP:NAME``.

    Returns:
        The `Release`; its manifest and card count the skipped rows by reason.

    Raises:
        GauntletError: A malformed row (one line naming file, line and field), an unknown format, an existing
            release.

    Examples:
        >>> rel = mg.import_set("demetr", "demetr_dev.jsonl.gz", name="demetr", version="1.0.0")
        >>> rel.manifest["builds"][0]["counts"]["skipped"]
    """
    from mtgauntlet.api.releasing import release_warnings
    from mtgauntlet.sets.importing import import_release
    from mtgauntlet.sets.systems import SystemChoice

    target, said = import_release(
        format,
        path_of(path),
        name=name,
        version=version,
        out=out,
        provenance=list(provenance or ()),
        score_cols=_names(score_col),
        systems=SystemChoice.parse(reference, ref_systems, exclude_systems),
    )
    result = Release.open(target)
    result.warnings = said + release_warnings(result.manifest)
    for w in result.warnings:
        warn(w)
    return result


@public
def export_set(
    format: str, release: Any, *, out: str | Path, releases: str | Path = "releases", progress: bool | None = False
) -> Export:
    """Write a release in one of the field's formats.

    Args:
        format: ``wmt-challenge`` or ``aces`` (a pair set, challenge_pair or smaug_pair; TSV, or ACES JSON lines
            when ``out`` ends in ``.jsonl``), ``mtme`` (a human_score set, to an mt-metrics-eval folder) or
            ``seg-score`` (metric_score records: ``RELEASE`` is their Parquet file or folder; WMT ``*.seg.score``
            and ``*.sys.score`` files per metric into the folder ``out``).
        release: A release directory (or `Release`); for seg-score the metric_score Parquet file(s).
        out: The file (wmt-challenge, aces) or folder (mtme, seg-score) to write; never overwritten.
        releases: seg-score only: the releases root holding the scored sets.

    Returns:
        An `Export`: ``path``, ``records`` and the ``files`` written.

    Raises:
        GauntletError: No records of a kind the format takes, a text the format cannot carry (a TAB or line
            break in a TSV), an existing ``out``.

    Examples:
        >>> mg.export_set("wmt-challenge", "releases/name=demetr/version=1.0.0", out="demetr.tsv")
    """
    from mtgauntlet.sets.exporting import export_release

    summary = export_release(format, path_of(release), out, releases=releases)
    return Export(
        format=format, path=Path(summary["out"]), records=summary["records"], files=[Path(f) for f in summary["files"]]
    )
