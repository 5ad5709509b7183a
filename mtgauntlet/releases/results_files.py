"""The sealed files of a workbench results folder (``gauntlet evaluate metric --out``): what the catalog reads of
it (its ``metric_score`` and ``leaderboard`` views), each file checked against the folder's manifest."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.catalog_sources import check_listed_file
from mtgauntlet.releases.manifest import read_manifest

RESULTS_KIND = "metric_results"  # the manifest kind of a results folder


def sealed_files(root: Path, kind: str | None = None) -> list[Path]:
    """The data files the manifest seals, each checked (size, sha256, kind, rows); any difference is an error."""
    manifest = read_manifest(root)
    if manifest.get("kind") != RESULTS_KIND:
        raise GauntletError(
            f"{root}: not a results folder of `gauntlet evaluate metric --out` (its manifest's kind "
            f"is {manifest.get('kind')!r})"
        )
    out = []
    for entry in (dict(f) for f in manifest["files"] if f.get("kind")):
        problem = check_listed_file(root, entry)
        if problem:
            raise GauntletError(f"{root}: results refused: {problem}")
        if kind is None or entry["kind"] == kind:
            out.append(entry["file"])
    return out


RENAMED = {"metric_score": {"set": "set_name", "version": "set_version"}}  # column -> its name before 0.x naming


def conform(table: pa.Table, kind: str) -> pa.Table:
    """A results file in the kind's current columns: a file written before a column was renamed (metric_score's
    ``set_name`` / ``set_version``, now ``set`` / ``version``) or added (the leaderboard's ``system_score``,
    ``epsilon``, ``cluster``) reads with the new names, the missing columns null."""
    from mtgauntlet.schema import get_kind

    schema = get_kind(kind).schema
    old = RENAMED.get(kind, {})
    columns = []
    for f in schema:
        if f.name in table.column_names:
            columns.append(table.column(f.name))
        elif old.get(f.name) in table.column_names:
            columns.append(table.column(old[f.name]))
        else:
            columns.append(pa.nulls(table.num_rows, f.type))
    return pa.Table.from_arrays([c.cast(f.type) for c, f in zip(columns, schema)], schema=schema)


def view_columns(files: list[Path], kind: str) -> str:
    """The SELECT list of a view over ``files`` (read with union_by_name) in the kind's current columns: renamed
    columns under their new names, columns no file has as typed nulls."""
    import pyarrow.parquet as pq

    from mtgauntlet.schema import get_kind

    def quote_ident(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    present = {name for f in files for name in pq.read_schema(f).names}
    types = {"string": "VARCHAR", "double": "DOUBLE", "int64": "BIGINT"}
    old = RENAMED.get(kind, {})
    out = []
    for f in get_kind(kind).schema:
        sources = [quote_ident(n) for n in (f.name, old.get(f.name)) if n and n in present]
        expr = (
            sources[0]
            if len(sources) == 1
            else f"COALESCE({', '.join(sources)})"
            if sources
            else f"NULL::{types.get(str(f.type), 'VARCHAR')}"
        )
        out.append(f"{expr} AS {quote_ident(f.name)}")
    return ", ".join(out)
