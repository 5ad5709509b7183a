"""The arguments and options of ``gauntlet import`` and ``gauntlet export`` (``mg.import_set``, ``mg.export_set``),
declared once (`mtgauntlet.options`): the commands, the functions' signatures and ``Args`` and the checks are made
from these dataclasses.

An importer's own option (``--score-col`` of human-table, ``--reference``) is one field of `ImportOptions` after
``out``: every such field reaches `mtgauntlet.sets.importing.import_release` as the keyword of its name
(`mtgauntlet.api.sets.importer_keywords`; ``score_col`` and the reference/system choices are converted there), so
adding one is this field and the importer reading its keyword."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet import shared_options as shared
from mtgauntlet.options import argument, option


def import_formats() -> tuple[str, ...]:
    from mtgauntlet.sets.importing import IMPORT_FORMATS

    return tuple(IMPORT_FORMATS)


def export_formats() -> tuple[str, ...]:
    from mtgauntlet.sets.exporting import EXPORT_FORMATS

    return tuple(EXPORT_FORMATS)


def format_argument(choices: Callable[[], tuple[str, ...]], what: str, doc: str) -> Any:
    """The FORMAT argument of import and export: one of ``choices``, which its help lists after ``what``."""
    return argument(choices=choices, help=f"{what}: {', '.join(choices())}.", doc=doc)


IMPORT_FORMAT_DOC = (
    "``aces`` (TSV or JSON lines), ``span-aces``, ``demetr`` (a folder of its per-perturbation JSON files or "
    "their JSON-lines concatenation, ``.gz`` accepted), ``wmt-challenge`` (TSV ``lp, source, good, incorrect, "
    "reference, phenomena``), ``mtme`` (a folder in the mt-metrics-eval layout) or ``human-table`` (a flat TSV "
    "``lp, seg_id, system, <score columns>, src, ref, tgt``) or ``mqm-spans`` (Google's MQM error annotations, one "
    "row per error, the span marked ``<v>…</v>`` in the target)."
)
EXPORT_FORMAT_DOC = (
    "``wmt-challenge`` or ``aces`` (a pair set, challenge_pair or smaug_pair; TSV, or ACES JSON lines when "
    "``out`` ends in ``.jsonl``), ``mtme`` (a human_score set, to an mt-metrics-eval folder) or ``seg-score`` "
    "(metric_score records: ``RELEASE`` is their Parquet file or folder; WMT ``*.seg.score`` and "
    "``*.sys.score`` files per metric into the folder ``out``)."
)


@dataclass(kw_only=True, frozen=True)
class ImportOptions:
    """Import a public set (ACES, Span-ACES, DEMETR, WMT challenge TSV, mt-metrics-eval folder, flat human-judgment
    table, Google's MQM error spans) as a sealed release of challenge_pair or human_score records; skipped rows are
    counted in the card."""

    format: str = format_argument(import_formats, "The set's format", doc=IMPORT_FORMAT_DOC)
    path: str | Path = argument(
        help="The file (aces, span-aces, wmt-challenge, human-table, mqm-spans; demetr JSON lines, .gz accepted) or folder "
        "(demetr's per-perturbation JSON files, mtme's mt-metrics-eval layout) to import.",
        doc="The file or folder to import.",
    )
    name: str = shared.release_name()
    version: str = shared.release_version(
        "Semantic version X.Y.Z; never overwritten.", doc="Semantic version ``X.Y.Z``; never overwritten."
    )
    provenance: Sequence[str] = option(
        (),
        help="The set's provenance as FIELD=VALUE (license=ID (a Hub id), name, url, citation, license_name, "
        "license_link, hub_id) or DATASET:FIELD=VALUE; repeat. Data mtgauntlet recognises by sha256 (DEMETR, the "
        "WMT23 MQM table) needs none.",
        doc="The set's provenance, as ``DATASET:FIELD=VALUE`` (DATASET: the input's name up to its first dot) or "
        "``FIELD=VALUE`` for the imported set (``license=mit``, ``name=…``, ``url=…``, ``citation=…``). Data "
        "mtgauntlet knows by its sha256 (DEMETR, the WMT23 MQM table) needs none.",
    )
    out: str | Path = shared.releases_root()
    # the importers' own options (each passed to import_release as the keyword of its name)
    score_col: str | Sequence[str] | None = option(
        None,
        help="human-table: the human score column(s), comma-separated (e.g. mqm,da_sqm).",
        doc='human-table only: the human score column(s), e.g. ``"mqm,da_sqm"``.',
    )
    reference: str | Sequence[str] | None = option(
        None,
        help="mtme, human-table: the standard reference, NAME or LP=NAME (he-en=refB), never a system (default: the "
        "table's ref column, the folder's refA).",
        doc="Human-judgment sets (mtme, human-table): the standard reference, ``NAME`` for every language pair or "
        '``LP=NAME`` (``"he-en=refB"``); never a system. Default: a human table\'s ``ref`` column, an '
        "mt-metrics-eval folder's refA.",
    )
    ref_systems: str | Sequence[str] | None = option(
        None,
        help="mtme, human-table: human references scored as systems: all, NAME or LP:NAME, comma-separated (default "
        "none, as WMT: their rows are skipped and counted).",
        doc='Human-judgment sets: the human references scored as systems, ``"all"``, names or ``LP:NAME``. Default '
        "none, as in WMT's metrics task: their rows are skipped, counted, and warned about.",
    )
    exclude_systems: str | Sequence[str] | None = option(
        None,
        help="mtme, human-table: systems left out (outliers), NAME or LP:NAME, comma-separated.",
        doc="Human-judgment sets: systems left out (a task's outliers), names or ``LP:NAME``.",
    )


@dataclass(kw_only=True, frozen=True)
class ExportOptions:
    """Write a release in the field's formats: a pair set as the WMT challenge TSV or the ACES TSV, a human-judgment
    set in the mt-metrics-eval layout, metric results as WMT *.seg.score / *.sys.score files."""

    format: str = format_argument(export_formats, "The format to write", doc=EXPORT_FORMAT_DOC)
    release: Any = argument(
        help="A release directory (…/name=NAME/version=X.Y.Z); for seg-score the metric_score Parquet file or folder.",
        doc="A release directory (or `Release`); for seg-score the metric_score Parquet file(s).",
    )
    out: str | Path = shared.out(
        "File (wmt-challenge, aces; .jsonl: ACES JSON lines) or folder (mtme, seg-score) to write; never overwritten.",
        doc="The file (wmt-challenge, aces) or folder (mtme, seg-score) to write; never overwritten.",
    )
    releases: str | Path = option(
        "releases",
        help="seg-score: the releases root holding the scored sets.",
        doc="seg-score only: the releases root holding the scored sets.",
    )
