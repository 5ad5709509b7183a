"""Recipes from Python: `run` (``gauntlet run``; `reproduce` is in `mtgauntlet.recipes.reproducing`).

A run calls the API's own functions step by step (`mtgauntlet.build`, `mtgauntlet.validate`,
`mtgauntlet.release`, `mtgauntlet.audit`, `mtgauntlet.publish`) with the recipe's options as
keywords. What it reports on the way (the plan, steps skipped, each step's equivalent command and summary) are
informational lines: silent by default, shown with ``progress=True``, printed by the CLI.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.api.results import Release
from mtgauntlet.api.session import public
from mtgauntlet.core.progress import info
from mtgauntlet.errors import GauntletError
from mtgauntlet.options import takes
from mtgauntlet.recipes.run_options import RunOptions

__all__ = ["run", "RecipePlan"]


class RuleFailed(GauntletError):
    """A validation rule of a recipe's build failed: nothing was released (exit 1, as ``gauntlet validate``)."""

    exit_code = 1


@dataclass
class RecipePlan:
    """What `run` does (``dry_run=True`` returns it without running anything).

    Attributes:
        recipe: The recipe file.
        name: The release name. version: The release version.
        release: The release folder it writes (``RELEASES/name=NAME/version=VERSION``).
        work: The work directory (builds, reports).
        builds: Per build: ``id``, ``out``, ``state`` (new, done, resuming, changed) and ``command`` (the
            equivalent ``gauntlet build`` arguments).
        validate: Whether each build is validated before the release. audit: Whether an audit page is made.
        publish: The repository the release is published to, or ``None``.
    """

    recipe: Path
    name: str
    version: str
    release: Path
    work: Path
    builds: list[dict[str, Any]] = field(default_factory=list)
    validate: bool = False
    audit: bool = False
    publish: str | None = None
    spec: Any = field(default=None, repr=False)  # the parsed recipe
    steps: list[Any] = field(default_factory=list, repr=False)  # its build steps

    def lines(self) -> list[str]:
        """The plan as ``gauntlet run`` prints it."""
        from mtgauntlet.recipes.commands import quote

        out = [f"recipe {self.recipe}: release {self.name} {self.version}, {len(self.builds)} build(s)"]
        out += [f"  build {b['id']} [{b['state']}]: {quote(b['command'])}" for b in self.builds]
        out.append(
            f"  validate: {'yes' if self.validate else 'no'}; release -> {self.release}; "
            f"audit: {'yes' if self.audit else 'no'}; publish: {self.publish or 'no'}"
        )
        return out


def plan(recipe: str | Path, *, work: str | Path | None = None, releases: str | Path = "releases") -> RecipePlan:
    """The plan of `run` (every name, path and option checked; nothing written)."""
    from mtgauntlet.recipes.plan import load_recipe, plan_builds

    rec = load_recipe(recipe)
    work_dir = Path(work) if work else Path("gauntlet-work") / rec.release.name
    steps = plan_builds(rec, work_dir)
    return RecipePlan(
        recipe=rec.path,
        name=rec.release.name,
        version=rec.release.version,
        release=Path(releases) / f"name={rec.release.name}" / f"version={rec.release.version}",
        work=work_dir,
        validate=bool(rec.validate),
        audit=rec.audit is not None,
        publish=rec.step_options("publish").get("repo") if rec.publish else None,
        builds=[{"id": st.spec.id, "out": st.out, "state": st.state(), "command": st.args} for st in steps],
        spec=rec,
        steps=steps,
    )


@contextlib.contextmanager
def outcome_lines(echo: Callable[[str], None]) -> Iterator[None]:
    """Inside (the CLI): a run's outcome lines (the plan, steps skipped, done) go to ``echo``."""
    from mtgauntlet.recipes.steps import OUTCOME

    token = OUTCOME.set(echo)
    try:
        yield
    finally:
        OUTCOME.reset(token)


@public
@takes(RunOptions, returns=Release | RecipePlan)
def run(o: RunOptions) -> Release | RecipePlan:
    """Run a recipe end to end: every build (resuming; complete and unchanged builds are skipped), validation,
    the release (with the resolved recipe inside), the audit report and publishing when the recipe asks.

    Returns:
        The `Release` (an existing release with these builds is returned as it is), or the
            `RecipePlan` with ``dry_run=True``.

    Raises:
        GauntletError: A bad recipe (file, line and key named), a failed build, an existing release of other
            builds, a refused publish. RuleFailed: a validation rule failed (nothing released). BudgetSpent: a
            build's budget ran out (the same call resumes).

    Examples:
        >>> rel = mg.run("examples/demo.yaml", work="work", releases="releases")
        >>> rel.manifest["signatures"]
    """
    from mtgauntlet.recipes.plan import dump_resolved, resolved_recipe
    from mtgauntlet.recipes.steps import run_build, say

    releases = o.releases
    p = plan(o.recipe, work=o.work, releases=releases)
    rec, steps = p.spec, p.steps
    for line in p.lines():
        say(line)
    if o.dry_run:
        say("dry run: nothing was run")
        return p
    for st in steps:
        run_build(st)
    resolved = dump_resolved(resolved_recipe(rec, steps), p.work / "recipe.resolved.yaml")
    reports = _validate(rec, steps, p.work) if rec.validate else []
    target, made = p.release, None
    if target.exists():
        _check_same_release(target, steps)
        say(f"release {target} exists with these builds: not released again")
    else:
        made = _release(rec, steps, reports, releases, resolved)
    if rec.audit is not None and rec.audit.options:  # the release holds the default page; these options make another
        _audit(rec, target, p.work)
    if p.publish is not None:
        _publish(rec, target, p.publish)
    say(f"recipe done: {target}")
    return made or Release.open(target)


