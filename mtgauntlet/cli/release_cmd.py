"""`gauntlet release`, `gauntlet verify`, `gauntlet publish`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from mtgauntlet.cli.common import json_option, print_json, print_result
from mtgauntlet.errors import GauntletError


def _read_report(path: str) -> tuple[str, dict]:
    from mtgauntlet.fileio import read_json

    p = Path(path)
    p = p / "report.json" if p.is_dir() else p
    return str(p), read_json(p, "validation report", "no such validation report (write one with gauntlet "
                                                       "validate PATH --report DIR)")


def release(
    builds: List[str] = typer.Argument(..., help="Complete build directories (a path inside a build means the whole build)."),
    name: str = typer.Option(..., "--name", "-n", help="Release name (letters, digits, . _ -)."),
    version: str = typer.Option(..., "--version", "-V", help="Semantic version X.Y.Z or X.Y.Z-PRERELEASE (numbers "
                                "of at most 9 digits); never overwritten."),
    out: str = typer.Option("releases", "--out", "-o", help="Releases root (hive layout name=/version=)."),
    report: List[str] = typer.Option([], "--report", help="Validation report (gauntlet validate --report DIR) of these "
                                     "builds; repeat for builds validated separately. Refused if it validated other builds."),
    license: Optional[str] = typer.Option(None, help="Hugging Face Hub licence id for the card (other: with "
                                          "--license-name and --license-link); default: derived from the sources' "
                                          "provenance (warns on non-commercial or unknown sources)."),
    license_name: str = typer.Option("", "--license-name", help="Name of the licence when --license other."),
    license_link: str = typer.Option("", "--license-link", help="Link to the licence text when --license other."),
    provenance: List[str] = typer.Option([], "--provenance", help="What a source is, as DATASET:FIELD=VALUE (FIELD: "
                                         "license (a Hub id, required), name, url, citation, license_name, "
                                         "license_link, hub_id; DATASET: the records' source_dataset); repeat."),
    input_file: List[str] = typer.Option([], "--input-file", help="An input file the builds read: data mtgauntlet "
                                         "ships is recognised by its sha256 (never by its name) and brings its "
                                         "licence; repeat."),
    url: Optional[str] = typer.Option(None, "--url", help="Where the release is published (http(s)), for Croissant's "
                                      "url; default: the folder croissant.json lies in (./)."),
    creator: List[str] = typer.Option([], "--creator", help="Who made the release (Croissant creator); repeat."),
    pretty_name: Optional[str] = typer.Option(None, help="Human-readable dataset name for the card."),
    figure: List[str] = typer.Option([], "--figure", help="Extra PNG figure(s) to embed in the card."),
    description: Optional[str] = typer.Option(None, "--description", help="A paragraph describing the set (card)."),
    recipe: Optional[str] = typer.Option(None, "--recipe", help="The resolved recipe that made these builds (written "
                                         "by `gauntlet run`); stored as recipe.yaml and shown in the card."),
    audit: bool = typer.Option(False, "--audit", help="Put the audit page (report.html, as `gauntlet audit`) into the "
                               "release, covered by the manifest and linked from the card."),
    json_out: bool = json_option("the release summary"),
):
    """Package builds as releases/name=NAME/version=X.Y.Z/ (atomic): Parquet per kind and language pair, card,
    Croissant, manifest with the sha256 of every file."""
    from mtgauntlet.releases.inputs import find_build_dir
    from mtgauntlet.releases.release import make_release

    reports = [_read_report(r) for r in report]
    extra = [Path(f) for f in figure]
    for f in extra:
        if not f.is_file():
            raise GauntletError(f"{f}: no such figure file")
    for b in builds:
        extra += sorted((find_build_dir(b) / "figures").glob("*.png"))
    if recipe and not Path(recipe).is_file():
        raise GauntletError(f"{recipe}: no such recipe file")
    path = make_release(builds, name, version, out=out, reports=reports, license=license,
                        pretty_name=pretty_name, extra_figures=extra, description=description, recipe=recipe,
                        audit=audit, license_name=license_name, license_link=license_link, provenance=provenance,
                        input_files=input_file, url=url, creators=creator)
    m = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    lic = m["license"]
    for w in lic["warnings"]:
        typer.echo(f"warning: licence: {w}", err=True)
    for kind, n in m["dropped_duplicates"].items():
        if n:
            typer.echo(f"warning: dropped {n} duplicate {kind} records (equal copies of one record in several builds)", err=True)
    not_validated = [k for k in m["kinds"] if not (m.get("validation") or {}).get(k)]
    if not_validated:
        typer.echo(f"note: not validated: {', '.join(not_validated)} (the card says so)", err=True)
    n_data = sum(1 for f in m["files"] if f.get("kind"))
    print_result(json_out, f"released {name} {version}: {m['total_rows']} records in {n_data} data files, "
           f"configs {', '.join(c['config_name'] for c in m['configs'])}; licence {lic['license']} -> {path}",
           {"release": str(path), "name": name, "version": version, "records": m["total_rows"], "data_files": n_data,
            "configs": [c["config_name"] for c in m["configs"]], "license": lic["license"],
            "warnings": lic["warnings"], "dropped_duplicates": m["dropped_duplicates"], "not_validated": not_validated})


def verify(release_dir: str = typer.Argument(..., help="A release directory (…/name=NAME/version=X.Y.Z)."),
           json_out: bool = json_option("the check")):
    """Re-check every file of the release against manifest.json (changed, missing or extra files fail; exit 1).
    A git clone or Hub download verifies: its .git, .gitattributes and .cache/huggingface/ are not release files."""
    from mtgauntlet.releases.release import verify_release

    problems = verify_release(release_dir)
    if json_out:
        print_json({"release": release_dir, "ok": not problems, "problems": problems})
    elif problems:
        for p in problems:
            typer.echo(f"MISMATCH {p}", err=True)
    else:
        typer.echo(f"OK {release_dir}: every file matches its manifest checksum, no file missing or extra")
    if problems:
        raise typer.Exit(1)


def publish(
    release_dir: str = typer.Argument(..., help="A release directory."),
    repo: str = typer.Option(..., "--repo", help="Hub dataset repo ORG/NAME, or file:PATH for a local git repo."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the exact commit operations; publish nothing."),
    branch: str = typer.Option("main", help="Branch to commit to."),
    json_out: bool = json_option("the plan (and the commit)"),
):
    """One atomic commit of exactly the manifest's files, then the immutable tag vX.Y.Z (refused if it exists
    or the release does not verify); uploads a verified copy, so a file changed meanwhile stops the publish."""
    from mtgauntlet.releases.publish import publish as do_publish

    plan = do_publish(release_dir, repo, dry_run=dry_run, branch=branch)
    if json_out:
        print_json({"repo": plan.repo_id, "tag": plan.tag, "parent_commit": plan.parent_commit, "dry_run": dry_run,
                    "commit": plan.commit, "remote": plan.remote, "commit_message": plan.commit_message,
                    "operations": [{"op": "add" if type(op).__name__ == "CommitOperationAdd" else "delete",
                                    "path": op.path_in_repo} for op in plan.operations]})
        return
    typer.echo(plan.describe())
    if dry_run:
        typer.echo("dry run: nothing was published")
    else:
        typer.echo(f"published commit {plan.commit} and tag {plan.tag}")
