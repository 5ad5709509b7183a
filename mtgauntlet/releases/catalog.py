"""DuckDB access to record Parquet files: one view per record kind, read-only by construction.

What is read (:mod:`mtgauntlet.releases.catalog_sources`): exactly the data files that release
manifests list and seal, with each release's name and version taken from its manifest; in a folder
without releases, the record Parquet files of build outputs. Names and versions are never taken from
paths (no hive partitioning), no symbolic link is followed, and everything skipped is reported
(``catalog_skipped``) instead of breaking a query.

Tables and views (``CATALOG_VERSION`` numbers this schema; the README documents every column):

* ``<kind>``: every record of the kind; release records add ``name`` and ``version``;
* ``latest_<kind>``: the records of the latest version of each release name (semver precedence);
* ``releases``: one row per release read; ``catalog_files``: one row per data file read;
* ``catalog_info``: ``catalog_version`` and where the catalog was opened; ``catalog_skipped``: what was not read;
* with a results folder of the metric workbench (``results``): ``metric_score`` (its stored scores) and
  ``leaderboard`` (its statistics: ``metric_stat`` records), exactly the files its manifest seals (a shard that
  differs from the manifest refuses the whole folder).

Read-only has two independent layers:

1. only statements that DuckDB's own parser types as SELECT run (EXPLAIN only without ANALYZE, checked
   by parsing the explained statement again);
2. once the views exist the connection is locked: extension autoinstall/autoload off, external access
   off with ``allowed_directories`` = the catalog root only, no temp directory, ``lock_configuration``.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mtgauntlet import __version__
from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.catalog_sources import Release, Sources, find_sources

log = logging.getLogger(__name__)
_EXPLAIN = re.compile(r"\s*explain\b", re.IGNORECASE)
CATALOG_VERSION = 2  # 2: manifests' files only; typed releases table; catalog_files/_info/_skipped


class QueryRefused(GauntletError):
    pass


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _read(files: list[Path]) -> str:
    paths = "[" + ", ".join(quote_literal(str(f)) for f in files) + "]"
    return f"read_parquet({paths}, hive_partitioning = false, union_by_name = true)"


def _release_union(kind: str, releases: list[Release]) -> str | None:
    """SELECT of a kind's records in these releases, each with the name and version of its manifest."""
    parts = [
        f"SELECT *, {quote_literal(r.name)} AS name, {quote_literal(str(r.version))} AS version "
        f"FROM {_read([f['file'] for f in r.files if f['kind'] == kind])}"
        for r in releases
        if any(f["kind"] == kind for f in r.files)
    ]
    return " UNION ALL BY NAME ".join(parts) or None


def _created(manifest: dict[str, Any]) -> datetime | None:
    try:
        t = datetime.fromisoformat(str(manifest.get("created_at")))
    except ValueError:
        return None
    return t.astimezone(UTC).replace(tzinfo=None) if t.tzinfo else t


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _latest(releases: list[Release]) -> set[int]:
    best: dict[str, Release] = {}
    for r in releases:
        if r.name not in best or r.version > best[r.name].version:
            best[r.name] = r
    return {id(r) for r in best.values()}


def _create_tables(con, sources: Sources) -> None:
    con.execute(
        "CREATE TABLE catalog_info (catalog_version INTEGER, mtgauntlet_version VARCHAR, root VARCHAR, "
        "reads VARCHAR, skipped INTEGER)"
    )
    reads = "releases" if sources.releases or not sources.builds else "builds"
    con.execute(
        "INSERT INTO catalog_info VALUES (?, ?, ?, ?, ?)",
        [CATALOG_VERSION, __version__, str(sources.root), reads, len(sources.skipped)],
    )
    con.execute("CREATE TABLE catalog_skipped (path VARCHAR, reason VARCHAR)")
    if sources.skipped:
        con.executemany("INSERT INTO catalog_skipped VALUES (?, ?)", sources.skipped)
    con.execute(
        "CREATE TABLE releases (name VARCHAR, version VARCHAR, major BIGINT, minor BIGINT, patch BIGINT, "
        "prerelease VARCHAR, version_order INTEGER, latest BOOLEAN, created TIMESTAMP, kind VARCHAR, "
        "kinds VARCHAR[], signatures VARCHAR[], rows BIGINT, path VARCHAR)"
    )
    latest = _latest(sources.releases)
    rows = []
    for r in sorted(sources.releases, key=lambda r: (r.name, r.version.precedence())):
        m, v = r.manifest, r.version
        rank = sum(1 for o in sources.releases if o.name == r.name and o.version <= v)
        rows.append(
            (
                r.name,
                str(v),
                v.major,
                v.minor,
                v.patch,
                v.prerelease or None,
                rank,
                id(r) in latest,
                _created(m),
                str(m.get("kind") or ""),
                _strings(m.get("kinds")),
                _strings(m.get("signatures")),
                sum(int(f.get("rows") or 0) for f in r.files),
                str(r.path),
            )
        )
    if rows:
        con.executemany("INSERT INTO releases VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    con.execute(
        "CREATE TABLE catalog_files (name VARCHAR, version VARCHAR, kind VARCHAR, lp VARCHAR, part VARCHAR, "
        "rows BIGINT, bytes BIGINT, sha256 VARCHAR, path VARCHAR)"
    )
    files: list[tuple[Any, ...]] = [  # one catalog_files row each: a build's files have no release
        (
            r.name,
            str(r.version),
            f["kind"],
            f.get("lp"),
            f.get("part"),
            f.get("rows"),
            f.get("bytes"),
            f["sha256"],
            str(f["file"]),
        )
        for r in sources.releases
        for f in r.files
    ]
    files += [
        (None, None, kind, None, None, None, p.stat().st_size, None, str(p))
        for kind, ps in sorted(sources.builds.items())
        for p in ps
    ]
    if files:
        con.executemany("INSERT INTO catalog_files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", files)


