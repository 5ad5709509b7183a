"""`gauntlet release`, `gauntlet verify`, `gauntlet publish`."""

from __future__ import annotations

import typer

from mtgauntlet.cli.common import json_option, print_json, print_result
from mtgauntlet.core.progress import info


def release(
    builds: list[str] = typer.Argument(
        ..., help="Complete build directories (a path inside a build means the whole build)."
    ),
    name: str = typer.Option(..., "--name", "-n", help="Release name (letters, digits, . _ -)."),
    version: str = typer.Option(
        ...,
        "--version",
        "-V",
        help="Semantic version X.Y.Z or X.Y.Z-PRERELEASE (numbers of at most 9 digits); never overwritten.",
    ),
    out: str = typer.Option("releases", "--out", "-o", help="Releases root (hive layout name=/version=)."),
    report: list[str] = typer.Option(
        [],
        "--report",
        help="Validation report (gauntlet validate --report DIR) of these "
        "builds; repeat for builds validated separately. Refused if it validated other builds.",
    ),
    license: str | None = typer.Option(
        None,
        help="Hugging Face Hub licence id for the card (other: with "
        "--license-name and --license-link); default: derived from the sources' "
        "provenance (warns on non-commercial or unknown sources).",
    ),
    license_name: str = typer.Option("", "--license-name", help="Name of the licence when --license other."),
    license_link: str = typer.Option("", "--license-link", help="Link to the licence text when --license other."),
    provenance: list[str] = typer.Option(
        [],
        "--provenance",
        help="What a source is, as DATASET:FIELD=VALUE (FIELD: "
        "license (a Hub id, required), name, url and license_link (http(s)), "
        "citation, license_name, hub_id (a Hub dataset id); DATASET: a "
        "source_dataset of the released records, else refused); repeat.",
    ),
    input_file: list[str] = typer.Option(
        [],
        "--input-file",
        help="An input file the builds read: data mtgauntlet "
        "ships is recognised by its sha256 (never by its name) and brings its "
        "licence; repeat.",
    ),
    url: str | None = typer.Option(
        None,
        "--url",
        help="Where the release is published (http(s)), for Croissant's "
        "url; default: the folder croissant.json lies in (./).",
    ),
    creator: list[str] = typer.Option([], "--creator", help="Who made the release (Croissant creator); repeat."),
    pretty_name: str | None = typer.Option(None, help="Human-readable dataset name for the card."),
    figure: list[str] = typer.Option([], "--figure", help="Extra PNG figure(s) to embed in the card."),
    description: str | None = typer.Option(None, "--description", help="A paragraph describing the set (card)."),
    recipe: str | None = typer.Option(
        None,
        "--recipe",
        help="The resolved recipe that made these builds (written "
        "by `gauntlet run`); stored as recipe.yaml and shown in the card.",
    ),
    audit: bool = typer.Option(
        False,
        "--audit",
        help="Put the audit page (report.html, as `gauntlet audit`) into the "
        "release, covered by the manifest and linked from the card.",
    ),
    json_out: bool = json_option("the release summary"),
):
    """Package builds as releases/name=NAME/version=X.Y.Z/ (atomic): Parquet per kind and language pair, card,
    Croissant, manifest with the sha256 of every file."""
    from mtgauntlet.api import releasing

    rel = releasing.release(
        builds,
        name=name,
        version=version,
        out=out,
        report=report,
        license=license,
        license_name=license_name,
        license_link=license_link,
        provenance=provenance,
        input_file=input_file,
        url=url,
        creator=creator,
        pretty_name=pretty_name,
        figure=figure,
        description=description,
        recipe=recipe,
        audit=audit,
        progress=None,
    )
    print_release(rel, json_out)


def print_release(rel, json_out: bool) -> None:
    """What ``gauntlet release`` prints (also after a recipe's release): the summary line or ``--json``."""
    m, lic = rel.manifest, rel.manifest["license"]
    if rel.not_validated:
        info(f"note: not validated: {', '.join(rel.not_validated)} (the card says so)")
    print_result(
        json_out,
        rel.describe(),
        {
            "release": str(rel.path),
            "name": rel.name,
            "version": rel.version,
            "records": m["total_rows"],
            "data_files": sum(1 for f in m["files"] if f.get("kind")),
            "configs": [c["config_name"] for c in m["configs"]],
            "license": lic["license"],
            "warnings": lic["warnings"],
            "dropped_duplicates": m["dropped_duplicates"],
            "not_validated": rel.not_validated,
        },
    )


def verify(
    release_dir: str = typer.Argument(..., help="A release directory (…/name=NAME/version=X.Y.Z)."),
    json_out: bool = json_option("the check"),
):
    """Re-check every file of the release against manifest.json (changed, missing or extra files fail; exit 1).
    A git clone or Hub download verifies: its .git, .gitattributes and .cache/huggingface/ are not release files."""
    from mtgauntlet.api import releasing

    problems = releasing.verify(release_dir, progress=None).problems
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
    """One atomic commit of exactly the manifest's files, then the immutable tag vX.Y.Z (refused if the tag holds
    other files or the release does not verify; a tag holding exactly this release: nothing to publish); uploads a
    verified copy, so a file changed meanwhile stops the publish."""
    from mtgauntlet.api import releasing

    print_publication(
        releasing.publish(release_dir, repo=repo, dry_run=dry_run, branch=branch, progress=None), json_out
    )


def print_publication(done, json_out: bool) -> None:
    """What ``gauntlet publish`` prints: the plan and what was published, or ``--json``."""
    dry_run = done.dry_run
    if json_out:
        print_json(
            {
                "repo": done.repo,
                "tag": done.tag,
                "parent_commit": done.parent_commit,
                "dry_run": dry_run,
                "commit": done.commit,
                "remote": done.remote,
                "commit_message": done.commit_message,
                "operations": done.operations,
                "already_published": done.already_published,
            }
        )
        return
    typer.echo(done.description)
    if dry_run:
        typer.echo("dry run: nothing was published")
    elif not done.already_published:
        typer.echo(f"published commit {done.commit} and tag {done.tag}")
