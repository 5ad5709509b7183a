"""Where records go inside a release, and the configs its card declares.

``data/<kind>/<lp>/<part>.parquet``: one folder per record kind (kinds have different columns, so no
config ever spans two kinds), one folder per language pair inside it; SMAUG writes one file per
phenomenon, the other kinds ``records.parquet``. Kinds without languages (``bandit_pull``) use ``all``.

Each file is written for the Hub's dataset viewer, which reads at most 300 MB of a file at once: row
groups of at most ``ROW_GROUP_BYTES`` in memory (Arrow bytes; a single larger record is a row group of its
own) and a page index, so the viewer reads single pages instead of whole row groups.

Configs (each with one ``test`` split): ``<kind>`` (every file of the kind), ``<kind>-<lp>`` per
language pair and ``smaug_pair-<phenomenon>``. Each config's ``description`` names the release and
the sha256 of its files: ``datasets`` keys its cache on the configs, so two releases loaded by
directory in one process never share a cache entry unless they hold the same bytes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

# what a release (and an audit page) keeps of each build's manifest; usage: API requests, tokens, cost per spec
BUILD_KEYS = (
    "builder",
    "builder_version",
    "kind",
    "signature",
    "counts",
    "models",
    "config",
    "created_at",
    "finished_at",
    "versions",
    "input_sha256",
    "usage",
)
KIND_ORDER = ("smaug_pair", "breaker_text", "topic_text", "selected_text", "judgment", "bandit_pull")
NO_LP = "all"
SPLIT = "test"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")  # also what the Hub accepts in config names
ROW_GROUP_BYTES = 64 * 2**20  # the viewer refuses row groups over ~286 MiB and scans over 300 MB
_STEP = 1024  # rows measured at a time when cutting row groups


def path_part(value: Any) -> str:
    """A value as a safe file/config name part (letters, digits and ._- only)."""
    text = _UNSAFE.sub("_", str(value)) if value is not None else ""
    return text.strip(".") or "none"


def kind_sort_key(kind: str) -> tuple[int, str]:
    return (KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER), kind)


def _language_pairs(table: pa.Table) -> pa.Array:
    cols = table.column_names
    if "src_lang" in cols and "tgt_lang" in cols:
        src = pc.fill_null(table.column("src_lang"), "none")
        pair = pc.binary_join_element_wise(src, table.column("tgt_lang"), "-")
        return pc.coalesce(pair, src).combine_chunks()
    if "lp" in cols:
        return pc.fill_null(table.column("lp"), NO_LP).combine_chunks()
    return pa.array([NO_LP] * table.num_rows, type=pa.string())


def split_records(kind: str, table: pa.Table) -> Iterator[tuple[str, str, pa.Table]]:
    """(language pair, part, records) in a stable order; records keep their order within each part."""
    lps = _language_pairs(table)
    if kind == "smaug_pair":
        parts = pc.fill_null(table.column("phenomenon"), "none").combine_chunks()
    else:
        parts = pa.array(["records"] * table.num_rows, type=pa.string())
    keys = pa.table({"lp": lps, "part": parts}).group_by(["lp", "part"], use_threads=False).aggregate([])
    for lp, part in sorted(zip(keys.column("lp").to_pylist(), keys.column("part").to_pylist())):
        mask = pc.and_(pc.equal(lps, lp), pc.equal(parts, part))
        yield lp, part, table.filter(mask)


def row_group_slices(table: pa.Table, limit: int) -> list[tuple[int, int]]:
    """(offset, length) of consecutive row groups of at most ``limit`` in-memory bytes each."""
    groups: list[tuple[int, int]] = []
    start = size = i = 0
    step = _STEP
    while i < table.num_rows:
        n = min(step, table.num_rows - i)
        nbytes = table.slice(i, n).nbytes
        if nbytes > limit and n > 1:
            step = max(1, n // 2)  # measure smaller pieces until they fit
            continue
        if size + nbytes > limit and i > start:
            groups.append((start, i - start))
            start, size = i, 0
        size += nbytes
        i += n
    if table.num_rows > start:
        groups.append((start, table.num_rows - start))
    return groups


def write_records(table: pa.Table, path, limit: int | None = None) -> None:
    """Write a release data file: zstd, row groups bounded by bytes, with a page index."""
    with pq.ParquetWriter(path, table.schema, compression="zstd", write_page_index=True) as writer:
        for start, length in row_group_slices(table, limit or ROW_GROUP_BYTES):
            writer.write_table(table.slice(start, length), row_group_size=length)


def data_path(kind: str, lp: str, part: str) -> str:
    return f"data/{path_part(kind)}/{path_part(lp)}/{path_part(part)}.parquet"


def configs(files: list[dict[str, Any]], release_id: str) -> list[dict[str, Any]]:
    """Card configs for the data files (dicts with path, kind, lp, part, rows, sha256)."""
    data = [f for f in files if f.get("kind")]
    kinds = sorted({f["kind"] for f in data}, key=kind_sort_key)
    out: list[dict[str, Any]] = []

    def add(name: str, kind: str, pattern: str, members: list[dict[str, Any]]) -> None:
        if not members or any(c["config_name"] == name for c in out):
            return
        digest = hashlib.sha256(
            "".join(f"{m['path']}:{m['sha256']}\n" for m in sorted(members, key=lambda m: m["path"])).encode()
        ).hexdigest()
        rows = sum(m["rows"] for m in members)
        out.append(
            {
                "config_name": name,
                "data_files": [{"split": SPLIT, "path": pattern}],
                "description": f"{release_id} {name}: {rows} {kind} records (files sha256 {digest[:16]})",
                "kind": kind,
                "rows": rows,
            }
        )

    for kind in kinds:
        mine = [f for f in data if f["kind"] == kind]
        k = path_part(kind)
        add(kind, kind, f"data/{k}/*/*.parquet", mine)
        lps = sorted({f["lp"] for f in mine} - {NO_LP})
        for lp in lps:
            add(
                f"{kind}-{path_part(lp)}",
                kind,
                f"data/{k}/{path_part(lp)}/*.parquet",
                [f for f in mine if f["lp"] == lp],
            )
        if kind == "smaug_pair":
            for part in sorted({f["part"] for f in mine}):
                add(
                    f"{kind}-{path_part(part)}",
                    kind,
                    f"data/{k}/*/{path_part(part)}.parquet",
                    [f for f in mine if f["part"] == part],
                )
    if out:
        out[0]["default"] = True
    return out


def hub_configs(configs_: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The configs as the Hub YAML wants them (no mtgauntlet-only keys)."""
    return [{k: v for k, v in c.items() if k not in ("kind", "rows")} for c in configs_]