def _create_views(con, sources: Sources) -> None:
    for kind, files in sorted(sources.builds.items()):
        con.execute(f"CREATE VIEW {quote_ident(kind)} AS SELECT * FROM {_read(files)}")
    latest = [r for r in sources.releases if id(r) in _latest(sources.releases)]
    for kind in sorted({f["kind"] for r in sources.releases for f in r.files}):
        con.execute(f"CREATE VIEW {quote_ident(kind)} AS {_release_union(kind, sources.releases)}")
        newest = _release_union(kind, latest) or f"SELECT * FROM {quote_ident(kind)} WHERE false"  # none holds it
        con.execute(f"CREATE VIEW {quote_ident('latest_' + kind)} AS {newest}")


def _lock(con, root: Path, results: Path | None = None) -> None:
    con.execute("SET allowed_directories = ?", [[str(root) + "/"] + ([str(results) + "/"] if results else [])])
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def _create_results_views(con, results: Path) -> None:
    """``metric_score`` and ``leaderboard`` over the sealed files of a workbench results folder."""
    from mtgauntlet.releases.results_files import sealed_files, view_columns

    for view, kind in (("metric_score", "metric_score"), ("leaderboard", "metric_stat")):
        files = sealed_files(results, kind)
        columns = view_columns(files, kind)
        source = f"SELECT {columns} FROM {_read(files)}" if files else f"SELECT * FROM {_empty(kind)} WHERE false"
        con.execute(f"CREATE OR REPLACE VIEW {quote_ident(view)} AS {source}")


def _empty(kind: str) -> str:
    from mtgauntlet.schema import get_kind

    types = {"string": "VARCHAR", "double": "DOUBLE", "int64": "BIGINT"}
    cols = ", ".join(
        f"NULL::{types.get(str(f.type), 'VARCHAR')} AS {quote_ident(f.name)}" for f in get_kind(kind).schema
    )
    return f"(SELECT {cols})"


def open_catalog(root: str | Path = "releases", results: str | Path | None = None):
    """A new locked in-memory DuckDB connection with the catalog's tables and views over ``root`` (and the
    ``metric_score`` and ``leaderboard`` views of a workbench ``results`` folder)."""
    import duckdb

    root = Path(root).resolve()
    if not root.is_dir():
        raise GauntletError(f"{root}: no such directory (pass --releases DIR)")
    res = Path(results).resolve() if results is not None else None
    if res is not None and not res.is_dir():
        raise GauntletError(f"{res}: no such directory (pass --results DIR)")
    sources = find_sources(root)
    con = duckdb.connect(
        ":memory:",
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False, "temp_directory": ""},
    )
    _create_tables(con, sources)
    _create_views(con, sources)
    if res is not None:
        _create_results_views(con, res)
    _lock(con, root, res)
    return con


def skipped(con) -> list[tuple[str, str]]:
    """(path, reason) of everything the catalog did not read."""
    return con.execute("SELECT path, reason FROM catalog_skipped").fetchall()


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
        elif kind != "SELECT":  # named by its own first word: DuckDB types INSTALL as a LOAD statement
            word = re.match(r"\s*([A-Za-z]+)", st.query)
            raise QueryRefused(
                f"read-only catalog: {word.group(1).upper() if word else kind} statements are refused "
                "(only SELECT and EXPLAIN)"
            )


def _log_skipped(items: list[tuple[str, str]]) -> None:
    for path, why in items:
        log.warning("catalog: skipped %s: %s", path, why)


def _execute(root: str | Path, sql: str, fetch, report=_log_skipped, results: str | Path | None = None):
    import duckdb

    con = open_catalog(root, results)
    try:
        report(skipped(con))
        check_read_only(con, sql)
        try:
            return fetch(con, sql)
        except duckdb.Error as exc:
            raise GauntletError(f"query failed: {str(exc).splitlines()[0]}") from None
    finally:
        con.close()


def run_query(root: str | Path, sql: str, results: str | Path | None = None):
    """Run a read-only query over the catalog at ``root``; returns a pandas DataFrame."""
    return _execute(root, sql, lambda con, q: con.execute(q).df(), results=results)


def query_arrow(root: str | Path, sql: str, report=_log_skipped, results: str | Path | None = None):
    """Run a read-only query over the catalog at ``root`` (and a workbench ``results`` folder); returns a pyarrow
    Table (NULL and NaN distinct). ``report`` gets the (path, reason) of everything the catalog skipped."""
    return _execute(root, sql, lambda con, q: con.sql(q).to_arrow_table(), report, results)
