"""`gauntlet run RECIPE` (builds, validation, release, audit, publish from one YAML file) and
`gauntlet reproduce RELEASE_DIR` (rebuild from the recipe stored in a release and compare)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from mtgauntlet.cli.recipe_run import (dump_resolved, load_recipe, option_args, plan_builds, quote, resolved_recipe,
                                       step_options)


def _call(args: list[str]) -> int:
    from mtgauntlet.cli.main import run

    typer.echo(f"\n$ {quote(args)}", err=True)
    return run(args)


def run_recipe(
    recipe: str = typer.Argument(..., metavar="RECIPE", help="Recipe YAML (see README: Recipes)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan (commands, what is done already); run nothing."),
    work: Optional[str] = typer.Option(None, "--work", help="Work directory for builds and reports "
                                       "[default: gauntlet-work/<release name>]."),
    releases: str = typer.Option("releases", "--releases", help="Releases root the release is written to."),
):
    """Run a recipe end to end: every build (resuming; complete and unchanged builds are skipped), validation,
    the release (with the resolved recipe inside), the audit report and publishing when the recipe asks."""
    rec = load_recipe(recipe)
    work_dir = Path(work) if work else Path("gauntlet-work") / rec.release.name
    steps = plan_builds(rec, work_dir)
    resolved_path = work_dir / "recipe.resolved.yaml"
    typer.echo(f"recipe {rec.path}: release {rec.release.name} {rec.release.version}, {len(steps)} build(s)")
    for st in steps:
        typer.echo(f"  build {st.spec.id} [{st.state()}]: {quote(st.args)}")
    reports = [work_dir / "reports" / st.spec.id for st in steps] if rec.validate else []
    target = Path(releases) / f"name={rec.release.name}" / f"version={rec.release.version}"
    typer.echo(f"  validate: {'yes' if rec.validate else 'no'}; release -> {target}; "
               f"audit: {'yes' if rec.audit else 'no'}; publish: {rec.publish.options.get('repo') if rec.publish else 'no'}")
    if dry_run:
        typer.echo("dry run: nothing was run")
        return
    for st in steps:
        state = st.state()
        if state == "done":
            typer.echo(f"build {st.spec.id}: complete and unchanged, skipped")
            continue
        code = _call(st.args + (["--overwrite"] if state == "changed" else []))
        if code:
            raise typer.Exit(code)
        from mtgauntlet.atomic import write_json_atomic

        write_json_atomic(st.out / "recipe-step.json", st.fingerprint())
    dump_resolved(resolved_recipe(rec, steps), resolved_path)
    defs = step_options()
    if rec.validate:
        for st, rep in zip(steps, reports):
            code = _call(["validate", str(st.out), "--report", str(rep),
                          *option_args(_paths(rec, rec.validate.options), defs["validate"])])
            if code:
                typer.echo(f"error: validation of build {st.spec.id} failed (report {rep}); nothing released",
                           err=True)
                raise typer.Exit(code)
    if target.exists():
        _check_same_release(target, steps)
        typer.echo(f"release {target} exists with these builds: not released again")
    else:
        code = _call(_release_args(rec, steps, reports, releases, resolved_path))
        if code:
            raise typer.Exit(code)
    if rec.audit is not None and _has("audit"):
        code = _call(["audit", str(target), "--out", str(work_dir / "audit.html"),
                      *option_args(_paths(rec, rec.audit.options), defs["audit"])])
        if code:
            raise typer.Exit(code)
    if rec.publish is not None:
        code = _call(["publish", str(target), *option_args(rec.publish.options, defs["publish"])])
        if code:
            raise typer.Exit(code)
    typer.echo(f"recipe done: {target}")


def _has(*path: str) -> bool:
    from mtgauntlet.cli import introspect

    return introspect.command(*path) is not None


def _paths(rec, options: dict) -> dict:
    """Step options that name files are relative to the recipe's folder."""
    return {k: (str(rec.resolve_path(v)) if k in ("rules", "against") and isinstance(v, str) else v)
            for k, v in options.items()}


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
    if reports and "report" in defs:
        for rep in (reports if defs["report"].multiple else reports[:1]):
            args += ["--report", str(rep)]
    return args


def _check_same_release(target: Path, steps) -> None:
    from mtgauntlet.errors import GauntletError

    try:
        manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise GauntletError(f"{target}: exists but its manifest is unreadable ({exc})") from None
    released = set(manifest.get("signatures") or [])
    built = {json.loads((st.out / "build.json").read_text(encoding="utf-8")).get("signature") for st in steps}
    if not built <= released:
        raise GauntletError(f"{target} already exists with other builds: releases are immutable; bump the "
                            "recipe's release version")
