"""The arguments and options of ``gauntlet release``, ``gauntlet verify`` and ``gauntlet publish`` (``mg.release``,
``mg.verify``, ``mg.publish``), declared once (`mtgauntlet.options`): the commands, the functions' signatures and
``Args``, the checks and the recipe tables of ``publish:`` are made from these dataclasses. A field's ``help`` is
the command line's words, its ``doc`` (where Python takes more: result objects, lists) the docstring's."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet import shared_options as shared
from mtgauntlet.options import REQUIRED, argument, option

Paths = Any  # a path, a result object with ``.path`` (Build, Report, Release), or a list of them


@dataclass(kw_only=True, frozen=True)
class ReleaseOptions:
    """Package builds as releases/name=NAME/version=X.Y.Z/ (atomic): Parquet per kind and language pair, card,
    Croissant, manifest with the sha256 of every file."""

    builds: Paths = argument(
        many=True,
        help="Complete build directories (a path inside a build means the whole build).",
        doc="Build directories (or `Build` objects); a path inside a build means the whole build.",
    )
    name: str = shared.release_name()
    version: str = shared.release_version(
        "Semantic version X.Y.Z or X.Y.Z-PRERELEASE (numbers of at most 9 digits); never overwritten.",
        doc="Semantic version ``X.Y.Z`` or ``X.Y.Z-PRERELEASE``.",
    )
    out: str | Path = shared.releases_root()
    report: Paths = option(
        (),
        help="Validation report (gauntlet validate --report DIR) of these builds; repeat for builds validated "
        "separately. Refused if it validated other builds.",
        doc="Validation report(s) of these builds (folders, ``report.json`` files or `Report` objects written with "
        "``report=DIR``); refused if a report validated other builds.",
    )
    license: str | None = option(
        None,
        help="Hugging Face Hub licence id for the card (other: with --license-name and --license-link); default: "
        "derived from the sources' provenance (warns on non-commercial or unknown sources).",
        doc="Hugging Face Hub licence id for the card (``other`` with ``license_name`` and ``license_link``); "
        "default: derived from the sources' provenance.",
    )
    license_name: str = option(
        "", help="Name of the licence when --license other.", doc='Name of the licence when ``license="other"``.'
    )
    license_link: str = option(
        "",
        help="Link to the licence text when --license other.",
        doc='Link to the licence text when ``license="other"``.',
    )
    provenance: Sequence[str] = option(
        (),
        help="What a source is, as DATASET:FIELD=VALUE (FIELD: license (a Hub id, required), name, url and "
        "license_link (http(s)), citation, license_name, hub_id (a Hub dataset id); DATASET: a source_dataset of "
        "the released records, else refused); repeat.",
        doc="What a source is, as ``DATASET:FIELD=VALUE`` statements (FIELD: license, name, url, citation, "
        "license_name, license_link, hub_id; ``url`` and ``license_link`` http(s), ``hub_id`` a Hub dataset id; "
        "DATASET a ``source_dataset`` of the released records, else refused).",
    )
    input_file: Paths = option(
        (),
        help="An input file the builds read: data mtgauntlet ships is recognised by its sha256 (never by its name) "
        "and brings its licence; repeat.",
        doc="Input files the builds read: data mtgauntlet ships is recognised by its sha256 and brings its licence.",
    )
    url: str | None = option(
        None,
        help="Where the release is published (http(s)), for Croissant's url; default: the folder croissant.json "
        "lies in (./).",
        doc="Where the release is published (http(s)), for Croissant's ``url``.",
    )
    creator: Sequence[str] = option(
        (),
        help="Who made the release (Croissant creator); repeat.",
        doc="Who made the release (Croissant ``creator``).",
    )
    pretty_name: str | None = option(None, help="Human-readable dataset name for the card.")
    figure: Paths = option(
        (), help="Extra PNG figure(s) to embed in the card.", doc="Extra PNG figures to embed in the card."
    )
    description: str | None = option(None, help="A paragraph describing the set (card).")
    recipe: str | Path | None = option(
        None,
        help="The resolved recipe that made these builds (written by `gauntlet run`); stored as recipe.yaml and "
        "shown in the card.",
        doc="The resolved recipe that made these builds, stored as ``recipe.yaml``.",
    )
    audit: bool = option(
        False,
        help="Put the audit page (report.html, as `gauntlet audit`) into the release, covered by the manifest and "
        "linked from the card.",
        doc="Put the audit page (``report.html``, as `mtgauntlet.audit`) into the release.",
    )


@dataclass(kw_only=True, frozen=True)
class VerifyOptions:
    """Re-check every file of the release against manifest.json (changed, missing or extra files fail; exit 1).
    A git clone or Hub download verifies: its .git, .gitattributes and .cache/huggingface/ are not release files."""

    path: str | Path = argument(
        metavar="release_dir",
        help="A release directory (…/name=NAME/version=X.Y.Z).",
        doc="A release directory (``.../name=NAME/version=X.Y.Z``) or a `Release`.",
    )


@dataclass(kw_only=True, frozen=True)
class PublishOptions:
    """One atomic commit of exactly the manifest's files, then the immutable tag vX.Y.Z (refused if the tag holds
    other files or the release does not verify; a tag holding exactly this release: nothing to publish); uploads a
    verified copy, so a file changed meanwhile stops the publish."""

    path: str | Path = argument(
        metavar="release_dir", help="A release directory.", doc="A release directory or a `Release`."
    )
    repo: str = option(
        REQUIRED,
        help="Hub dataset repo ORG/NAME, or file:PATH for a local git repo.",
        doc="Hub dataset repository ``ORG/NAME``, or ``file:PATH`` for a local git repository.",
    )
    dry_run: bool = option(
        False,
        builds=False,
        help="Print the exact commit operations; publish nothing.",
        doc="Only plan: the result lists the exact commit operations; nothing is published.",
    )
    branch: str = option("main", help="Branch to commit to.")
