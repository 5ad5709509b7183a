"""How a recipe run runs its steps (:func:`mtgauntlet.recipes.running.run`): each calls the Python API function of
the command a user would type (``mg.build``, ``mg.validate``, ``mg.audit``, ...) with the recipe's options as
keywords, so a recipe makes exactly what the equivalent commands make; a step done before on exactly what it
reads now is skipped. Its equivalent command line is logged, never run."""

from __future__ import annotations

import contextvars
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.core.progress import info
from mtgauntlet.fileio import sha256_file
from mtgauntlet.recipes.commands import command_line, quote
from mtgauntlet.recipes.options import keywords, step_options
from mtgauntlet.recipes.spec import STEP_PATH_OPTIONS

# where a run's outcome lines go (None: to :func:`mtgauntlet.core.progress.info`); ``gauntlet run`` sets it
OUTCOME: contextvars.ContextVar = contextvars.ContextVar("mtgauntlet_recipe_outcome", default=None)


def say(line: str) -> None:
    """One line of a run's outcome (the plan, a step skipped, the release done): the ``gauntlet run`` command
    prints these on stdout; from Python they go where :func:`mtgauntlet.core.progress.info` sends them."""
    hook = OUTCOME.get()
    if hook is not None:
        hook(line)
    else:
        info(line)


def log_command(args: list[str]) -> None:
    """The equivalent command of the step about to run, in the log (stderr): ``$ gauntlet build smaug ...``."""
    info(f"\n$ {quote(args)}")


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
    record: Path  # DIR/steps/<name>.json, written when it passed
    reads: list[Path] = field(default_factory=list)  # builds, releases, rules files
    writes: list[Path] = field(default_factory=list)  # its outputs (all must still be there to skip)
    options: dict[str, Any] = field(default_factory=dict)  # the step's API keywords (paths resolved)

    def fingerprint(self) -> dict[str, Any]:
        from mtgauntlet import __version__

        return {
            "mtgauntlet": __version__,
            "args": self.args,
            "content": {str(p): content_digest(p) for p in self.reads},
        }

    def done(self) -> bool:
        try:
            recorded = json.loads(self.record.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return False
        return recorded == self.fingerprint() and all(p.exists() for p in self.writes)

    def mark_done(self) -> None:
        from mtgauntlet.atomic import write_json_atomic

        write_json_atomic(self.record, self.fingerprint())


def step_run(
    name: str, command: list[str], options: dict[str, Any], step: str, work: Path, reads: list[Path], writes: list[Path]
) -> StepRun:
    """The StepRun of ``command`` with a recipe step's (path-resolved) ``options``."""
    files = [Path(v) for k, v in options.items() if k in STEP_PATH_OPTIONS and isinstance(v, str)]
    args = [*command, *command_line(options, step_options()[step])]
    return StepRun(name, args, work / "steps" / f"{name}.json", [*reads, *files], writes, keywords(options))


def run_build(st) -> None:
    """Run one build step (:class:`mtgauntlet.recipes.plan.BuildStep`) through
    :func:`mtgauntlet.api.building.build`: skipped when done, resumed when interrupted, started over when
    changed."""
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
