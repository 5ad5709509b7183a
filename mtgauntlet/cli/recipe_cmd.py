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
    """Run one step through the CLI's entry point; its output goes to stderr (stdout is the recipe's summary)."""
    import contextlib
    import sys

    from mtgauntlet.cli.main import run

    typer.echo(f"\n$ {quote(args)}", err=True)
    with contextlib.redirect_stdout(sys.stderr):
        return run(args)


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
    if rec.audit is not None and rec.audit.options:  # the release holds the default page; these options make another
        code = _call(["audit", str(target), "--out", str(work_dir / "audit.html"),
                      *option_args(_paths(rec, rec.audit.options), defs["audit"])])
        if code:
            raise typer.Exit(code)
    if rec.publish is not None:
        code = _call(["publish", str(target), *option_args(rec.publish.options, defs["publish"])])
        if code:
            raise typer.Exit(code)
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
    if rec.audit is not None and "audit" in defs:
        args.append("--audit")
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


def reproduce(
    release_dir: str = typer.Argument(..., metavar="RELEASE_DIR", help="A release made by `gauntlet run` (it holds recipe.yaml)."),
    inputs: Optional[str] = typer.Option(None, "--inputs", help="Folder holding the recipe's input files (by file name), "
                                         "where their recorded paths do not exist on this machine."),
    work: Optional[str] = typer.Option(None, "--work", help="Where to rebuild [default: a temporary folder]."),
    json_out: bool = typer.Option(False, "--json", help="Print the comparison as JSON."),
):
    """Rebuild a release from its stored recipe on this machine and compare, per record kind, the ids and every
    text and value; exit 0 when identical, 1 when anything differs (each difference listed)."""
    import tempfile

    import yaml

    from mtgauntlet.cli.common import print_json
    from mtgauntlet.errors import GauntletError
    from mtgauntlet.recipes.compare import compare, environment_changes
    from mtgauntlet.records import load_records_by_kind

    root = Path(release_dir)
    stored = root / "recipe.yaml"
    if not stored.is_file():
        raise GauntletError(f"{root}: no recipe.yaml (only releases made by `gauntlet run` can be reproduced)")
    data = yaml.safe_load(stored.read_text(encoding="utf-8"))
    work_dir = Path(work) if work else Path(tempfile.mkdtemp(prefix="gauntlet-reproduce-"))
    notes = _relocate_inputs(data, Path(inputs) if inputs else None)
    patched = work_dir / "recipe.yaml"
    patched.parent.mkdir(parents=True, exist_ok=True)
    for step in ("validate", "audit", "publish"):
        data.pop(step, None)
    patched.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    rec = load_recipe(patched)
    steps = plan_builds(rec, work_dir)
    for st in steps:
        if st.state() != "done":
            code = _call(st.args + ["--overwrite"])
            if code:
                raise typer.Exit(code)
    rebuilt: dict = {}
    for st in steps:
        for kind, table in load_records_by_kind(st.out).items():
            rebuilt.setdefault(kind, []).append(table)
    import pyarrow as pa

    rebuilt = {k: pa.concat_tables(v, promote_options="default") for k, v in rebuilt.items()}
    results = compare(load_records_by_kind(root), rebuilt)
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    new_builds = [json.loads((st.out / "build.json").read_text(encoding="utf-8")) for st in steps]
    notes += environment_changes(manifest.get("builds") or [], new_builds)
    same = all(r.identical for r in results)
    if json_out:
        print_json({"release": str(root), "reproduced": same, "kinds": [r.to_dict() for r in results],
                    "notes": notes, "rebuild": str(work_dir)})
    else:
        for r in results:
            typer.echo(r.describe())
        for n in notes:
            typer.echo(f"note: {n}")
        typer.echo(("REPRODUCED" if same else "NOT REPRODUCED") + f": {root} (rebuilt in {work_dir})")
    if not same:
        raise typer.Exit(1)


def _relocate_inputs(data: dict, inputs: Path | None) -> list[str]:
    """Point each build's input files at this machine's copies; a changed file is noted (and unpinned)."""
    from mtgauntlet.errors import GauntletError
    from mtgauntlet.recipes.spec import INPUT_OPTIONS, sha256_file

    notes = []
    for bid, build in (data.get("builds") or {}).items():
        pins = build.get("sha256") or {}
        for key in INPUT_OPTIONS:
            value = build.get(key)
            if not isinstance(value, str) or value.startswith("hf:"):
                continue
            candidates = [Path(value)]
            if inputs is not None:
                candidates += [inputs / value, inputs / Path(value).name]
            path = next((c for c in candidates if c.is_file()), candidates[0])
            if not path.exists():
                raise GauntletError(f"input {value} of build {bid} is not on this machine; pass --inputs DIR "
                                    f"holding {path.name}")
            build[key] = str(path.resolve())
            digest = sha256_file(path)
            if pins.get(key) and pins[key] != digest:
                notes.append(f"{bid}: input {path.name} changed (sha256 {pins[key][:12]} -> {digest[:12]})")
                pins.pop(key)
    return notes
