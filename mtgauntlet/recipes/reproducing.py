"""Recipes from Python: `reproduce` (``gauntlet reproduce``): verify a release made by `mtgauntlet.recipes.running.run`,
rebuild it from its stored recipe on this machine and compare what was rebuilt with what was released."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from mtgauntlet.api.results import Reproduction
from mtgauntlet.api.session import public
from mtgauntlet.errors import GauntletError
from mtgauntlet.options import takes
from mtgauntlet.recipes.run_options import ReproduceOptions

__all__ = ["reproduce", "NotVerified"]


class NotVerified(GauntletError):
    """The release to reproduce does not verify against its manifest (exit 1, as ``gauntlet verify``)."""

    exit_code = 1


@contextlib.contextmanager
def rebuild_dir(work: str | Path | None) -> Iterator[Path]:
    """``work`` as given, else a temporary folder removed afterwards (also when the rebuild fails)."""
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


def verified_recipe(root: Path) -> Path:
    """The release's stored recipe, once the release verifies against its manifest."""
    from mtgauntlet.releases.manifest import read_manifest, verify_release

    manifest = read_manifest(root)  # a missing or corrupt manifest: a GauntletError (exit 2)
    problems = verify_release(root)
    if problems:
        raise NotVerified(
            f"{root}: release does not verify ({len(problems)} problem(s), first: {problems[0]}); "
            "not reproducing (gauntlet verify lists them)"
        )
    if manifest.get("recipe") != "recipe.yaml" or not (root / "recipe.yaml").is_file():
        raise GauntletError(f"{root}: no recipe.yaml (only releases made by `gauntlet run` can be reproduced)")
    return root / "recipe.yaml"


@public
@takes(ReproduceOptions, returns=Reproduction)
def reproduce(o: ReproduceOptions) -> Reproduction:
    """Verify a release, rebuild it from its stored recipe on this machine and compare, per record kind, the ids
    and every text and value.

    Returns:
        Reproduction: A `Reproduction`: ``reproduced`` (also its truth value), per kind what differs, and what changed
            around the builds (inputs, versions).

    Raises:
        NotVerified: The release does not verify (nothing rebuilt). GauntletError: no stored recipe, a missing
            or corrupt manifest, an input not found.

    Examples:
        >>> check = mg.reproduce("releases/name=demo-es-en/version=0.1.0", inputs="data/")
        >>> check.reproduced or print(check.describe())
    """
    import pyarrow as pa
    import yaml

    from mtgauntlet.api.inputs import path_of
    from mtgauntlet.fileio import read_json_object
    from mtgauntlet.recipes.compare import compare, environment_changes
    from mtgauntlet.recipes.plan import load_recipe, plan_builds
    from mtgauntlet.recipes.relocate import relocate_inputs
    from mtgauntlet.recipes.steps import run_build
    from mtgauntlet.recipes.yaml_load import load_yaml
    from mtgauntlet.records import load_records_by_kind
    from mtgauntlet.releases.manifest import read_manifest

    root, inputs, work = Path(path_of(o.release_dir)), o.inputs, o.work
    stored = verified_recipe(root)
    data, _ = load_yaml(stored.read_bytes(), str(stored))
    for step in ("validate", "audit", "publish"):
        data.pop(step, None)
    with rebuild_dir(work) as work_dir:
        notes = relocate_inputs(data, str(stored), Path(inputs) if inputs else None, work_dir / "inputs")
        data.pop("origin", None)  # inputs are absolute now
        patched = work_dir / "recipe.yaml"
        patched.parent.mkdir(parents=True, exist_ok=True)
        patched.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
        steps = plan_builds(load_recipe(patched), work_dir)
        for st in steps:
            run_build(st)
        rebuilt: dict = {}
        for st in steps:
            for kind, table in load_records_by_kind(st.out).items():
                rebuilt.setdefault(kind, []).append(table)
        rebuilt = {k: pa.concat_tables(v, promote_options="default") for k, v in rebuilt.items()}
        results = compare(load_records_by_kind(root), rebuilt)
        new_builds = [read_json_object(st.out / "build.json", "build manifest") for st in steps]
    notes += environment_changes(read_manifest(root).get("builds") or [], new_builds)
    return Reproduction(
        reproduced=all(r.identical for r in results),
        kinds={r.kind: r.to_dict() for r in results},
        changes=notes,
        path=root,
        rebuild=Path(work) if work else None,
        lines=[r.describe() for r in results],
    )
