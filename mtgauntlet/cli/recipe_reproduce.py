"""`gauntlet reproduce RELEASE_DIR`: verify the release, rebuild it from the recipe stored in it, compare."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator, Optional

import typer


@contextlib.contextmanager
def _rebuild_dir(work: str | None) -> Iterator[Path | None]:
    """``--work`` as given, else a temporary folder removed afterwards (also when the rebuild fails).
    Yields the folder to report (None: the temporary one, gone when the command ends)."""
    import shutil
    import tempfile

    if work:
        yield Path(work)
        return
    tmp = Path(tempfile.mkdtemp(prefix="gauntlet-reproduce-"))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _verified(root: Path) -> Path:
    """The release's stored recipe, once the release verifies against its manifest (else exit 1, one line)."""
    from mtgauntlet.errors import GauntletError
    from mtgauntlet.releases.manifest import read_manifest, verify_release

    manifest = read_manifest(root)  # a missing or corrupt manifest: one line, exit 2
    problems = verify_release(root)
    if problems:
        typer.echo(f"error: {root}: release does not verify ({len(problems)} problem(s), first: {problems[0]}); "
                   "not reproducing (gauntlet verify lists them)", err=True)
        raise typer.Exit(1)
    if manifest.get("recipe") != "recipe.yaml" or not (root / "recipe.yaml").is_file():
        raise GauntletError(f"{root}: no recipe.yaml (only releases made by `gauntlet run` can be reproduced)")
    return root / "recipe.yaml"


def reproduce(
    release_dir: str = typer.Argument(..., metavar="RELEASE_DIR",
                                      help="A release made by `gauntlet run` (it holds recipe.yaml)."),
    inputs: Optional[str] = typer.Option(None, "--inputs", help="Folder holding the recipe's input files (by path, "
                                         "file name or sha256), where their recorded paths do not exist on this "
                                         "machine."),
    work: Optional[str] = typer.Option(None, "--work", help="Where to rebuild [default: a temporary folder, removed "
                                       "afterwards]."),
    json_out: bool = typer.Option(False, "--json", help="Print the comparison as JSON."),
):
    """Verify a release, rebuild it from its stored recipe on this machine and compare, per record kind, the ids
    and every text and value; exit 0 when identical, 1 when anything differs (each difference listed) or the
    release does not verify."""
    import yaml

    from mtgauntlet.cli.common import print_json
    from mtgauntlet.cli.recipe_run import load_recipe, plan_builds, run_build
    from mtgauntlet.fileio import read_json_object
    from mtgauntlet.recipes.compare import compare, environment_changes
    from mtgauntlet.recipes.relocate import relocate_inputs
    from mtgauntlet.recipes.yaml_load import load_yaml
    from mtgauntlet.records import load_records_by_kind
    from mtgauntlet.releases.manifest import read_manifest

    root = Path(release_dir)
    stored = _verified(root)
    data, _ = load_yaml(stored.read_bytes(), str(stored))
    for step in ("validate", "audit", "publish"):
        data.pop(step, None)
    with _rebuild_dir(work) as work_dir:
        notes = relocate_inputs(data, str(stored), Path(inputs) if inputs else None, work_dir / "inputs")
        data.pop("origin", None)  # inputs are absolute now
        patched = work_dir / "recipe.yaml"
        patched.parent.mkdir(parents=True, exist_ok=True)
        patched.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
        steps = plan_builds(load_recipe(patched), work_dir)
        for st in steps:
            run_build(st)
        import pyarrow as pa

        rebuilt: dict = {}
        for st in steps:
            for kind, table in load_records_by_kind(st.out).items():
                rebuilt.setdefault(kind, []).append(table)
        rebuilt = {k: pa.concat_tables(v, promote_options="default") for k, v in rebuilt.items()}
        results = compare(load_records_by_kind(root), rebuilt)
        new_builds = [read_json_object(st.out / "build.json", "build manifest") for st in steps]
    notes += environment_changes(read_manifest(root).get("builds") or [], new_builds)
    same = all(r.identical for r in results)
    where = str(work_dir) if work else "a temporary folder, removed"
    if json_out:
        print_json({"release": str(root), "reproduced": same, "kinds": [r.to_dict() for r in results],
                    "notes": notes, "rebuild": str(work_dir) if work else None})
    else:
        for r in results:
            typer.echo(r.describe())
        for n in notes:
            typer.echo(f"note: {n}")
        typer.echo(("REPRODUCED" if same else "NOT REPRODUCED") + f": {root} (rebuilt in {where})")
    if not same:
        raise typer.Exit(1)
