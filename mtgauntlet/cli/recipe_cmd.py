"""`gauntlet run RECIPE` (builds, validation, release, audit, publish from one YAML file) and
`gauntlet reproduce RELEASE_DIR` (rebuild from the recipe stored in a release and compare). Both call
:mod:`mtgauntlet.recipes.running` and print what it returns; their options are declared once
(`mtgauntlet.recipes.run_options`)."""

from __future__ import annotations

from typing import Any

import typer

from mtgauntlet.cli.declared import command, json_flag
from mtgauntlet.cli.recipe_reproduce import reproduce
from mtgauntlet.recipes.run_options import ReproduceOptions, RunOptions

RUN_JSON = "Print the plan and the outcome as one JSON object on stdout (the plan's lines and every step's output go to stderr)."


def run_recipe(p: dict[str, Any]) -> None:
    """``gauntlet run``: the plan and each step's lines (stderr with ``--json``), then the outcome."""
    from mtgauntlet.recipes import running as recipes

    json_out, dry_run = p.pop("json_out"), p["dry_run"]
    before = recipes.plan(p["recipe"], work=p["work"], releases=p["releases"]) if json_out else None
    with recipes.outcome_lines(lambda line: typer.echo(line, err=json_out)):
        recipes.run(**p, progress=None)
    if before is not None:
        from mtgauntlet.cli.common import print_json

        print_json(
            {
                "recipe": str(before.recipe),
                "release": str(before.release),
                "name": before.name,
                "version": before.version,
                "release_exists": before.release.is_dir(),
                "dry_run": dry_run,
                "builds": [
                    {
                        "id": b["id"],
                        "out": str(b["out"]),
                        "before": b["state"],
                        "now": st.state(),
                        "command": b["command"],
                    }
                    for b, st in zip(before.builds, before.steps)
                ],
                "validated": before.validate,
                "audit": before.audit,
                "publish": before.publish,
            }
        )


def register(app: typer.Typer) -> None:
    """``gauntlet run`` and ``gauntlet reproduce`` on the root command."""
    command(app, "run", RunOptions, run_recipe, extra={"json_out": (None, json_flag(help=RUN_JSON))})
    reproduce_json = json_flag(help="Print the comparison as JSON.")
    command(app, "reproduce", ReproduceOptions, reproduce, extra={"json_out": (None, reproduce_json)})
