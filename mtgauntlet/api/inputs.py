"""Inputs given as Python objects: a pandas DataFrame, a ``datasets.Dataset`` or a list of dicts becomes a
Parquet file that the same readers as the CLI's read, so the same checks apply and the same records come out.

The file is content-addressed under the cache (``MTGAUNTLET_CACHE_DIR``, default ``~/.cache/mtgauntlet``):
``inputs/<sha256 of the rows>/<name>.parquet``. Its name becomes the records' ``source_dataset``
(``input_name=``; default ``dataframe``, ``dataset`` or ``records``), and an unchanged object maps to the same
file, so a build from it resumes like a build from a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from mtgauntlet.errors import UsageError

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def cache_dir() -> Path:
    return Path(os.environ.get("MTGAUNTLET_CACHE_DIR") or Path.home() / ".cache" / "mtgauntlet")


def _table(obj: Any):
    """(pyarrow table, default name) of an in-memory input, or None for a path."""
    import pyarrow as pa

    if isinstance(obj, (str, os.PathLike)):
        return None
    if isinstance(obj, pa.Table):
        return obj, "table"
    if type(obj).__module__.startswith("pandas") and hasattr(obj, "to_dict"):
        return pa.Table.from_pandas(obj, preserve_index=False), "dataframe"
    if type(obj).__module__.startswith("datasets") and hasattr(obj, "data"):
        return obj.flatten_indices().data.table, "dataset"  # rows as selected (select/filter/shuffle kept)
    if isinstance(obj, list) and all(isinstance(r, dict) for r in obj):
        if not obj:
            raise UsageError("input: the list of records is empty")
        return pa.Table.from_pylist(obj), "records"
    raise UsageError(f"input: expected a path, a pandas DataFrame, a datasets.Dataset or a list of dicts, not "
                     f"{type(obj).__name__}")


def as_input_path(obj: Any, name: str | None = None) -> str:
    """A path the corpus readers can read: ``obj`` itself when it is a path, else a cached Parquet file."""
    got = _table(obj)
    if got is None:
        return os.fspath(obj)
    table, default = got
    name = name or default
    if not _NAME.fullmatch(name):
        raise UsageError(f"input_name: {name!r} is not a plain file name (letters, digits, . _ -)")
    digest = hashlib.sha256()
    digest.update(json.dumps([str(f.type) + ":" + f.name for f in table.schema], ensure_ascii=False).encode())
    for row in table.to_pylist():
        digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8",
                                                                                          "surrogatepass"))
    path = cache_dir() / "inputs" / digest.hexdigest()[:32] / f"{name}.parquet"
    if not path.exists():
        import pyarrow.parquet as pq

        from mtgauntlet.atomic import atomic_path

        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp:
            pq.write_table(table.replace_schema_metadata(None), tmp)
    return str(path)


def path_of(obj: Any) -> str:
    """The path a result object names (``Build``, ``Report``, ``Release``: its ``.path``), or ``obj`` as a path."""
    path = getattr(obj, "path", obj)
    if not isinstance(path, (str, os.PathLike)):
        raise UsageError(f"expected a path or a result with a path, not {type(obj).__name__}")
    return os.fspath(path)