def _validate(rec, steps, work: Path) -> list[Path]:
    from mtgauntlet.api.checking import validate
    from mtgauntlet.recipes.steps import run_step, step_run
    from mtgauntlet.validators.validate import summary_text

    reports = []
    for st in steps:
        rep = work / "reports" / st.spec.id

        def check(st=st, rep=rep, **options) -> bool:
            report = validate(str(st.out), report=str(rep), **options, progress=None)
            info(summary_text(report.data).rstrip("\n"))
            info(f"report: {rep}/report.json")
            return report.passed

        step = step_run(
            f"validate-{st.spec.id}",
            ["validate", str(st.out), "--report", str(rep)],
            rec.step_options("validate"),
            "validate",
            work,
            [st.out],
            [rep / "report.json"],
        )
        if not run_step(step, check):
            raise RuleFailed(f"validation of build {st.spec.id} failed (report {rep}); nothing released")
        reports.append(rep)
    return reports


def _release(rec, steps, reports: list[Path], releases, resolved: Path) -> Release:
    from mtgauntlet.api.releasing import release
    from mtgauntlet.recipes.steps import log_command

    r = rec.release
    options = {
        "name": r.name,
        "version": r.version,
        "out": str(releases),
        "license": r.license,
        "license_name": r.license_name or "",
        "license_link": r.license_link or "",
        "provenance": r.provenance_statements(),
        "url": r.url,
        "creator": r.creator or [],
        "pretty_name": r.pretty_name,
        "description": r.description,
        "recipe": str(resolved),
        "audit": rec.audit is not None,
        "report": [str(p) for p in reports],
        "input_file": _input_files(steps),
    }
    log_command(["release", *[str(st.out) for st in steps], *_shown(release, options)])
    rel = release([str(st.out) for st in steps], **options, progress=None)
    if rel.not_validated:
        info(f"note: not validated: {', '.join(rel.not_validated)} (the card says so)")
    info(rel.describe())
    return rel


def _input_files(steps) -> list[str]:
    """The input files of the builds that are data mtgauntlet ships (recognised by their pinned sha256, never by
    name): named to the release, they bring their licence. Other inputs are left out, so that no local path
    reaches the release; ``release.provenance`` states what they are."""
    from mtgauntlet.cards.licenses import recognise
    from mtgauntlet.recipes.spec import INPUT_OPTIONS

    files = [
        v["path"]
        for st in steps
        for k, v in st.inputs.items()
        if k in INPUT_OPTIONS and recognise(v["sha256"]) is not None
    ]
    return list(dict.fromkeys(files))


def _shown(fn: Callable[..., Any], options: dict[str, Any]) -> list[str]:
    """The options of a call of the API function ``fn`` as the equivalent command's arguments (for the log)."""
    from mtgauntlet.recipes.commands import command_line
    from mtgauntlet.recipes.options import api_options

    defs = api_options(fn)
    given = {k.replace("_", "-"): v for k, v in options.items()}
    return command_line({k: v for k, v in given.items() if k in defs and v not in ("", [], None)}, defs)


def _audit(rec, target: Path, work: Path) -> None:
    from mtgauntlet.api.auditing import audit
    from mtgauntlet.recipes.steps import run_step, step_run

    page = work / "audit.html"

    def write(**options) -> bool:
        info(f"audit report: {audit(str(target), out=str(page), **options, progress=None)}")
        return True

    run_step(
        step_run(
            "audit",
            ["audit", str(target), "--out", str(page)],
            rec.step_options("audit"),
            "audit",
            work,
            [target],
            [page],
        ),
        write,
    )


def _publish(rec, target: Path, repo: str) -> None:
    from mtgauntlet.api.releasing import publish
    from mtgauntlet.recipes.commands import command_line
    from mtgauntlet.recipes.options import keywords, step_options
    from mtgauntlet.recipes.published import tag_holds_release
    from mtgauntlet.recipes.steps import log_command, say

    if tag_holds_release(target, repo):
        say(f"publish: {repo} already holds this release under its tag: nothing to publish")
        return
    options = rec.step_options("publish")
    log_command(["publish", str(target), *command_line(options, step_options()["publish"])])
    done = publish(str(target), **keywords(options), progress=None)
    info(done.description)
    info("dry run: nothing was published" if done.dry_run else f"published commit {done.commit} and tag {done.tag}")


def _check_same_release(target: Path, steps) -> None:
    from mtgauntlet.fileio import read_json_object
    from mtgauntlet.releases.manifest import read_manifest

    manifest = read_manifest(target)
    released = set(manifest.get("signatures") or [])
    built = {read_json_object(st.out / "build.json", "build manifest").get("signature") for st in steps}
    if not built <= released:
        raise GauntletError(
            f"{target} already exists with other builds: releases are immutable; bump the recipe's release version"
        )
