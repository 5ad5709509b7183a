"""`gauntlet release`, `gauntlet verify`, `gauntlet publish`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer



def release(
    builds: List[str] = typer.Argument(..., help="Completed build directories (or Parquet record files/dirs)."),
    name: str = typer.Option(..., "--name", "-n", help="Release name (letters, digits, . _ -)."),
    version: str = typer.Option(..., "--version", "-V", help="Semantic version X.Y.Z; never overwritten."),
    out: str = typer.Option("releases", "--out", "-o", help="Releases root (hive layout name=/version=)."),
    report: Optional[str] = typer.Option(None, "--report", help="Validation report JSON (gauntlet validate --report)."),
    license: str = typer.Option("cc-by-sa-4.0", help="License id for the card (match your source data)."),
    pretty_name: Optional[str] = typer.Option(None, help="Human-readable dataset name for the card."),
    figure: List[str] = typer.Option([], "--figure", help="Extra PNG figure(s) to embed in the card."),
):
    """Package builds as releases/name=NAME/version=X.Y.Z/ (atomic; Parquet per config, manifest, card)."""
    from mtgauntlet.releases.release import make_release

    validation = None
    if report:
        p = Path(report)
        p = p / "report.json" if p.is_dir() else p
        validation = json.loads(p.read_text(encoding="utf-8"))
    extra = [Path(f) for f in figure]
    for b in builds:
        extra += sorted((Path(b) / "figures").glob("*.png"))
    path = make_release(builds, name, version, out=out, validation=validation, license=license,
                        pretty_name=pretty_name, extra_figures=extra)
    m = json.loads((path / "manifest.json").read_text())
    typer.echo(f"released {name} {version}: {m['total_rows']} records in {len(m['files'])} files -> {path}")


def verify(release_dir: str = typer.Argument(..., help="A release directory (…/name=NAME/version=X.Y.Z).")):
    """Re-check every release file's sha256 and row count against manifest.json; non-zero exit on mismatch."""
    from mtgauntlet.releases.release import verify_release

    problems = verify_release(release_dir)
    if problems:
        for p in problems:
            typer.echo(f"MISMATCH {p}", err=True)
        raise typer.Exit(1)
    typer.echo(f"OK {release_dir}: every file matches its manifest checksum")


def publish(
    release_dir: str = typer.Argument(..., help="A release directory."),
    repo: str = typer.Option(..., "--repo", help="Hub dataset repo ORG/NAME, or file:PATH for a local git repo."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the exact commit operations; publish nothing."),
    branch: str = typer.Option("main", help="Branch to commit to."),
):
    """One atomic commit of the release + card, then the immutable tag vX.Y.Z (refused if it exists)."""
    from mtgauntlet.releases.publish import publish as do_publish

    plan = do_publish(release_dir, repo, dry_run=dry_run, branch=branch)
    typer.echo(plan.describe())
    if dry_run:
        typer.echo("dry run: nothing was published")
    else:
        typer.echo(f"published commit {plan.commit} and tag {plan.tag}")
