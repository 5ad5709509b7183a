"""Compare a release's records with a rebuild of them, kind by kind (for `gauntlet reproduce`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

VOLATILE = ("created_at",)  # columns that differ between two runs by design
SHOW = 10


@dataclass
class KindComparison:
    kind: str
    released: int
    rebuilt: int
    only_released: list[str] = field(default_factory=list)
    only_rebuilt: list[str] = field(default_factory=list)
    changed: dict[str, int] = field(default_factory=dict)  # column -> records (same id) whose value differs
    examples: dict[str, list[str]] = field(default_factory=dict)

    @property
    def identical(self) -> bool:
        return not (self.only_released or self.only_rebuilt or self.changed)

    def describe(self) -> str:
        if self.identical:
            return f"{self.kind}: identical ({self.released} records: same ids, same texts and values)"
        parts = [f"{self.kind}: DIFFERENT ({self.released} released, {self.rebuilt} rebuilt)"]
        if self.only_released:
            parts.append(
                f"  {len(self.only_released)} id(s) only in the release: "
                + ", ".join(self.only_released[:SHOW])
                + (" ..." if len(self.only_released) > SHOW else "")
            )
        if self.only_rebuilt:
            parts.append(
                f"  {len(self.only_rebuilt)} id(s) only in the rebuild: "
                + ", ".join(self.only_rebuilt[:SHOW])
                + (" ..." if len(self.only_rebuilt) > SHOW else "")
            )
        for col, n in sorted(self.changed.items()):
            parts.append(
                f"  column {col}: {n} record(s) with the same id differ (e.g. {', '.join(self.examples[col])})"
            )
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "identical": self.identical,
            "released": self.released,
            "rebuilt": self.rebuilt,
            "only_released": self.only_released,
            "only_rebuilt": self.only_rebuilt,
            "changed": self.changed,
        }


def _by_id(table: pa.Table) -> dict[str, dict[str, Any]]:
    cols = [c for c in table.column_names if c not in VOLATILE]
    return {r["id"]: r for r in table.select(cols).to_pylist()}


def compare_kind(kind: str, released: pa.Table, rebuilt: pa.Table) -> KindComparison:
    a, b = _by_id(released), _by_id(rebuilt)
    out = KindComparison(
        kind,
        released.num_rows,
        rebuilt.num_rows,
        only_released=sorted(set(a) - set(b)),
        only_rebuilt=sorted(set(b) - set(a)),
    )
    for rid in sorted(set(a) & set(b)):
        for col in sorted(set(a[rid]) | set(b[rid])):
            if a[rid].get(col) != b[rid].get(col):
                out.changed[col] = out.changed.get(col, 0) + 1
                out.examples.setdefault(col, [])
                if len(out.examples[col]) < 3:
                    out.examples[col].append(rid)
    return out


def compare(released: dict[str, pa.Table], rebuilt: dict[str, pa.Table]) -> list[KindComparison]:
    kinds = sorted(set(released) | set(rebuilt))
    empty = pa.table({"id": pa.array([], pa.string())})
    return [compare_kind(k, released.get(k, empty), rebuilt.get(k, empty)) for k in kinds]


def environment_changes(released_builds: list[dict], rebuilt_builds: list[dict]) -> list[str]:
    """What changed between the released builds' manifests and the rebuilt ones: models, versions, builders."""
    notes = []
    for old, new in zip(released_builds, rebuilt_builds):
        name = new.get("builder") or old.get("builder") or "build"
        if old.get("builder_version") != new.get("builder_version"):
            notes.append(f"{name}: builder version {old.get('builder_version')} -> {new.get('builder_version')}")
        for role in sorted(set(old.get("models") or {}) | set(new.get("models") or {})):
            o, n = (old.get("models") or {}).get(role), (new.get("models") or {}).get(role)
            if o != n:
                notes.append(f"{name}: model {role} {o} -> {n}")
        ov, nv = old.get("versions") or {}, new.get("versions") or {}
        for pkg in sorted(set(ov) | set(nv)):
            if ov.get(pkg) != nv.get(pkg) and ov.get(pkg) is not None and nv.get(pkg) is not None:
                notes.append(f"{name}: {pkg} {ov.get(pkg)} -> {nv.get(pkg)}")
        if old.get("signature") and new.get("signature") and old["signature"] != new["signature"]:
            notes.append(f"{name}: signature {old['signature']} -> {new['signature']}")
    return notes
