"""DuckDB access to record Parquet files: one view per record kind, read-only by construction.

Any directory works: build outputs (``OUT/data/*.parquet``), release trees in hive layout
(``name=NAME/version=X.Y.Z/data/<kind>/<lp>/*.parquet``) or loose files. The kind of each file is read
from its Parquet metadata and must be a registered record kind; release names and versions from the
path must be valid; anything else is skipped with a warning, so one odd file never breaks a query.

Read-only has two independent layers:

1. only statements that DuckDB's own parser types as SELECT run (EXPLAIN only without ANALYZE, checked
   by parsing the explained statement again);
2. once the views exist the connection is locked: extension autoinstall/autoload off, external access
   off with ``allowed_directories`` = the catalog root only, no temp directory, ``lock_configuration``.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.manifest import RELEASE_MANIFEST, read_manifest
from mtgauntlet.releases.version import NAME_PATTERN, Version
from mtgauntlet.schema import KINDS, kind_of_schema

log = logging.getLogger(__name__)
_HIVE = re.compile(r"(?:^|/)name=([^/]*)/version=([^/]*)/")
_KIND = re.compile(r"[a-z][a-z0-9_]{0,62}")
_EXPLAIN = re.compile(r"\s*explain\b", re.IGNORECASE)


class QueryRefused(GauntletError):
    pass


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _hive_ok(path: str) -> bool | None:
    """None: not in a release tree; True/False: the release name and version in the path are valid."""
    m = _HIVE.search(path)
    if not m:
        return None
    try:
        Version.parse(m.group(2))
    except GauntletError:
        return False
    return bool(NAME_PATTERN.fullmatch(m.group(1)))


def _record_files(root: Path) -> dict[str, list[Path]]:
    by_kind: dict[str, list[Path]] = defaultdict(list)
    for p in sorted(root.rglob("*.parquet")):
        rel = p.relative_to(root).as_posix()
        if any(part.startswith(".") or part == "work" for part in p.relative_to(root).parts):
            continue
        if _hive_ok("/" + rel) is False:
            log.warning("catalog: skipped %s: invalid release name or version in its path", p)
            continue
        try:
            kind = kind_of_schema(pq.read_schema(p))
        except Exception:  # pyarrow raises several types for unreadable files
            log.warning("catalog: skipped %s: not a readable Parquet file", p)
            continue
        if kind is None:
            continue
        if not _KIND.fullmatch(kind) or kind not in KINDS:
            log.warning("catalog: skipped %s: unknown record kind %r in its metadata", p, kind[:80])
            continue
        by_kind[kind].append(p.resolve())
    return by_kind


def _release_rows(root: Path) -> list[tuple[Any, ...]]:
    rows = []
    for manifest in sorted(root.rglob(RELEASE_MANIFEST)):
        rel = "/" + manifest.relative_to(root).as_posix()
        m = _HIVE.search(rel)
        if not m or any(part.startswith(".") for part in manifest.relative_to(root).parts):
            continue
        if not _hive_ok(rel):
            log.warning("catalog: skipped %s: invalid release name or version in its path", manifest.parent)
            continue
        data = read_manifest(manifest.parent)  # corrupt: a one-line error, not a silently missing release
        v = Version.parse(m.group(2))
        rows.append((m.group(1), str(v), v.major, v.minor, v.patch, str(data.get("created_at") or ""),
                     str(data.get("kind") or ""), ",".join(data.get("kinds") or []),
                     "; ".join(data.get("signatures") or []), int(data.get("total_rows") or 0),
                     str(manifest.parent.resolve())))
    return rows


def _lock(con, root: Path) -> None:
    con.execute("SET allowed_directories = ?", [[str(root) + "/"]])
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def open_catalog(root: str | Path = "releases"):
    """A new locked in-memory DuckDB connection with views over every record kind under ``root``.

    Views: ``<kind>`` (all files of that kind; release trees add ``name`` and ``version``),
    ``latest_<kind>`` (only the highest version of each release name) and the table ``releases``
    (one row per release manifest) when releases exist.
    """
    import duckdb

    root = Path(root).resolve()
    if not root.is_dir():
        raise GauntletError(f"{root}: no such directory (pass --releases DIR)")
    by_kind = _record_files(root)
    releases = _release_rows(root)
    con = duckdb.connect(":memory:", config={"autoinstall_known_extensions": False,
                                             "autoload_known_extensions": False, "temp_directory": ""})
    hive_kinds = {k for k, files in by_kind.items() if all(_HIVE.search(f.as_posix()) for f in files)}
    for kind, files in sorted(by_kind.items()):
        paths = "[" + ", ".join(quote_literal(str(f)) for f in files) + "]"
        con.execute(f"CREATE VIEW {quote_ident(kind)} AS SELECT * FROM read_parquet({paths}, "
                    f"hive_partitioning = {str(kind in hive_kinds).lower()}, hive_types_autocast = false, "
                    "union_by_name = true)")
    if releases:
        con.execute("CREATE TABLE releases (name VARCHAR, version VARCHAR, major BIGINT, minor BIGINT, patch BIGINT, "
                    "created VARCHAR, kind VARCHAR, kinds VARCHAR, signature VARCHAR, rows BIGINT, path VARCHAR)")
        con.executemany("INSERT INTO releases VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", releases)
        for kind in sorted(hive_kinds):
            con.execute(
                f"CREATE VIEW {quote_ident('latest_' + kind)} AS SELECT k.* FROM {quote_ident(kind)} k JOIN ("
                "  SELECT name, arg_max(version, major * 1000000000000 + minor * 1000000 + patch) AS version"
                "  FROM releases GROUP BY name) l ON k.name = l.name AND k.version = l.version")
    _lock(con, root)
    return con


def check_read_only(con, sql: str) -> None:
    """Refuse anything DuckDB's parser does not type as SELECT (EXPLAIN only without ANALYZE)."""
    import duckdb

    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryRefused(f"cannot parse query: {str(exc).splitlines()[0]}") from None
    if not statements:
        raise QueryRefused("empty query")
    for st in statements:
        kind = str(st.type).split(".")[-1].upper()
        if kind == "EXPLAIN":
            inner = _EXPLAIN.sub("", st.query, count=1)
            try:
                explained = duckdb.extract_statements(inner)
            except duckdb.Error:
                explained = []
            if len(explained) != 1 or str(explained[0].type).split(".")[-1].upper() != "SELECT":
                raise QueryRefused("read-only catalog: only EXPLAIN of a SELECT, without ANALYZE, is allowed")
        elif kind != "SELECT":
            raise QueryRefused(f"read-only catalog: {kind} statements are refused (only SELECT and EXPLAIN)")


def run_query(root: str | Path, sql: str):
    """Run a read-only query over the catalog at ``root``; returns a pandas DataFrame."""
    import duckdb

    con = open_catalog(root)
    try:
        check_read_only(con, sql)
        try:
            return con.execute(sql).df()
        except duckdb.Error as exc:
            raise GauntletError(f"query failed: {str(exc).splitlines()[0]}") from None
    finally:
        con.close()


def list_views(con) -> list[str]:
    return [r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables ORDER BY table_name").fetchall()]
