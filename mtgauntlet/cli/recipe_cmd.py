"""`gauntlet run RECIPE` (builds, validation, release, audit, publish from one YAML file) and
`gauntlet reproduce RELEASE_DIR` (rebuild from the recipe stored in a release and compare)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mtgauntlet.cli.recipe_reproduce import reproduce  # noqa: F401  (registered by main as `gauntlet reproduce`)
from mtgauntlet.cli.recipe_run import (call, dump_resolved, exit_on, load_recipe, option_args, plan_builds,
                                       quote, resolved_recipe, run_build, run_step, step_options, step_run)


def run_recipe(
    recipe: str = typer.Argument(..., metavar="RECIPE", help="Recipe YAML (see README: Recipes)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan (commands, what is done already); run nothing."),
    work: Optional[str] = typer.Option(None, "--work", help="Work directory for builds and reports "
                                       "[default: gauntlet-work/<release name>]."),
    releases: str = typer.Option("releases", "--releases", help="Releases root the release is written to."),
    json_out: bool = typer.Option(False, "--json", help="Print the plan and the outcome as one JSON object on stdout "
                                  "(the plan's lines and every step's output go to stderr)."),
):
    """Run a recipe end to end: every build (resuming; complete and unchanged builds are skipped), validation,
    the release (with the resolved recipe inside), the audit report and publishing when the recipe asks."""
    rec = load_recipe(recipe)
    work_dir = Path(work) if work else Path("gauntlet-work") / rec.release.name
    steps = plan_builds(rec, work_dir)
    if json_out:
        _run_as_json(rec, steps, releases, dry_run, lambda: run_recipe(recipe, dry_run, work, releases, False))
        return
    resolved_path = work_dir / "recipe.resolved.yaml"
    typer.echo(f"recipe {rec.path}: release {rec.release.name} {rec.release.version}, {len(steps)} build(s)")
    for st in steps:
        typer.echo(f"  build {st.spec.id} [{st.state()}]: {quote(st.args)}")
    reports = [work_dir / "reports" / st.spec.id for st in steps] if rec.validate else []
    target = Path(releases) / f"name={rec.release.name}" / f"version={rec.release.version}"
    repo = rec.step_options("publish").get("repo") if rec.publish else None
    typer.echo(f"  validate: {'yes' if rec.validate else 'no'}; release -> {target}; "
               f"audit: {'yes' if rec.audit else 'no'}; publish: {repo or 'no'}")
    if dry_run:
        typer.echo("dry run: nothing was run")
        return
    for st in steps:
        run_build(st)
    dump_resolved(resolved_recipe(rec, steps), resolved_path)
    for st, rep in zip(steps, reports):
        code = run_step(step_run(f"validate-{st.spec.id}", ["validate", str(st.out), "--report", str(rep)],
                              rec.step_options("validate"), "validate", work_dir, [st.out], [rep / "report.json"]))
        if code:
            typer.echo(f"error: validation of build {st.spec.id} failed (report {rep}); nothing released",
                       err=True)
            raise typer.Exit(code)
    if target.exists():
        _check_same_release(target, steps)
        typer.echo(f"release {target} exists with these builds: not released again")
    else:
        exit_on(call(_release_args(rec, steps, reports, releases, resolved_path)))
    if rec.audit is not None and rec.audit.options:  # the release holds the default page; these options make another
        page = work_dir / "audit.html"
        exit_on(run_step(step_run("audit", ["audit", str(target), "--out", str(page)], rec.step_options("audit"),
                                  "audit", work_dir, [target], [page])))
    if repo is not None:
        from mtgauntlet.recipes.published import tag_holds_release

        if tag_holds_release(target, repo):
            typer.echo(f"publish: {repo} already holds this release under its tag: nothing to publish")
        else:
            exit_on(call(["publish", str(target),
                          *option_args(rec.step_options("publish"), step_options()["publish"])]))
    typer.echo(f"recipe done: {target}")


def _run_as_json(rec, steps, releases: str, dry_run: bool, run) -> None:
    """``run --json``: the run with its stdout sent to stderr, then one JSON object on stdout."""
    import contextlib
    import sys

    from mtgauntlet.cli.common import print_json

    before = {st.spec.id: st.state() for st in steps}
    stdout = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):
        run()
    target = Path(releases) / f"name={rec.release.name}" / f"version={rec.release.version}"
    with contextlib.redirect_stdout(stdout):
        print_json({"recipe": str(rec.path), "release": str(target), "name": rec.release.name,
                    "version": rec.release.version, "release_exists": target.is_dir(), "dry_run": dry_run,
                    "builds": [{"id": st.spec.id, "out": str(st.out), "before": before[st.spec.id],
                                "now": st.state(), "command": st.args} for st in steps],
                    "validated": bool(rec.validate), "audit": rec.audit is not None,
                    "publish": rec.publish.options.get("repo") if rec.publish else None})


def _release_args(rec, steps, reports, releases: str, resolved: Path) -> list[str]:
    from mtgauntlet.cli import introspect

    defs = introspect.options("release") or {}
    args = ["release", *[str(st.out) for st in steps], "--name", rec.release.name, "--version", rec.release.version,
            "--out", releases]
    for key in ("license", "description", "pretty_name"):
        value = getattr(rec.release, key)
        if value is not None and key.replace("_", "-") in defs:
            args += [f"--{key.replace('_', '-')}", str(value)]
    if "recipe" in defs:
        args += ["--recipe", str(resolved)]
    if rec.audit is not None and "audit" in defs:
        args.append("--audit")
    if reports and "report" in defs:
        for rep in (reports if defs["report"].multiple else reports[:1]):
            args += ["--report", str(rep)]
    return args


def _check_same_release(target: Path, steps) -> None:
    from mtgauntlet.errors import GauntletError
    from mtgauntlet.fileio import read_json_object
    from mtgauntlet.releases.manifest import read_manifest

    manifest = read_manifest(target)
    released = set(manifest.get("signatures") or [])
    built = {read_json_object(st.out / "build.json", "build manifest").get("signature") for st in steps}
    if not built <= released:
        raise GauntletError(f"{target} already exists with other builds: releases are immutable; bump the "
                            "recipe's release version")
