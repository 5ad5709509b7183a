"""A public set in, as a normal sealed release: read the format, complete the records (id, languages, builder
``import:FORMAT``, created_at, source_dataset), write them as a complete build in a temporary folder and release
that build with the shared release machinery (manifest, card, Croissant). Skipped rows are counted by reason in the
build's counts (manifest ``builds[].counts.skipped``) and in the card.

``source_dataset`` is the input's name up to its first dot (``demetr_dev.jsonl.gz`` -> ``demetr_dev``; a folder:
its name): ``--provenance`` statements name it (``demetr_dev:license=mit``; ``license=mit`` alone means the same), and
an input file that is data mtgauntlet knows by its sha256 (DEMETR, the WMT23 MQM table) brings its licence.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError, UsageError
from mtgauntlet.sets.imported import ImportedSet
from mtgauntlet.sets.systems import SystemChoice

IMPORT_FORMATS = ("aces", "span-aces", "demetr", "wmt-challenge", "mtme", "human-table", "mqm-spans")
TITLES = {
    "aces": "ACES (TSV or JSON lines)",
    "span-aces": "Span-ACES",
    "demetr": "DEMETR",
    "wmt-challenge": "a WMT challenge-set TSV",
    "mtme": "an mt-metrics-eval folder",
    "human-table": "a flat human-judgment table",
    "mqm-spans": "error-span annotations in Google's MQM format",
}
BUILDER_VERSION = "1"
_FIELD_FIRST = re.compile(r"(name|license|url|citation|license[_-]name|license[_-]link|hub[_-]id)=", re.DOTALL)


HUMAN_FORMATS = ("mtme", "human-table")


def read_set(
    fmt: str, path: str | Path, score_cols: Sequence[str] = (), systems: SystemChoice | None = None
) -> ImportedSet:
    """The records of a set in format ``fmt`` (see IMPORT_FORMATS), without the common fields; ``systems``: which
    rows of a human-judgment set are systems (:mod:`mtgauntlet.sets.systems`; default: WMT's setup)."""
    if fmt not in IMPORT_FORMATS:
        raise UsageError(f"import format {fmt!r}: choose one of {', '.join(IMPORT_FORMATS)}")
    if score_cols and fmt != "human-table":
        raise UsageError("--score-col is for human-table (other formats keep every numeric column)")
    if systems is not None and not systems.is_default() and fmt not in HUMAN_FORMATS:
        raise UsageError(
            "--reference, --ref-systems and --exclude-systems are for human-judgment sets (mtme, human-table)"
        )
    if fmt == "demetr":
        from mtgauntlet.sets.formats.demetr import read_demetr

        return read_demetr(path)
    if fmt == "mtme":
        from mtgauntlet.sets.formats.mtme import read_mtme

        return read_mtme(path, systems)
    if not Path(path).is_file():
        raise GauntletError(f"{path}: no such file")
    if fmt == "mqm-spans":
        from mtgauntlet.sets.formats.mqm_spans import read_mqm_spans

        return read_mqm_spans(path)
    if fmt == "human-table":
        from mtgauntlet.sets.formats.human_table import read_human_table

        return read_human_table(path, score_cols, systems)
    from mtgauntlet.sets.formats.challenge_tsv import read_pairs

    return read_pairs(path, fmt)


def dataset_name(path: str | Path) -> str:
    from mtgauntlet.releases.inputs import reader_dataset_name

    return reader_dataset_name(Path(path).resolve()) or "imported"


def complete(fmt: str, imported: ImportedSet, source_dataset: str) -> list[dict[str, Any]]:
    """The records with their common fields and content ids; two records with one id are an error."""
    from mtgauntlet.schema import record_id, utcnow

    created, builder = utcnow(), f"import:{fmt}"
    seen: dict[str, dict[str, Any]] = {}
    out = []
    for r in imported.records:
        rec = {
            **r,
            "builder": builder,
            "builder_version": BUILDER_VERSION,
            "created_at": created,
            "source_dataset": source_dataset,
        }
        rec["id"] = record_id(imported.kind, rec)
        if rec["id"] in seen:
            where = ", ".join(f"{k} {rec.get(k)!r}" for k in ("lp", "seg_id", "system", "source_id") if rec.get(k))
            raise GauntletError(
                f"{source_dataset}: two {imported.kind} records are the same item ({where}); remove the repeated row"
            )
        seen[rec["id"]] = rec
        out.append(rec)
    return out


def expand_provenance(statements: Sequence[str], source_dataset: str) -> list[str]:
    """``FIELD=VALUE`` (no dataset) states the provenance of the imported set itself."""
    return [f"{source_dataset}:{s}" if _FIELD_FIRST.match(s) else s for s in statements]


def _write_build(
    folder: Path,
    fmt: str,
    path: Path,
    imported: ImportedSet,
    records: list[dict[str, Any]],
    score_cols: Sequence[str],
    systems: SystemChoice,
) -> None:
    import pyarrow.parquet as pq

    from mtgauntlet.core.builds import MANIFEST
    from mtgauntlet.fileio import sha256_file
    from mtgauntlet.schema import to_table, utcnow
    from mtgauntlet.signature import make_signature
    from mtgauntlet.versions import package_versions

    digests = {str(f): sha256_file(f) for f in imported.files}
    content = hashlib.sha256(json.dumps(sorted(digests.values())).encode()).hexdigest()[:16]
    signature = make_signature(
        {
            "builder": f"import:{fmt}",
            "builder_version": BUILDER_VERSION,
            "input": content,
            "score_col": list(score_cols) or None,
            **(systems.config() if fmt in HUMAN_FORMATS else {}),
        }
    )
    (folder / "data").mkdir(parents=True)
    pq.write_table(to_table(imported.kind, records, signature=signature), folder / "data" / "part-0.parquet")
    now = utcnow().isoformat()
    skipped = dict(sorted(imported.skipped.items()))
    manifest = {
        "status": "complete",
        "builder": f"import:{fmt}",
        "builder_version": BUILDER_VERSION,
        "kind": imported.kind,
        "signature": signature,
        "produced": len(records),
        "counts": {"produced": len(records), "items": len(records) + sum(skipped.values()), "skipped": skipped},
        "config": {
            "format": fmt,
            "input": path.name,
            "score_col": list(score_cols),
            **(systems.config() if fmt in HUMAN_FORMATS else {}),
        },
        "created_at": now,
        "finished_at": now,
        "versions": package_versions(),
        "input_sha256": {Path(k).name: v for k, v in digests.items()},
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")


def _recognisable(path: Path, files: Sequence[Path]) -> list[Path]:
    """The input files the release may recognise by sha256: the file imported; of a folder, its files only when
    every one is the same known data (a folder mixing known and unknown files is not vouched for by one of them)."""
    from mtgauntlet.cards.licenses import recognise
    from mtgauntlet.fileio import sha256_file

    if path.is_file():
        return [path]
    known = [recognise(sha256_file(f)) for f in files]
    described = {k.describe for k in known if k is not None}
    return list(files) if known and None not in known and len(described) == 1 else []


def import_release(
    fmt: str,
    path: str | Path,
    *,
    name: str,
    version: str,
    out: str | Path = "releases",
    provenance: Sequence[str] = (),
    score_cols: Sequence[str] = (),
    systems: SystemChoice | None = None,
) -> tuple[Path, list[str]]:
    """Read a set and release it as ``OUT/name=NAME/version=VERSION``; returns the release directory and what the
    import warns about (human references left out of the systems)."""
    from mtgauntlet.releases.release import make_release, release_dir
    from mtgauntlet.releases.version import Version, check_name

    check_name(name)
    target = release_dir(out, name, Version.parse(version))
    if target.exists():
        raise GauntletError(f"{target} already exists: releases are immutable; import as a new version")
    p = Path(path)
    systems = systems or SystemChoice()
    imported = read_set(fmt, p, score_cols, systems)
    source = dataset_name(p)
    said = systems.warning(p.name)
    records = complete(fmt, imported, source)
    if not records:
        raise GauntletError(f"{p}: no records to import (skipped: {dict(imported.skipped) or 'none'})")
    skipped = "; ".join(f"{n} skipped: {why}" for why, n in sorted(imported.skipped.items()))
    description = (
        f"{TITLES[fmt]} imported with `gauntlet import {fmt}` from {p.name}: {len(records)} "
        f"{imported.kind} records" + (f" ({skipped})" if skipped else "") + "."
    )
    with tempfile.TemporaryDirectory(prefix="mtgauntlet-import-") as tmp:
        build = Path(tmp) / "build"
        _write_build(build, fmt, p, imported, records, score_cols, systems)
        statements = expand_provenance(provenance, source)
        stated = any(s.startswith(f"{source}:") for s in statements)  # else the input may be recognised by sha256
        made = make_release(
            [build],
            name,
            version,
            out=out,
            description=description,
            provenance=statements,
            input_files=[] if stated else _recognisable(p, imported.files),
        )
    return made, [said] if said else []
