"""SQL over releases from Python: `query` (``gauntlet query``), read-only, in DuckDB.

The result comes from DuckDB as Arrow and stays Arrow inside the DataFrame (``pandas.ArrowDtype`` columns), so
NULL and NaN stay apart, integers with NULLs stay integers and nested values (lists, structs) are exact.
"""

from __future__ import annotations

from mtgauntlet.api.catalog_options import QueryOptions
from mtgauntlet.api.session import public, warn
from mtgauntlet.options import takes

__all__ = ["query"]

MAX_WARNINGS = 10  # skipped paths warned about one by one; the rest in one line (all in catalog_skipped)


def _warn_skipped(items: list[tuple[str, str]]) -> None:
    for path, why in items[:MAX_WARNINGS]:
        warn(f"catalog: skipped {path}: {why}")
    if len(items) > MAX_WARNINGS:
        warn(f"catalog: skipped {len(items) - MAX_WARNINGS} more (SELECT * FROM catalog_skipped)")


@public
@takes(QueryOptions)
def query_table(o: QueryOptions):
    """`query`'s result as a ``pyarrow.Table`` (what ``gauntlet query`` prints from)."""
    from mtgauntlet.releases.catalog import query_arrow

    return query_arrow(o.releases, o.sql, report=_warn_skipped, results=o.results)


@public
@takes(QueryOptions)
def query(o: QueryOptions):
    """Run a read-only SQL query over the records of every release under ``releases`` (exactly the files their
    manifests list; a folder without releases: every build output's records).

    Views: one per record kind (e.g. ``smaug_pair``), ``latest_<kind>`` (the newest version of each release),
    ``releases``, ``catalog_files``, ``catalog_info``, ``catalog_skipped``; with ``results`` (a folder of
    ``gauntlet evaluate metric --out``) also ``metric_score`` and ``leaderboard``. What the catalog skips (a corrupt
    manifest, a loose file, a symbolic link) is warned about as `mtgauntlet.GauntletWarning`.

    Returns:
        pandas.DataFrame: The result, with ``pandas.ArrowDtype`` columns (NULL is ``pd.NA``, NaN stays NaN,
            lists and structs are exact).

    Raises:
        GauntletError: A statement that is not read-only, a query DuckDB cannot parse or run.

    Examples:
        >>> mg.query("SELECT phenomenon, count(*) AS n FROM latest_smaug_pair GROUP BY ALL", releases="releases")
    """
    import pandas as pd

    table = query_table(o.sql, releases=o.releases, results=o.results, progress=None)
    return table.to_pandas(types_mapper=pd.ArrowDtype)
