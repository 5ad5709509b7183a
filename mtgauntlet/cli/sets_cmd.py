"""`gauntlet import` and `gauntlet export`: public sets in and out, in the field's formats (thin over mtgauntlet.api.sets)."""

from __future__ import annotations

import typer

from mtgauntlet.cli.common import checked, json_option, print_result
from mtgauntlet.sets.exporting import EXPORT_FORMATS
from mtgauntlet.sets.importing import IMPORT_FORMATS


def import_set(
    format: str = typer.Argument(
        ..., callback=checked(IMPORT_FORMATS), help=f"The set's format: {', '.join(IMPORT_FORMATS)}."
    ),
    path: str = typer.Argument(
        ...,
        help="The file (aces, span-aces, wmt-challenge, human-table, mqm-spans; demetr JSON lines, "
        ".gz accepted) or folder (demetr's per-perturbation JSON files, mtme's "
        "mt-metrics-eval layout) to import.",
    ),
    name: str = typer.Option(..., "--name", "-n", help="Release name (letters, digits, . _ -)."),
    version: str = typer.Option(..., "--version", "-V", help="Semantic version X.Y.Z; never overwritten."),
    provenance: list[str] = typer.Option(
        [],
        "--provenance",
        help="The set's provenance as FIELD=VALUE (license=ID "
        "(a Hub id), name, url, citation, license_name, license_link, hub_id) or "
        "DATASET:FIELD=VALUE; repeat. Data mtgauntlet recognises by sha256 "
        "(DEMETR, the WMT23 MQM table) needs none.",
    ),
    out: str = typer.Option("releases", "--out", "-o", help="Releases root (hive layout name=/version=)."),
    score_col: str | None = typer.Option(
        None, "--score-col", help="human-table: the human score column(s), comma-separated (e.g. mqm,da_sqm)."
    ),
    reference: str | None = typer.Option(
        None,
        "--reference",
        help="mtme, human-table: the standard reference, NAME or LP=NAME (he-en=refB), never a system "
        "(default: the table's ref column, the folder's refA).",
    ),
    ref_systems: str | None = typer.Option(
        None,
        "--ref-systems",
        help="mtme, human-table: human references scored as systems: all, NAME or LP:NAME, comma-separated "
        "(default none, as WMT: their rows are skipped and counted).",
    ),
    exclude_systems: str | None = typer.Option(
        None,
        "--exclude-systems",
        help="mtme, human-table: systems left out (outliers), NAME or LP:NAME, comma-separated.",
    ),
    json_out: bool = json_option("the release summary"),
):
    """Import a public set (ACES, Span-ACES, DEMETR, WMT challenge TSV, mt-metrics-eval folder, flat human-judgment
    table, Google's MQM error spans) as a sealed release of challenge_pair or human_score records; skipped rows are counted in the card."""
    from mtgauntlet.api import sets
    from mtgauntlet.cli.release_cmd import print_release

    rel = sets.import_set(
        format,
        path,
        name=name,
        version=version,
        provenance=provenance,
        out=out,
        score_col=score_col,
        reference=reference,
        ref_systems=ref_systems,
        exclude_systems=exclude_systems,
        progress=None,
    )
    print_release(rel, json_out)


def export_set(
    format: str = typer.Argument(
        ..., callback=checked(EXPORT_FORMATS), help=f"The format to write: {', '.join(EXPORT_FORMATS)}."
    ),
    release: str = typer.Argument(
        ...,
        help="A release directory (…/name=NAME/version=X.Y.Z); for seg-score the metric_score Parquet file or folder.",
    ),
    out: str = typer.Option(
        ...,
        "--out",
        "-o",
        help="File (wmt-challenge, aces; .jsonl: ACES JSON lines) or folder "
        "(mtme, seg-score) to write; never overwritten.",
    ),
    releases: str = typer.Option(
        "releases", "--releases", help="seg-score: the releases root holding the scored sets."
    ),
    json_out: bool = json_option("the export summary"),
):
    """Write a release in the field's formats: a pair set as the WMT challenge TSV or the ACES TSV, a human-judgment
    set in the mt-metrics-eval layout, metric results as WMT *.seg.score / *.sys.score files."""
    from mtgauntlet.api import sets

    done = sets.export_set(format, release, out=out, releases=releases, progress=None)
    print_result(
        json_out,
        done.describe(),
        {"format": done.format, "out": str(done.path), "records": done.records, "files": [str(f) for f in done.files]},
    )
