"""Versioned releases: ``releases/name=NAME/version=X.Y.Z/``, written atomically and never overwritten.

Layout of a release::

    README.md                           dataset card (Hub YAML: configs per kind, licence, sources; sections)
    data/<kind>/<lp>/<part>.parquet     records: one folder per kind, one per language pair (smaug: a file
                                        per phenomenon)
    plots/*.png                         figures embedded in the card
    croissant.json                      Croissant JSON-LD (one record set per kind)
    manifest.json                       sha256 and size of every other file, rows per data file, build
                                        signatures, validation per kind, licence and sources, versions

Only complete builds are released, each once; equal copies of a record in several builds are kept once
and counted, records that share an id but differ are refused; a validation report is attached only when
it validated exactly these builds.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from mtgauntlet import __version__
from mtgauntlet.errors import GauntletError
from mtgauntlet.records import SIGNATURES_METADATA_KEY
from mtgauntlet.release_layout import (
    BUILD_KEYS,
    configs,
    data_path,
    kind_sort_key,
    split_records,
    write_records,
)
from mtgauntlet.releases.inputs import load_builds, tables_by_kind
from mtgauntlet.releases.manifest import RELEASE_MANIFEST, describe_file, release_files, sha256_file, verify_release
from mtgauntlet.releases.staging import staged_release_dir
from mtgauntlet.releases.validation_match import match_reports
from mtgauntlet.releases.version import Version, check_name
from mtgauntlet.schema import SIGNATURE_METADATA_KEY, utcnow
from mtgauntlet.versions import package_versions

__all__ = ["RELEASE_MANIFEST", "make_release", "release_dir", "sha256_file", "verify_release"]

RECIPE_FILE = "recipe.yaml"
AUDIT_FILE = "report.html"


def release_dir(root: str | Path, name: str, version: str | Version) -> Path:
    return Path(root) / f"name={name}" / f"version={version}"


def _source_counts(tables: dict[str, pa.Table]) -> Counter:
    counts: Counter = Counter()
    for t in tables.values():
        if "source_dataset" in t.column_names:
            vc = pc.value_counts(t.column("source_dataset").combine_chunks())
            counts.update(dict(zip(vc.field("values").to_pylist(), vc.field("counts").to_pylist())))
    return counts


def _write_data(tmp: Path, kind: str, table: pa.Table, signatures: list[str], release_id: str) -> list[dict]:
    files = []
    for lp, part, sub in split_records(kind, table):
        rel = data_path(kind, lp, part)
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        meta = {k: v for k, v in (sub.schema.metadata or {}).items() if k != SIGNATURE_METADATA_KEY}
        meta[b"mtgauntlet.release"] = release_id.encode()
        meta[SIGNATURES_METADATA_KEY] = json.dumps(signatures).encode()
        if len(signatures) == 1:
            meta[SIGNATURE_METADATA_KEY] = signatures[0].encode()
        write_records(sub.replace_schema_metadata(meta), tmp / rel)
        files.append(describe_file(tmp, rel, kind=kind, lp=lp, part=part, rows=sub.num_rows))
    return files


def make_release(
    builds: Sequence[str | Path],
    name: str,
    version: str,
    *,
    out: str | Path = "releases",
    reports: Sequence[tuple[str, dict[str, Any]]] = (),
    license: str | None = None,
    pretty_name: str | None = None,
    extra_figures: Sequence[Path] = (),
    description: str | None = None,
    recipe: str | Path | None = None,
    audit: bool = False,
    license_name: str = "",
    license_link: str = "",
    provenance: Sequence[str] = (),
    input_files: Sequence[str | Path] = (),
    url: str | None = None,
    creators: Sequence[str] = (),
) -> Path:
    """Package complete builds as an immutable release; returns the release directory.

    ``reports``: (where it came from, validation report) pairs; ``license``: a Hub licence id overriding the
    licence derived from the records' sources (``other`` with ``license_name`` and ``license_link``);
    ``provenance``: the releaser's statements ``DATASET:FIELD=VALUE`` (name, license, url, citation, ...);
    ``input_files``: the files the builds read, recognised by sha256 when mtgauntlet ships them (see
    :mod:`mtgauntlet.cards.licenses`; a source known neither way is "unknown" and warned about); ``url``: where the
    release is published (http(s); Croissant ``url``) and ``creators``: who made it (Croissant ``creator``); ``recipe``: the
    resolved recipe that made the builds (`gauntlet run`), stored as recipe.yaml and shown in the card;
    ``audit``: put the audit page (``report.html``, :mod:`mtgauntlet.cards.audit`) into the release.
    """
    from mtgauntlet.cards.card import write_card
    from mtgauntlet.cards.croissant import write_croissant
    from mtgauntlet.cards.licenses import check_license, check_stated_datasets, decide_license, parse_statements
    from mtgauntlet.cards.methods import method_text
    from mtgauntlet.releases.inputs import input_provenance

    check_name(name)
    v = Version.parse(version)
    target = release_dir(out, name, v)
    if target.exists():
        raise GauntletError(
            f"{target} already exists: releases are immutable; release a changed build as a new version"
        )
    if license:
        check_license(license, license_name, license_link)
    if url and not re.fullmatch(r"https?://[^\s<>\"'`]+", url):
        raise GauntletError(f"--url {url!r}: give the http(s) address where the release is published")
    stated = parse_statements(provenance)
    recognised, input_notes = input_provenance(input_files)
    inputs = load_builds(builds)
    tables, rows_by_build, dropped = tables_by_kind(inputs)
    signatures = {k: [s for s in per if s] for k, per in rows_by_build.items()}
    validation = match_reports(reports, rows_by_build) if reports else {}
    counts = _source_counts(tables)
    check_stated_datasets(stated, counts)
    decision = decide_license(
        counts, {**recognised, **stated}, override=license, override_name=license_name, override_link=license_link
    )
    decision.warnings[:0] = input_notes
    kinds = sorted(tables, key=kind_sort_key)
    release_id = f"{name}@{v}"
    with staged_release_dir(target) as tmp:
        files: list[dict[str, Any]] = []
        for kind in kinds:
            files += _write_data(tmp, kind, tables[kind], signatures.get(kind, []), release_id)
        builds_meta: list[dict[str, Any]] = [
            {**{k: b.manifest.get(k) for k in BUILD_KEYS}, "kinds": sorted(b.files)} for b in inputs
        ]
        manifest: dict[str, Any] = {
            "name": name,
            "version": str(v),
            "created_at": utcnow().isoformat(),
            "mtgauntlet_version": __version__,
            "kinds": kinds,
            "kind": kinds[0] if len(kinds) == 1 else "mixed",
            "rows": {k: tables[k].num_rows for k in kinds},
            "total_rows": sum(t.num_rows for t in tables.values()),
            "dropped_duplicates": {k: dropped[k] for k in kinds},
            "configs": configs(files, release_id),
            "signatures": [b.signature for b in inputs if b.signature],
            "signatures_by_kind": {k: signatures.get(k, []) for k in kinds},
            "builds": builds_meta,
            "versions": package_versions(),
            "validation": {k: validation[k] for k in kinds if k in validation} or None,
            "license": {**decision.__dict__},
            "description": " ".join(description.split()) if description else None,
            "recipe": RECIPE_FILE if recipe else None,
            "audit": AUDIT_FILE if audit else None,
            "url": url or None,
            "creators": [" ".join(c.split()) for c in creators if c.strip()],
        }
        if recipe:
            shutil.copyfile(recipe, tmp / RECIPE_FILE)
        write_card(tmp, manifest, tables, pretty_name=pretty_name, extra_figures=extra_figures)
        cite = "\n\n".join(dict.fromkeys(m.citation for b in builds_meta if (m := method_text(b["builder"])).citation))
        write_croissant(tmp, manifest, {k: tables[k].schema for k in kinds}, cite_as=cite)
        listed = {f["path"] for f in files}
        files += [describe_file(tmp, rel) for rel in release_files(tmp) if rel not in listed]
        manifest["files"] = files
        _write_manifest(tmp, manifest)
        if audit:  # the page reads the manifest and the card, so it comes last and is then added to the manifest
            from mtgauntlet.cards.audit import write_audit

            write_audit(tmp, tmp / AUDIT_FILE, location=str(target), progress=False)
            manifest["files"].append(describe_file(tmp, AUDIT_FILE))
            _write_manifest(tmp, manifest)
    return target


def _write_manifest(root: Path, manifest: dict[str, Any]) -> None:
    (root / RELEASE_MANIFEST).write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
    )
