"""`gauntlet release`, `gauntlet verify`, `gauntlet publish`: their arguments and options are declared once
(`mtgauntlet.api.release_options`); each handler calls the API function and prints what it returns."""

from __future__ import annotations

from typing import Any

import typer

from mtgauntlet.api.release_options import PublishOptions, ReleaseOptions, VerifyOptions
from mtgauntlet.cli.common import print_json, print_result
from mtgauntlet.cli.declared import command, json_flag
from mtgauntlet.core.progress import info


def release(p: dict[str, Any]) -> None:
    """``gauntlet release``: package the builds through `mtgauntlet.api.releasing.release`, print the summary."""
    from mtgauntlet.api import releasing

    json_out = p.pop("json_out")
    print_release(releasing.release(**p, progress=None), json_out)


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


def verify(p: dict[str, Any]) -> None:
    """``gauntlet verify``: every file against the manifest; exit 1 on a mismatch."""
    from mtgauntlet.api import releasing

    release_dir = p["path"]
    problems = releasing.verify(release_dir, progress=None).problems
    if p["json_out"]:
        print_json({"release": release_dir, "ok": not problems, "problems": problems})
    elif problems:
        for problem in problems:
            typer.echo(f"MISMATCH {problem}", err=True)
    else:
        typer.echo(f"OK {release_dir}: every file matches its manifest checksum, no file missing or extra")
    if problems:
        raise typer.Exit(1)


def publish(p: dict[str, Any]) -> None:
    """``gauntlet publish``: the plan (and the commit) through `mtgauntlet.api.releasing.publish`."""
    from mtgauntlet.api import releasing

    json_out = p.pop("json_out")
    print_publication(releasing.publish(**p, progress=None), json_out)


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


def register(app: typer.Typer) -> None:
    """``gauntlet release``, ``verify`` and ``publish`` on the root command."""
    command(app, "release", ReleaseOptions, release, extra={"json_out": (None, json_flag("the release summary"))})
    command(app, "verify", VerifyOptions, verify, extra={"json_out": (None, json_flag("the check"))})
    command(app, "publish", PublishOptions, publish, extra={"json_out": (None, json_flag("the plan (and the commit)"))})
