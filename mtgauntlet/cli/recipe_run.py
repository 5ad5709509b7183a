"""The machinery of a recipe run (:func:`mtgauntlet.api.recipes.run`): each step calls the Python API function
of the command a user would type (``mg.build``, ``mg.validate``, ``mg.release``, ``mg.audit``, ``mg.publish``)
with the recipe's options as keywords, so a recipe releases exactly what the equivalent commands release. The
equivalent command line of each step is shown in the plan and the log, never run.

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

import contextvars
import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.cli import introspect
from mtgauntlet.errors import GauntletError
from mtgauntlet.runner.progress import info
from mtgauntlet.recipes.spec import RUNNER_OWNED, STEP_PATH_OPTIONS, BuildSpec, Recipe, parse_recipe, sha256_file

BUILDERS = ("subset", "smaug", "mtbreaker", "zeroshot", "bandit")
PLACEMENT_ONLY = ("concurrency", "actors")  # how fast, not what: they never change the records
STEP_EXCLUDE = {"validate": ("help", "report", "json", "gx"), "audit": ("help", "out"),
                "publish": ("help",)}
STEP_COMMANDS = {"validate": ("validate", "records"), "audit": ("audit",), "publish": ("publish",)}


def builder_options(name: str):
    return introspect.options("build", name) if name in BUILDERS else None


def step_options() -> dict[str, Any]:
    return {step: introspect.options(*cmd, exclude=STEP_EXCLUDE[step]) or {} for step, cmd in STEP_COMMANDS.items()}


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


def command_line(options: dict[str, Any], defs: dict) -> list[str]:
    """The command-line form of a table of options (flags as flags; lists repeat the option): what the plan and
    the log show as the equivalent command. Nothing is run from it."""
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


CLI_ONLY = ("json",)  # how a command prints: no keyword of the API (it returns objects)


def keywords(options: dict[str, Any]) -> dict[str, Any]:
    """A recipe's options (CLI names, ``src-lang``) as the API's keywords (``src_lang``)."""
    return {name.replace("-", "_"): value for name, value in options.items() if name not in CLI_ONLY}


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
        from mtgauntlet.runner.build_runner import build_lock, discard_build

        state = self.state()
        if state in ("new", "changed"):
            with build_lock(self.out):
                discard_build(self.out)
                write_json_atomic(self.record, self.fingerprint())
        return state


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
        args = ["build", b.builder, *command_line(shown, defs), "--out", str(out)]
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
    origin = Path(os.path.relpath(recipe.base)).as_posix()  # where `gauntlet reproduce` finds relative inputs
    out: dict[str, Any] = {"recipe": 1, "release": rel, "origin": origin, "builds": builds}
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


def content_digest(path: Path) -> str | None:
    """sha256 of a file, or of the manifest of a build or release folder (None: nothing to hash)."""
    if path.is_file():
        return sha256_file(path)
    for name in ("build.json", "manifest.json"):
        if (path / name).is_file():
            return sha256_file(path / name)
    return None


@dataclass
class StepRun:
    """A validation or audit command of a run: skipped when it passed before on exactly what it reads now."""

    name: str
    args: list[str]
    record: Path                                          # DIR/steps/<name>.json, written when it passed
    reads: list[Path] = field(default_factory=list)       # builds, releases, rules files
    writes: list[Path] = field(default_factory=list)      # its outputs (all must still be there to skip)
    options: dict[str, Any] = field(default_factory=dict)  # the step's API keywords (paths resolved)

    def fingerprint(self) -> dict[str, Any]:
        from mtgauntlet import __version__

        return {"mtgauntlet": __version__, "args": self.args,
                "content": {str(p): content_digest(p) for p in self.reads}}

    def done(self) -> bool:
        try:
            recorded = json.loads(self.record.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return False
        return recorded == self.fingerprint() and all(p.exists() for p in self.writes)

    def mark_done(self) -> None:
        from mtgauntlet.atomic import write_json_atomic

        write_json_atomic(self.record, self.fingerprint())


def step_run(name: str, command: list[str], options: dict[str, Any], step: str, work: Path,
             reads: list[Path], writes: list[Path]) -> StepRun:
    """The StepRun of ``command`` with a recipe step's (path-resolved) ``options``."""
    files = [Path(v) for k, v in options.items() if k in STEP_PATH_OPTIONS and isinstance(v, str)]
    args = [*command, *command_line(options, step_options()[step])]
    return StepRun(name, args, work / "steps" / f"{name}.json", [*reads, *files], writes, keywords(options))


def say(line: str) -> None:
    """One line of a run's outcome (the plan, a step skipped, the release done): the ``gauntlet run`` command
    prints these on stdout; from Python they go where :func:`mtgauntlet.runner.progress.info` sends them."""
    hook = OUTCOME.get()
    if hook is not None:
        hook(line)
    else:
        info(line)


OUTCOME: contextvars.ContextVar = contextvars.ContextVar("mtgauntlet_recipe_outcome", default=None)


def log_command(args: list[str]) -> None:
    """The equivalent command of the step about to run, in the log (stderr): ``$ gauntlet build smaug ...``."""
    info(f"\n$ {quote(args)}")


def run_build(st) -> None:
    """Run one build step through :func:`mtgauntlet.api.building.build`: skipped when done, resumed when
    interrupted, started over when changed."""
    from mtgauntlet.api.building import build

    state = st.prepare()
    if state == "done":
        say(f"build {st.spec.id}: complete and unchanged, skipped")
        return
    if state == "changed":
        info(f"build {st.spec.id}: another build was in {st.out}: discarded")
    log_command(st.args)
    info(build(st.spec.builder, out=str(st.out), **keywords(st.options), progress=None).describe())


def run_step(step: StepRun, action) -> bool:
    """Run a validation or audit step (``action()``: True when it passed) unless it passed before on exactly what
    it reads now."""
    if step.done():
        say(f"{step.name}: unchanged since it passed, skipped")
        return True
    log_command(step.args)
    passed = action(**step.options)
    if passed:
        step.mark_done()
    return passed
