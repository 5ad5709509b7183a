"""`gauntlet reproduce RELEASE_DIR`: verify the release, rebuild it from the recipe stored in it, compare
(:func:`mtgauntlet.recipes.reproducing.reproduce`)."""

from __future__ import annotations

from typing import Any

import typer


def reproduce(p: dict[str, Any]) -> None:
    """``gauntlet reproduce``: verify, rebuild and compare; exit 1 when anything differs."""
    from mtgauntlet.cli.common import print_json
    from mtgauntlet.recipes.reproducing import reproduce as rebuild

    json_out = p.pop("json_out")
    done = rebuild(**p, progress=None)
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
