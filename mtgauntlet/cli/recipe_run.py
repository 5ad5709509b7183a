"""Run a recipe: each step is the CLI command a user would type, run through the same entry point, so a
recipe releases exactly what the equivalent commands release.

Work layout (``--work DIR``)::

    DIR/builds/<id>/            one build per recipe entry (resumable, as any build)
    DIR/builds/<id>/recipe-step.json   the command and input hashes that made it (complete + unchanged = skip)
    DIR/reports/<id>/           validation reports
    DIR/recipe.resolved.yaml    the recipe with every default filled in and every input pinned by sha256
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.cli import introspect
from mtgauntlet.errors import GauntletError
from mtgauntlet.recipes.spec import RUNNER_OWNED, BuildSpec, Recipe, parse_recipe, sha256_file

BUILDERS = ("subset", "smaug", "mtbreaker", "zeroshot", "bandit")
PLACEMENT_ONLY = ("concurrency", "actors")  # how fast, not what: they never change the records
STEP_EXCLUDE = {"validate": ("help", "report", "json", "gx"), "audit": ("help", "out", "against"),
                "publish": ("help",)}
STEP_COMMANDS = {"validate": ("validate", "records"), "audit": ("audit",), "publish": ("publish",)}


def builder_options(name: str):
    return introspect.options("build", name) if name in BUILDERS else None


def step_options() -> dict[str, Any]:
    return {step: introspect.options(*cmd, exclude=STEP_EXCLUDE[step]) or {} for step, cmd in STEP_COMMANDS.items()}


def load_recipe(path: str | Path) -> Recipe:
    return parse_recipe(path, builder_options, step_options())


def option_args(options: dict[str, Any], defs: dict) -> list[str]:
    """CLI arguments for a table of options (flags as flags; lists repeat the option)."""
    args: list[str] = []
    for name, value in options.items():
        d = defs[name]
        if d.type == "bool":
            if value and value != d.default:
                args.append(f"--{name}")
            elif not value and d.default and d.off:
                args.append(f"--{d.off}")
        elif value is None:
            continue
        elif d.multiple:
            for v in value:
                args += [f"--{name}", str(v)]
        else:
            args += [f"--{name}", str(value)]
    return args


def resolved_options(build: BuildSpec) -> dict[str, Any]:
    """Every option of the build's command: the recipe's value, else the command's default."""
    defs = builder_options(build.builder)
    return {name: build.options.get(name, d.default) for name, d in defs.items() if name not in RUNNER_OWNED}


@dataclass
class BuildStep:
    spec: BuildSpec
    out: Path
    args: list[str]
    options: dict[str, Any] = field(default_factory=dict)            # every option, defaults filled in
    inputs: dict[str, dict[str, str]] = field(default_factory=dict)  # option -> {path, sha256}

    def fingerprint(self) -> dict[str, Any]:
        """What makes the build: its builder, every option value (inputs by content, not by path)."""
        opts = {k: v for k, v in self.options.items() if k not in self.inputs and k not in PLACEMENT_ONLY}
        return {"builder": self.spec.builder, "options": opts,
                "inputs": {k: v["sha256"] for k, v in self.inputs.items()}}

    def state(self) -> str:
        """'done' (complete, same options and inputs), 'changed', 'partial' or 'new'."""
        manifest, step = self.out / "build.json", self.out / "recipe-step.json"
        if not manifest.exists():
            return "new"
        try:
            recorded = json.loads(step.read_text(encoding="utf-8")) if step.exists() else None
            status = json.loads(manifest.read_text(encoding="utf-8")).get("status")
        except (OSError, json.JSONDecodeError):
            return "changed"
        if recorded != self.fingerprint():
            return "changed"
        return "done" if status == "complete" else "partial"


def plan_builds(recipe: Recipe, work: Path) -> list[BuildStep]:
    steps = []
    for b in recipe.builds:
        defs = builder_options(b.builder)
        options = resolved_options(b)
        inputs = {}
        for key, value in b.inputs().items():
            if value.startswith("hf:"):
                continue
            path = recipe.resolve_path(value)
            digest = sha256_file(path)
            want = b.sha256.get(key)
            if want and want != digest:
                raise GauntletError(f"{recipe.path}: builds.{b.id}.{key}: {path} has sha256 {digest[:12]}, the "
                                    f"recipe pins {want[:12]}: the input changed")
            options[key] = str(path)
            inputs[key] = {"path": str(path), "sha256": digest}
        shown = {k: v for k, v in options.items() if k in b.options or k in inputs or defs[k].required}
        out = work / "builds" / b.id
        args = ["build", b.builder, *option_args(shown, defs), "--out", str(out)]
        steps.append(BuildStep(b, out, args, options, inputs))
    return steps


def resolved_recipe(recipe: Recipe, steps: list[BuildStep]) -> dict[str, Any]:
    """The recipe with every default filled in and inputs pinned: itself a valid recipe (`gauntlet reproduce`)."""
    builds = {}
    for st in steps:
        opts = resolved_options(st.spec)  # inputs as the recipe wrote them: no local absolute paths in a release
        builds[st.spec.id] = {"builder": st.spec.builder, **{k: v for k, v in opts.items() if v is not None},
                              "sha256": {k: v["sha256"] for k, v in st.inputs.items()}}
    rel = {k: v for k, v in vars(recipe.release).items() if v is not None}
    out: dict[str, Any] = {"recipe": 1, "release": rel, "builds": builds}
    for step in ("validate", "audit", "publish"):
        spec = getattr(recipe, step)
        if spec is not None:
            out[step] = dict(spec.options) or True
    return out


def dump_resolved(data: dict[str, Any], path: Path) -> Path:
    import yaml

    from mtgauntlet import __version__
    from mtgauntlet.atomic import write_text_atomic

    head = (f"# Resolved by mtgauntlet {__version__}: every option explicit, every input pinned by sha256.\n"
            "# Itself a recipe: `gauntlet run` or `gauntlet reproduce` replay it.\n")
    return write_text_atomic(path, head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def quote(args: list[str]) -> str:
    return "gauntlet " + " ".join(shlex.quote(a) for a in args)
