"""`gauntlet run RECIPE` (builds, validation, release, audit, publish from one YAML file) and
`gauntlet reproduce RELEASE_DIR` (rebuild from the recipe stored in a release and compare). Both call
:mod:`mtgauntlet.recipes.running` and print what it returns."""

from __future__ import annotations

import typer

from mtgauntlet.cli.recipe_reproduce import reproduce  # noqa: F401  (registered by main as `gauntlet reproduce`)


def run_recipe(
    recipe: str = typer.Argument(..., metavar="RECIPE", help="Recipe YAML (see README: Recipes)."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the plan (commands, what is done already); run nothing."
    ),
    work: str | None = typer.Option(
        None, "--work", help="Work directory for builds and reports [default: gauntlet-work/<release name>]."
    ),
    releases: str = typer.Option("releases", "--releases", help="Releases root the release is written to."),
    json_out: bool = typer.Option(
        False,
        "--json",
        help="Print the plan and the outcome as one JSON object on stdout "
        "(the plan's lines and every step's output go to stderr).",
    ),
):
    """Run a recipe end to end: every build (resuming; complete and unchanged builds are skipped), validation,
    the release (with the resolved recipe inside), the audit report and publishing when the recipe asks."""
    from mtgauntlet.recipes import running as recipes

    before = recipes.plan(recipe, work=work, releases=releases) if json_out else None
    with recipes.outcome_lines(lambda line: typer.echo(line, err=json_out)):
        recipes.run(recipe, dry_run=dry_run, work=work, releases=releases, progress=None)
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
