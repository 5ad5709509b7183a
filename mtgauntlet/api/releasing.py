"""Releases from Python: `release` (``gauntlet release``), `verify` (``gauntlet verify``) and
`publish` (``gauntlet publish``); the CLI commands call these functions and print what they return.
`list_releases` lists the releases under a folder and `open_release` opens one by name and version."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mtgauntlet.api.inputs import path_of
from mtgauntlet.api.release_options import Paths, PublishOptions, ReleaseOptions, VerifyOptions
from mtgauntlet.api.results import Publication, Release, Verification
from mtgauntlet.api.session import public, warn
from mtgauntlet.errors import GauntletError, UsageError
from mtgauntlet.options import takes

__all__ = ["release", "verify", "publish", "list_releases", "open_release"]


def _many(value: Paths, name: str) -> list[Any]:
    """A list of what ``value`` (the argument ``name``) holds: one path or result object, or several."""
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)) or hasattr(value, "path"):
        return [value]
    try:
        return list(value)
    except TypeError:
        raise UsageError(
            f"release: {name}= takes a path, a result with a path or a list of them, not {type(value).__name__}"
        ) from None


def _read_report(report: Any) -> tuple[str, dict]:
    """(where it came from, the report): a report folder or file, or a `Report` written to a folder."""
    from mtgauntlet.fileio import read_json

    data = getattr(report, "data", None)
    if data is not None:
        if getattr(report, "path", None) is None:
            raise UsageError(
                "--report: this validation report was not written to a folder; validate with "
                "report=DIR so the release can name it"
            )
        return str(Path(report.path) / "report.json"), data
    p = Path(path_of(report))
    p = p / "report.json" if p.is_dir() else p
    return str(p), read_json(
        p, "validation report", "no such validation report (write one with gauntlet validate PATH --report DIR)"
    )


def release_warnings(manifest: dict[str, Any]) -> list[str]:
    """What a release warns about, from its manifest: licences to check, dropped duplicates. (Kinds no report
    validated are no warning, the card says so: `Release.not_validated`.)"""
    out = [f"licence: {w}" for w in manifest["license"]["warnings"]]
    out += [
        f"dropped {n} duplicate {kind} records (equal copies of one record in several builds)"
        for kind, n in manifest["dropped_duplicates"].items()
        if n
    ]
    return out


def opened_release(path: str | Path, said: list[str] | None = None) -> Release:
    """The release just written at ``path``, its warnings (``said`` by the writer first, then
    :func:`release_warnings`) set on it and each raised as a Python warning."""
    result = Release.open(path)
    result.warnings = list(said or []) + release_warnings(result.manifest)
    for w in result.warnings:
        warn(w)
    return result


@public
@takes(ReleaseOptions, returns=Release)
def release(o: ReleaseOptions) -> Release:
    """Package complete builds as ``OUT/name=NAME/version=VERSION/`` (written atomically, never overwritten):
    Parquet per record kind and language pair, dataset card, Croissant, and a manifest with every file's sha256.

    Returns:
        Release: The `Release`: its ``path``, ``manifest``, ``warnings`` (each also raised as a
            `mtgauntlet.GauntletWarning`) and ``not_validated`` (the kinds no report covers).

    Raises:
        GauntletError: An incomplete or missing build, a bad name or version, an existing release, a report of
            other builds, a bad licence or provenance statement, a missing figure or recipe file.

    Examples:
        >>> rel = mg.release(["builds/smaug"], name="my-es-en", version="0.1.0", report="reports/smaug")
        >>> rel.path, rel.manifest["total_rows"], rel.warnings
    """
    from mtgauntlet.releases.inputs import find_build_dir
    from mtgauntlet.releases.release import make_release

    builds = [path_of(b) for b in _many(o.builds, "builds")]
    if not builds:
        raise UsageError("builds: give at least one build directory")
    reports = [_read_report(r) for r in _many(o.report, "report")]
    extra = [Path(path_of(f)) for f in _many(o.figure, "figure")]
    for f in extra:
        if not f.is_file():
            raise GauntletError(f"{f}: no such figure file")
    for b in builds:
        extra += sorted((find_build_dir(b) / "figures").glob("*.png"))
    if o.recipe and not Path(o.recipe).is_file():
        raise GauntletError(f"{o.recipe}: no such recipe file")
    path = make_release(
        builds,
        o.name,
        o.version,
        out=o.out,
        reports=reports,
        license=o.license,
        pretty_name=o.pretty_name,
        extra_figures=extra,
        description=o.description,
        recipe=o.recipe,
        audit=o.audit,
        license_name=o.license_name,
        license_link=o.license_link,
        provenance=list(_many(o.provenance, "provenance")),
        input_files=[path_of(f) for f in _many(o.input_file, "input_file")],
        url=o.url,
        creators=list(_many(o.creator, "creator")),
    )
    return opened_release(path)


@public
@takes(VerifyOptions, returns=Verification)
def verify(o: VerifyOptions) -> Verification:
    """Re-check every file of a release against its ``manifest.json``: a changed, missing or extra file is a
    problem. A git clone or Hub download verifies (its ``.git``, ``.gitattributes`` and ``.cache/huggingface/``
    are not release files).

    Returns:
        A `Verification`: ``ok`` (also its truth value) and one line per problem in ``problems``.

    Raises:
        GauntletError: The manifest is missing or corrupt (not a release).

    Examples:
        >>> check = mg.verify("releases/name=my-es-en/version=0.1.0")
        >>> assert check.ok, check.problems
    """
    from mtgauntlet.releases.release import verify_release

    root = Path(path_of(o.path))
    return Verification(path=root, problems=verify_release(root))


@public
@takes(PublishOptions, returns=Publication)
def publish(o: PublishOptions) -> Publication:
    """Publish a release: one atomic commit of exactly the manifest's files, then the immutable tag ``vX.Y.Z``.
    Refused when the tag exists with other files or the release does not verify; a verified copy is uploaded, so
    a file changed meanwhile stops the publish. Publishing a release its tag already holds, byte for byte, sends
    nothing and is no error (``already_published``). The token comes only from ``HF_TOKEN`` or
    ``huggingface-cli login``.

    Returns:
        Publication: A `Publication`: the tag, the commit (``None`` on a dry run; the tagged commit when
            ``already_published``) and the file operations.

    Raises:
        GauntletError: The release does not verify, the tag exists with other files, the remote is unreachable
            or refuses.

    Examples:
        >>> plan = mg.publish("releases/name=my-es-en/version=0.1.0", repo="my-org/my-es-en", dry_run=True)
        >>> print(plan.description)
    """
    from mtgauntlet.releases.publish import publish as do_publish

    plan = do_publish(path_of(o.path), o.repo, dry_run=o.dry_run, branch=o.branch)
    return Publication(
        repo=plan.repo_id,
        tag=plan.tag,
        commit=plan.commit,
        dry_run=o.dry_run,
        operations=[
            {"op": "add" if type(op).__name__ == "CommitOperationAdd" else "delete", "path": op.path_in_repo}
            for op in plan.operations
        ],
        parent_commit=plan.parent_commit,
        commit_message=plan.commit_message,
        remote=plan.remote,
        description=plan.describe(),
        already_published=plan.already_published,
    )


def _found(root: str | Path) -> list[Release]:
    """Every readable release under ``root``, by name and then version (semver order)."""
    from mtgauntlet.releases.catalog_sources import find_sources

    if not Path(root).is_dir():
        raise GauntletError(f"{root}: no such directory (pass releases=DIR)")
    found = sorted(find_sources(Path(root)).releases, key=lambda r: (r.name, r.version.precedence()))
    return [Release(path=r.path, manifest=r.manifest) for r in found]


@public
def list_releases(
    name: str | None = None, *, releases: str | Path = "releases", progress: bool = False
) -> list[Release]:
    """The releases under a folder (the hive layout ``name=NAME/version=X.Y.Z`` that `release` writes), oldest
    version first; a folder whose manifest cannot be read is left out (``gauntlet query`` names it in
    ``catalog_skipped``). (Not ``mg.releases``: that name is the package ``mtgauntlet.releases``.)

    Args:
        name: Only the releases of this name.
        releases: The releases root.

    Returns:
        A list of `Release` (``name``, ``version``, ``path``, ``manifest``).

    Raises:
        GauntletError: ``releases`` is no directory; an invalid name.

    Examples:
        >>> [(r.name, r.version) for r in mg.list_releases()]
        [('my-es-en', '0.1.0'), ('my-es-en', '0.2.0')]
    """
    from mtgauntlet.releases.version import check_name

    if name is not None:
        check_name(name)
    return [r for r in _found(releases) if name is None or r.name == name]


@public
def open_release(
    name: str, version: str | None = None, *, releases: str | Path = "releases", progress: bool = False
) -> Release:
    """One release by name and version (``None``: the newest version, in semver order).

    Args:
        name: The release name.
        version: ``X.Y.Z`` (or ``X.Y.Z-PRERELEASE``); ``None`` for the newest.
        releases: The releases root.

    Returns:
        The `Release`: ``to_pandas()``, ``to_arrow()``, ``to_dataset()`` read its records.

    Raises:
        GauntletError: An invalid name or version, no such release (the versions there are named).

    Examples:
        >>> rel = mg.open_release("my-es-en", "0.1.0")
        >>> rel.to_dataset("smaug_pair")
    """
    from mtgauntlet.releases.version import Version, check_name

    check_name(name)
    wanted = str(Version.parse(version)) if version is not None else None
    found = [r for r in _found(releases) if r.name == name]
    match = [r for r in found if wanted is None or r.version == wanted]
    if not match:
        have = ", ".join(r.version for r in found) or "none"
        raise GauntletError(f"{releases}: no release {name} {wanted or ''}".rstrip() + f" (versions there: {have})")
    return match[-1]
