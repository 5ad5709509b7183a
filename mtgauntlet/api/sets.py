"""Sets in and out from Python: `import_set` (``gauntlet import``) and `export_set` (``gauntlet export``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.api.inputs import path_of
from mtgauntlet.api.results import Release
from mtgauntlet.api.session import public
from mtgauntlet.api.set_options import ExportOptions, ImportOptions
from mtgauntlet.options import declared, takes

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


def importer_keywords(o: ImportOptions) -> dict[str, Any]:
    """The importers' own options of ``o`` (the fields after ``out``), as keywords of
    `mtgauntlet.sets.importing.import_release` (a field of the keyword's name passes as it is); ``score_col`` as
    the list of columns ``score_cols``, the reference and system choices as one ``systems``."""
    from mtgauntlet.sets.systems import SystemChoice

    names = [d.name for d in declared(ImportOptions)]
    keywords = {name: getattr(o, name) for name in names[names.index("out") + 1 :]}
    keywords["score_cols"] = _names(keywords.pop("score_col", None))
    chosen = (keywords.pop("reference", None), keywords.pop("ref_systems", None), keywords.pop("exclude_systems", None))
    keywords["systems"] = SystemChoice.parse(*chosen)
    return keywords


@public
@takes(ImportOptions, returns=Release)
def import_set(o: ImportOptions) -> Release:
    """Import a public challenge set or human-judgment set as a sealed release ``OUT/name=NAME/version=VERSION``
    (manifest, card, Croissant), of ``challenge_pair`` (pair sets) or ``human_score`` (human judgments) records.
    Rows skipped (DEMETR's ``pert_check = false``, mt-metrics-eval pairs without a human score) are counted by
    reason in the manifest (``builds[0].counts.skipped``) and the card.

    Returns:
        The `Release`; its manifest and card count the skipped rows by reason.

    Raises:
        GauntletError: A malformed row (one line naming file, line and field), an unknown format, an existing
            release.

    Examples:
        >>> rel = mg.import_set("demetr", "demetr_dev.jsonl.gz", name="demetr", version="1.0.0")
        >>> rel.manifest["builds"][0]["counts"]["skipped"]
    """
    from mtgauntlet.api.releasing import opened_release
    from mtgauntlet.sets.importing import import_release

    target, said = import_release(
        o.format,
        path_of(o.path),
        name=o.name,
        version=o.version,
        out=o.out,
        provenance=list(o.provenance or ()),
        **importer_keywords(o),
    )
    return opened_release(target, said)


@public
@takes(ExportOptions, returns=Export)
def export_set(o: ExportOptions) -> Export:
    """Write a release in one of the field's formats.

    Returns:
        An `Export`: ``path``, ``records`` and the ``files`` written.

    Raises:
        GauntletError: No records of a kind the format takes, a text the format cannot carry (a TAB or line
            break in a TSV), an existing ``out``.

    Examples:
        >>> mg.export_set("wmt-challenge", "releases/name=demetr/version=1.0.0", out="demetr.tsv")
    """
    from mtgauntlet.sets.exporting import export_release

    summary = export_release(o.format, path_of(o.release), o.out, releases=o.releases)
    return Export(
        format=o.format,
        path=Path(summary["out"]),
        records=summary["records"],
        files=[Path(f) for f in summary["files"]],
    )
