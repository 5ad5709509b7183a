"""`gauntlet reproduce RELEASE_DIR`: verify the release, rebuild it from the recipe stored in it, compare
(:func:`mtgauntlet.recipes.reproducing.reproduce`)."""

from __future__ import annotations

import typer


def reproduce(
    release_dir: str = typer.Argument(
        ..., metavar="RELEASE_DIR", help="A release made by `gauntlet run` (it holds recipe.yaml)."
    ),
    inputs: str | None = typer.Option(
        None,
        "--inputs",
        help="Folder holding the recipe's input files (by path, "
        "file name or sha256), where their recorded paths do not exist on this "
        "machine.",
    ),
    work: str | None = typer.Option(
        None, "--work", help="Where to rebuild [default: a temporary folder, removed afterwards]."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the comparison as JSON."),
):
    """Verify a release, rebuild it from its stored recipe on this machine and compare, per record kind, the ids
    and every text and value; exit 0 when identical, 1 when anything differs (each difference listed) or the
    release does not verify."""
    from mtgauntlet.cli.common import print_json
    from mtgauntlet.recipes.reproducing import reproduce as rebuild

    done = rebuild(release_dir, inputs=inputs, work=work, progress=None)
    if json_out:
        print_json(
            {
                "release": str(done.path),
                "reproduced": done.reproduced,
                "kinds": list(done.kinds.values()),
                "notes": done.changes,
                "rebuild": str(done.rebuild) if done.rebuild else None,
            }
        )
    else:
        typer.echo(done.describe())
    if not done.reproduced:
        raise typer.Exit(1)
