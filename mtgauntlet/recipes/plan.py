"""What a recipe run builds (:func:`mtgauntlet.recipes.running.run`): the recipe parsed against the API's option
tables, one :class:`BuildStep` per build entry (every option resolved, every input pinned by sha256) and the
resolved recipe a release keeps.

Work layout (``--work DIR``)::

    DIR/builds/<id>/            one build per recipe entry (resumable, as any build)
    DIR/builds/<id>/recipe-step.json   what the build is making: its options and input hashes, written
                                before it starts (complete + same = skip; incomplete + same = resume)
    DIR/reports/<id>/           validation reports
    DIR/steps/<step>.json       what a finished validation or audit step checked (same again = skip)
    DIR/recipe.resolved.yaml    the recipe with every default filled in and every input pinned by sha256
    DIR/audit.html              the audit page, when `audit:` sets options (e.g. `against:`)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError
from mtgauntlet.fileio import sha256_file
from mtgauntlet.models.registry import public_spec
from mtgauntlet.recipes.commands import command_line
from mtgauntlet.recipes.options import builder_options, step_options
from mtgauntlet.recipes.spec import RUNNER_OWNED, BuildSpec, OptionDef, Recipe, parse_recipe

PLACEMENT_ONLY = ("concurrency", "engine", "actors")  # how fast or where, not what: never the records


def load_recipe(path: str | Path) -> Recipe:
    """Parse and check a recipe: every name, path and option, before anything is written."""
    rec = parse_recipe(path, builder_options, step_options())
    if rec.publish is not None and rec.publish.options.get("repo"):
        from mtgauntlet.releases.publish import make_api

        try:
            make_api(rec.step_options("publish")["repo"])
        except GauntletError as exc:
            raise rec.error(str(exc), "publish", "repo") from None
    return rec


def parsed_builder_options(build: BuildSpec) -> dict[str, OptionDef]:
    """The option table of a parsed build entry's builder (``parse_recipe`` refused an unknown builder)."""
    defs = builder_options(build.builder)
    assert defs is not None, build.builder
    return defs


def resolved_options(build: BuildSpec) -> dict[str, Any]:
    """Every option of the build's builder: the recipe's value, else the default."""
    defs = parsed_builder_options(build)
    return {name: build.options.get(name, d.default) for name, d in defs.items() if name not in RUNNER_OWNED}


@dataclass
class BuildStep:
    spec: BuildSpec
    out: Path
    args: list[str]
    options: dict[str, Any] = field(default_factory=dict)  # every option, defaults filled in
    inputs: dict[str, dict[str, str]] = field(default_factory=dict)  # option -> {path, sha256}

    def fingerprint(self) -> dict[str, Any]:
        """What makes the build: its builder, every option value (inputs by content, not by path)."""
        opts = {k: public_spec(v) for k, v in self.options.items() if k not in self.inputs and k not in PLACEMENT_ONLY}
        return {
            "builder": self.spec.builder,
            "options": opts,
            "inputs": {k: v["sha256"] for k, v in self.inputs.items()},
        }

    @property
    def record(self) -> Path:
        return self.out / "recipe-step.json"

    def state(self) -> str:
        """'new', 'done' (complete, same options and inputs), 'resuming' (interrupted, same options and inputs:
        it goes on) or 'changed' (another build is there: discarded)."""
        manifest = self.out / "build.json"
        if not manifest.exists():
            return "new"
        try:
            recorded = json.loads(self.record.read_text(encoding="utf-8")) if self.record.exists() else None
            status = json.loads(manifest.read_text(encoding="utf-8")).get("status")
        except (OSError, json.JSONDecodeError):
            return "changed"
        if recorded != self.fingerprint():
            return "changed"
        return "done" if status == "complete" else "resuming"

    def prepare(self) -> str:
        """Before running the build: discard another build found in its folder, record what it will make (so an
        interrupted run resumes it next time); returns the state it was in."""
        from mtgauntlet.atomic import write_json_atomic
        from mtgauntlet.core.builds import build_lock, discard_build

        state = self.state()
        if state in ("new", "changed"):
            with build_lock(self.out):
                discard_build(self.out)
                write_json_atomic(self.record, self.fingerprint())
        return state


def plan_builds(recipe: Recipe, work: Path) -> list[BuildStep]:
    """One step per build entry, its folder ``work/builds/<id>``; an input whose content differs from the sha256
    the recipe pins is refused."""
    steps = []
    for b in recipe.builds:
        defs = parsed_builder_options(b)
        options = resolved_options(b)
        inputs = {}
        for key, value in b.inputs().items():
            if value.startswith("hf:"):
                continue
            path = recipe.resolve_path(value)
            digest = sha256_file(path)
            want = b.sha256.get(key)
            if want and want != digest:
                raise GauntletError(
                    f"{recipe.path}: builds.{b.id}.{key}: {path} has sha256 {digest[:12]}, the "
                    f"recipe pins {want[:12]}: the input changed"
                )
            options[key] = str(path)
            inputs[key] = {"path": str(path), "sha256": digest}
        shown = {k: v for k, v in options.items() if k in b.options or k in inputs or defs[k].required}
        out = work / "builds" / b.id
        args = ["build", b.builder, *command_line(shown, defs), "--out", str(out)]
        steps.append(BuildStep(b, out, args, options, inputs))
    return steps


def resolved_recipe(recipe: Recipe, steps: list[BuildStep]) -> dict[str, Any]:
    """The recipe with every default filled in and inputs pinned: itself a valid recipe (`gauntlet reproduce`)."""
    builds = {}
    for st in steps:
        opts = resolved_options(st.spec)  # inputs as the recipe wrote them: no local absolute paths in a release
        # specs in their public form: a resolved recipe goes into the release (no credential, price or pace)
        builds[st.spec.id] = {
            "builder": st.spec.builder,
            **{k: public_spec(v) for k, v in opts.items() if v is not None},
            "sha256": {k: v["sha256"] for k, v in st.inputs.items()},
        }
    rel = {k: v for k, v in vars(recipe.release).items() if v is not None}
    origin = Path(os.path.relpath(recipe.base)).as_posix()  # where `gauntlet reproduce` finds relative inputs
    out: dict[str, Any] = {"recipe": 1, "release": rel, "origin": origin, "builds": builds}
    for step in ("validate", "audit", "publish"):
        spec = getattr(recipe, step)
        if spec is not None:
            out[step] = dict(spec.options) or True
    return out


def dump_resolved(data: dict[str, Any], path: Path) -> Path:
    """Write the resolved recipe (YAML, with a header saying what it is)."""
    import yaml

    from mtgauntlet import __version__
    from mtgauntlet.atomic import write_text_atomic

    head = (
        f"# Resolved by mtgauntlet {__version__}: every option explicit, every input pinned by sha256.\n"
        "# Itself a recipe: `gauntlet run` or `gauntlet reproduce` replay it.\n"
    )
    return write_text_atomic(path, head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
