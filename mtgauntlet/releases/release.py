"""Versioned releases: ``releases/name=NAME/version=X.Y.Z/`` written atomically and never overwritten.

Layout of a release::

    README.md                      dataset card (Hub YAML metadata + statistics + plots)
    manifest.json                  files with sha256 and row counts, build signatures, validation summary,
                                   package and model versions
    data/<config>/<part>.parquet   one config per language pair (smaug: one file per phenomenon)
    plots/*.png                    figures embedded in the card
    croissant.json                 Croissant JSON-LD metadata
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from mtgauntlet import __version__
from mtgauntlet.atomic import atomic_dir
from mtgauntlet.runner.build_runner import MANIFEST as BUILD_MANIFEST
from mtgauntlet.versions import package_versions
from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.version import Version, check_name
from mtgauntlet.schema import SIGNATURE_METADATA_KEY, kind_of_schema, utcnow

RELEASE_MANIFEST = "manifest.json"


def release_dir(root: str | Path, name: str, version: str | Version) -> Path:
    return Path(root) / f"name={name}" / f"version={version}"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _load_build(path: Path) -> tuple[dict[str, Any], list[Path]]:
    """A build directory (build.json + data/) or a directory/file of record Parquet files."""
    if (path / BUILD_MANIFEST).exists():
        manifest = json.loads((path / BUILD_MANIFEST).read_text(encoding="utf-8"))
        if manifest.get("status") != "complete":
            raise GauntletError(f"{path}: the build is not complete (status {manifest.get('status')!r}); "
                                "finish it (run the build command again) before releasing")
        return manifest, sorted((path / "data").glob("*.parquet"))
    files = [path] if path.is_file() else sorted(path.rglob("*.parquet"))
    if not files:
        raise GauntletError(f"{path}: no build.json and no Parquet files")
    sig = (pq.read_schema(files[0]).metadata or {}).get(SIGNATURE_METADATA_KEY, b"").decode()
    return {"signature": sig, "builder": None}, files


def _safe(part: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]", "_", str(part)) or "none"


def make_release(builds: Sequence[str | Path], name: str, version: str, *, out: str | Path = "releases",
                 validation: dict[str, Any] | None = None, license: str = "cc-by-sa-4.0",
                 pretty_name: str | None = None, extra_figures: Sequence[Path] = ()) -> Path:
    """Package completed builds as an immutable release; returns the release directory."""
    check_name(name)
    v = Version.parse(version)
    target = release_dir(out, name, v)
    if target.exists():
        raise GauntletError(f"{target} already exists: releases are immutable; release a changed build as a new version")
    manifests, tables_by_kind = [], defaultdict(list)
    for b in builds:
        manifest, files = _load_build(Path(b))
        manifests.append(manifest)
        for f in files:
            t = pq.read_table(f)
            kind = kind_of_schema(t.schema)
            if kind is None:
                raise GauntletError(f"{f}: not an mtgauntlet record file (no kind in its Parquet metadata)")
            tables_by_kind[kind].append(t)
    if not tables_by_kind:
        raise GauntletError("nothing to release: the builds hold no records")
    created = utcnow().isoformat()
    with atomic_dir(target) as tmp:
        files = []
        stats: dict[str, Any] = {}
        for kind, tables in tables_by_kind.items():
            table = pa.concat_tables(tables, promote_options="default")
            stats[kind] = {"rows": table.num_rows}
            for config, part, sub in _split(kind, table):
                rel = Path("data") / _safe(config) / f"{_safe(part)}.parquet"
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                meta = dict(sub.schema.metadata or {})
                meta[b"mtgauntlet.release"] = f"{name}@{v}".encode()
                pq.write_table(sub.replace_schema_metadata(meta), tmp / rel, compression="zstd")
                files.append({"path": str(rel), "kind": kind, "config": config, "rows": sub.num_rows})
        for f in files:
            p = tmp / f["path"]
            f.update(sha256=sha256_file(p), bytes=p.stat().st_size)
        manifest = {
            "name": name, "version": str(v), "created_at": created, "mtgauntlet_version": __version__,
            "kinds": sorted(tables_by_kind), "kind": sorted(tables_by_kind)[0] if len(tables_by_kind) == 1 else "mixed",
            "files": files, "total_rows": sum(f["rows"] for f in files),
            "signatures": [m.get("signature") for m in manifests if m.get("signature")],
            "builds": [{k: m.get(k) for k in ("builder", "builder_version", "signature", "counts", "models", "config",
                                              "created_at", "finished_at")} for m in manifests],
            "models": {k: v2 for m in manifests for k, v2 in (m.get("models") or {}).items()},
            "versions": package_versions(), "validation": _validation_summary(validation),
            "license": license,
        }
        from mtgauntlet.cards.card import write_card

        write_card(tmp, manifest, tables_by_kind, pretty_name=pretty_name, extra_figures=extra_figures)
        from mtgauntlet.cards.croissant import write_croissant

        write_croissant(tmp, manifest)
        (tmp / RELEASE_MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False, default=str) + "\n")
    return target


def _split(kind: str, table: pa.Table):
    """(config, part, sub-table): config = language pair; smaug parts = phenomena; else one part."""
    cols = table.column_names
    if "src_lang" in cols and "tgt_lang" in cols:
        src, tgt = table.column("src_lang").to_pylist(), table.column("tgt_lang").to_pylist()
        lps = [f"{s}-{t}" if t else f"{s}" for s, t in zip(src, tgt)]
    elif "lp" in cols:
        lps = table.column("lp").to_pylist()
    else:
        lps = ["all"] * table.num_rows
    parts = table.column("phenomenon").to_pylist() if kind == "smaug_pair" else [kind] * table.num_rows
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, key in enumerate(zip(lps, parts)):
        groups[key].append(i)
    for (config, part), idx in sorted(groups.items()):
        yield config, part, table.take(pa.array(idx))


def _validation_summary(report: dict[str, Any] | None) -> dict[str, Any] | None:
    if not report:
        return None
    return {"passed": report.get("passed"), "failed_rules": report.get("failed_rules", []),
            "metrics": report.get("summary", {})}


def verify_release(path: str | Path) -> list[str]:
    """Re-check every file of a release against its manifest; returns the problems (empty = fine)."""
    root = Path(path)
    mpath = root / RELEASE_MANIFEST
    if not mpath.exists():
        return [f"{mpath}: missing"]
    manifest = json.loads(mpath.read_text(encoding="utf-8"))
    problems = []
    for f in manifest.get("files", []):
        p = root / f["path"]
        if not p.exists():
            problems.append(f"{f['path']}: missing")
            continue
        digest = sha256_file(p)
        if digest != f["sha256"]:
            problems.append(f"{f['path']}: sha256 mismatch (manifest {f['sha256'][:12]}…, file {digest[:12]}…)")
            continue
        rows = pq.ParquetFile(p).metadata.num_rows
        if rows != f["rows"]:
            problems.append(f"{f['path']}: {rows} rows, manifest says {f['rows']}")
    listed = {f["path"] for f in manifest.get("files", [])}
    for p in (root / "data").rglob("*.parquet") if (root / "data").exists() else []:
        if str(p.relative_to(root)) not in listed:
            problems.append(f"{p.relative_to(root)}: not in the manifest")
    return problems
