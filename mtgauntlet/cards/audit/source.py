"""What an audit reads: the records of a build, a release or loose Parquet files, and what their metadata states.

Records are read only through :mod:`mtgauntlet.records` (grouped by the ``mtgauntlet.kind`` Parquet metadata,
whatever the layout). ``build.json`` / ``manifest.json`` are read defensively: a missing key is "not stated",
never an error, so older and newer layouts both audit. Licence and sources come from the release card's YAML
front matter when there is one, else from the manifest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from mtgauntlet.errors import GauntletError
from mtgauntlet.fileio import read_json_object
from mtgauntlet.records import load_records_by_kind
from mtgauntlet.release_layout import BUILD_KEYS

BUILD_MANIFEST = "build.json"  # written by mtgauntlet.runner.build_runner
RELEASE_MANIFEST = "manifest.json"  # written by mtgauntlet.releases
RELEASE_CARD = "README.md"
PULL_LOG_KIND = "bandit_pull"


@dataclass
class AuditSource:
    path: Path
    what: str  # "release", "<builder> build" or "records"
    name: str
    version: str | None = None
    created_at: str | None = None
    signatures: list[str] = field(default_factory=list)
    builds: list[dict[str, Any]] = field(default_factory=list)
    models: dict[str, str] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    licence: str | None = None
    licence_origin: str | None = None
    sources: list[str] | None = None
    sources_origin: str | None = None
    release_validation: dict[str, Any] | None = None
    tables: dict[str, pa.Table] = field(default_factory=dict)
    pulls: pa.Table | None = None  # bandit pull log (the search's state), when the path has one
    corpus: pa.Table | None = None  # a subset build's scored corpus (its work shards), when still there
    location: str | None = None  # where the page says the records are (default: path)

    def where(self) -> str:
        return self.location or str(self.path)

    def builders(self) -> list[str]:
        return list(dict.fromkeys(str(b["builder"]) for b in self.builds if b.get("builder")))

    def build_config(self, builder: str) -> dict[str, Any]:
        for b in self.builds:
            if b.get("builder") == builder and isinstance(b.get("config"), dict):
                return b["config"]
        return {}


def _read_json(path: Path) -> dict[str, Any]:
    return read_json_object(path, path.name)


def card_front_matter(card: Path) -> dict[str, Any]:
    """The YAML metadata block of a dataset card (``---`` … ``---`` at the top), or {} when there is none."""
    import yaml

    try:
        text = card.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        return {}
    try:
        data = yaml.safe_load(text[3:end])
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def _str_dict(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items() if v is not None} if isinstance(value, dict) else {}


def _str_list(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and value:
        return [str(v) for v in value]
    return None


def _build_entry(manifest: dict[str, Any]) -> dict[str, Any]:
    """What the page shows of a build: what a release keeps of it (its usage included), and its state."""
    keys = (*BUILD_KEYS, "status", "seed", "top_topics")
    return {k: manifest.get(k) for k in keys if manifest.get(k) is not None}


def _sources_of_builds(builds: list[dict[str, Any]]) -> list[str] | None:
    found = [s for b in builds for s in (_str_list((b.get("config") or {}).get("source_datasets")) or [])]
    return sorted(set(found)) or None


def models_of_builds(builds: list[dict[str, Any]]) -> dict[str, str]:
    """role -> model spec over a release's builds (a release manifest lists them per build); a role whose spec
    differs between builds is named per builder."""
    specs: dict[str, dict[str, str]] = {}
    for b in builds:
        for role, spec in _str_dict(b.get("models")).items():
            specs.setdefault(role, {})[str(b.get("builder") or "records")] = spec
    out = {}
    for role, by_builder in sorted(specs.items()):
        if len(set(by_builder.values())) == 1:
            out[role] = next(iter(by_builder.values()))
        else:
            out.update({f"{role} ({builder})": spec for builder, spec in sorted(by_builder.items())})
    return out


def _optional_kind(path: Path, kind: str) -> pa.Table | None:
    if not path.is_dir():
        return None
    try:
        return load_records_by_kind(path).get(kind)
    except GauntletError:
        return None


def open_source(path: str | Path) -> AuditSource:
    """Read a build directory, a release directory, or a file/directory of record Parquet files."""
    p = Path(path)
    if not p.exists():
        raise GauntletError(f"{p}: no such file or directory")
    tables = load_records_by_kind(p)
    if p.is_dir() and (p / RELEASE_MANIFEST).is_file():
        src = _release(p, _read_json(p / RELEASE_MANIFEST))
    elif p.is_dir() and (p / BUILD_MANIFEST).is_file():
        src = _build(p, _read_json(p / BUILD_MANIFEST))
    else:
        src = AuditSource(path=p, what="records", name=p.stem if p.is_file() else p.name)
    src.tables = tables
    src.pulls = tables.get(PULL_LOG_KIND)
    if src.pulls is None and p.is_dir():
        src.pulls = _optional_kind(p / "pulls", PULL_LOG_KIND)
    if (p / BUILD_MANIFEST).is_file() and "subset" in src.builders():
        src.corpus = _optional_kind(p / "work", "selected_text")
    return src


def _release(p: Path, m: dict[str, Any]) -> AuditSource:
    builds = [b for b in (m.get("builds") or []) if isinstance(b, dict)]
    src = AuditSource(
        path=p,
        what="release",
        name=str(m.get("name") or p.name),
        version=str(m["version"]) if m.get("version") is not None else None,
        created_at=m.get("created_at"),
        signatures=[str(s) for s in m.get("signatures") or []],
        builds=builds,
        models=_str_dict(m.get("models")) or models_of_builds(builds),
        versions=_str_dict(m.get("versions")),
        release_validation=m.get("validation") if isinstance(m.get("validation"), dict) else None,
    )
    card = card_front_matter(p / RELEASE_CARD)
    for attr, key, origin in (("licence", "license", "card"), ("sources", "source_datasets", "card")):
        value = _str_list(card.get(key))
        if value:
            setattr(src, attr, ", ".join(value) if attr == "licence" else value)
            setattr(src, f"{attr}_origin", origin)
    if src.licence is None and _str_list(m.get("license")):
        src.licence, src.licence_origin = ", ".join(_str_list(m.get("license")) or []), "manifest"
    if src.sources is None:
        src.sources = _str_list(m.get("source_datasets")) or _sources_of_builds(builds)
        src.sources_origin = "manifest" if src.sources else None
    if not src.signatures:
        src.signatures = [str(b["signature"]) for b in builds if b.get("signature")]
    return src


def _build(p: Path, m: dict[str, Any]) -> AuditSource:
    entry = _build_entry(m)
    builder = str(m.get("builder") or "records")
    src = AuditSource(
        path=p,
        what=f"{builder} build",
        name=p.name,
        created_at=m.get("created_at"),
        signatures=[str(m["signature"])] if m.get("signature") else [],
        builds=[entry],
        models=_str_dict(m.get("models")),
        versions=_str_dict(m.get("versions")),
    )
    licence = _str_list(m.get("license"))
    if licence:
        src.licence, src.licence_origin = ", ".join(licence), "build.json"
    src.sources = _str_list(m.get("source_datasets")) or _sources_of_builds([entry])
    src.sources_origin = "build.json" if src.sources else None
    return src
