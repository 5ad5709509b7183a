"""DuckDB access to record Parquet files: one view per record kind, read-only queries.

Any directory works: build outputs (``OUT/data/*.parquet``), release trees in hive layout
(``name=NAME/version=X.Y.Z/*.parquet``) or loose files. The kind of each file is read from its
Parquet metadata (written by mtgauntlet), so views never mix kinds. Paths are absolute, so the
catalog works from any working directory. ``hive_types_autocast=false`` keeps ``version`` a string.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mtgauntlet.errors import GauntletError
from mtgauntlet.schema import kind_of_schema

_HIVE = re.compile(r"(?:^|/)name=([^/]+)/version=([^/]+)/")
_SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")
READ_ONLY_TYPES = ("SELECT", "EXPLAIN")


class QueryRefused(GauntletError):
    pass


def _record_files(root: Path) -> list[Path]:
    files = []
    for p in root.rglob("*.parquet"):
        rel = p.relative_to(root).parts
        if any(part.startswith(".") or part == "work" for part in rel[:-1]) or p.name.startswith("."):
            continue
        files.append(p.resolve())
    return sorted(files)


def _sql_list(paths: list[Path]) -> str:
    return "[" + ", ".join("'" + str(p).replace("'", "''") + "'" for p in paths) + "]"


def open_catalog(root: str | Path = "releases", *, database: str = ":memory:"):
    """Open a new DuckDB connection with views over every record kind found under ``root``.

    Views: ``<kind>`` (all files of that kind; hive layouts add ``name`` and ``version`` columns),
    ``latest_<kind>`` (only the highest version of each release name), and the table ``releases``
    (one row per release manifest found) when releases exist.
    """
    import duckdb

    root = Path(root).resolve()
    if not root.exists():
        raise GauntletError(f"{root}: no such directory (pass --releases DIR)")
    con = duckdb.connect(database)
    by_kind: dict[str, list[Path]] = defaultdict(list)
    for f in _record_files(root):
        try:
            kind = kind_of_schema(pq.read_schema(f))
        except Exception:
            continue
        if kind:
            by_kind[kind].append(f)
    hive_kinds = {k for k, files in by_kind.items() if all(_HIVE.search(f.as_posix()) for f in files)}
    for kind, files in sorted(by_kind.items()):
        hive = kind in hive_kinds
        con.execute(
            f"CREATE VIEW {kind} AS SELECT * FROM read_parquet({_sql_list(files)}, "
            f"hive_partitioning = {str(hive).lower()}, hive_types_autocast = false, union_by_name = true)")
    releases = _release_rows(root)
    if releases:
        import pandas as pd

        df = pd.DataFrame(releases)
        con.register("_releases_df", df)
        con.execute("CREATE TABLE releases AS SELECT * FROM _releases_df")
        con.unregister("_releases_df")
        for kind in sorted(hive_kinds):
            con.execute(
                f"CREATE VIEW latest_{kind} AS SELECT k.* FROM {kind} k JOIN ("
                "  SELECT name, arg_max(version, major * 1000000000000 + minor * 1000000 + patch) AS version"
                f"  FROM releases GROUP BY name) l ON k.name = l.name AND k.version = l.version")
    return con


def _release_rows(root: Path) -> list[dict[str, Any]]:
    rows = []
    for manifest in sorted(root.rglob("manifest.json")):
        rel = str(manifest.relative_to(root).parent).replace("\\", "/") + "/"
        m = _HIVE.search(rel if rel.startswith("name=") else "/" + rel)
        if not m:
            continue
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        sv = _SEMVER.match(m.group(2))
        if not sv:
            continue
        rows.append({
            "name": m.group(1), "version": m.group(2), "major": int(sv.group(1)), "minor": int(sv.group(2)),
            "patch": int(sv.group(3)), "created": data.get("created_at"), "kind": data.get("kind"),
            "signature": "; ".join(data.get("signatures", [])) or data.get("signature"),
            "rows": int(data.get("total_rows", 0)), "path": str(manifest.parent.resolve()),
        })
    return rows


def check_read_only(con, sql: str) -> None:
    """Refuse anything but SELECT/EXPLAIN statements (CREATE, INSERT, DROP, COPY, ATTACH, SET, ...)."""
    try:
        statements = con.extract_statements(sql)
    except Exception as exc:
        raise QueryRefused(f"cannot parse query: {exc}") from None
    if not statements:
        raise QueryRefused("empty query")
    for st in statements:
        kind = str(st.type).split(".")[-1].upper()
        if kind not in READ_ONLY_TYPES:
            raise QueryRefused(f"read-only catalog: {kind} statements are refused (only SELECT/EXPLAIN)")


def run_query(root: str | Path, sql: str):
    """Run a read-only query over the catalog at ``root``; returns a pandas DataFrame."""
    con = open_catalog(root)
    try:
        check_read_only(con, sql)
        return con.execute(sql).df()
    finally:
        con.close()


def list_views(con) -> list[str]:
    return [r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables ORDER BY table_name").fetchall()]
