"""Inputs given as Python objects: a pandas DataFrame or Series, a ``datasets.Dataset``, a ``pyarrow.Table`` or a
list of dicts becomes a Parquet file that the same readers as the CLI's read, so the same checks apply and the
same records come out. That file is always read as Parquet: its name only labels the data (an
``input_name="flores200_devtest"`` is not read as the FLORES layout).

The file is content-addressed under the cache (``MTGAUNTLET_CACHE_DIR``, default ``~/.cache/mtgauntlet``):
``inputs/<sha256 of the rows>/<name>.parquet``. Its name becomes the records' ``source_dataset``
(``input_name=``; default ``dataframe``, ``series``, ``dataset``, ``table`` or ``records``), and an unchanged
object maps to the same file, so a build from it resumes like a build from a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mtgauntlet.errors import UsageError

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def cache_dir() -> Path:
    return Path(os.environ.get("MTGAUNTLET_CACHE_DIR") or Path.home() / ".cache" / "mtgauntlet")


def in_memory(obj: Any) -> bool:
    """True for an input given as a Python object (a table, a DataFrame, a Series, a Dataset, a list of dicts)."""
    return obj is not None and not isinstance(obj, (str, os.PathLike))


def input_format(obj: Any, format: str | None) -> str | None:
    """The ``format`` to read ``obj`` with: an in-memory input is always the Parquet file it became (its name
    only labels the data: ``input_name="flores200_devtest"`` is no FLORES layout), a path as asked."""
    return "parquet" if format is None and in_memory(obj) else format


def _column_problem(name: str, values: list[Any], what: str) -> UsageError | None:
    """Why one column of an in-memory input cannot be stored (text that is not Unicode, values of several types
    that Arrow cannot hold as one), as one line naming the column; None when it can."""
    import pyarrow as pa

    for i, v in enumerate(values):
        if isinstance(v, str) and (surrogate := _SURROGATE.search(v)):
            return UsageError(
                f"input: {what} row {i}, column {name!r}: the text is not valid Unicode (a lone "
                f"surrogate at character {surrogate.start()})"
            )
    try:
        pa.array(values, from_pandas=True)
    except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
        kinds = sorted({type(v).__name__ for v in values if v is not None})
        return UsageError(
            f"input: column {name!r} of the {what} cannot be stored as one type (it holds "
            f"{', '.join(kinds)}): {str(exc).splitlines()[0][:120]}"
        )
    return None


def _checked(convert: Callable[[], Any], columns: dict[str, list[Any]], what: str):
    """``convert()`` (the Arrow table), or the first column's problem as a `UsageError`."""
    import pyarrow as pa

    for name, values in columns.items():
        if any(isinstance(v, str) and _SURROGATE.search(v) for v in values):
            problem = _column_problem(name, values, what)  # Arrow would fail with a bare UnicodeEncodeError
            if problem is not None:  # always: a lone surrogate is a problem
                raise problem
    try:
        return convert()
    except (pa.ArrowException, ValueError, TypeError, OverflowError, UnicodeError):
        for name, values in columns.items():
            problem = _column_problem(name, values, what)
            if problem is not None:
                raise problem from None
        raise


def _pandas_table(frame: Any, what: str):
    """A DataFrame as Arrow; a duplicated column name, no rows, mixed types or non-Unicode text is one line."""
    import pyarrow as pa

    names = [str(c) for c in frame.columns]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise UsageError(f"input: the {what} has duplicate column names: {', '.join(map(repr, duplicated))}")
    if len(frame) == 0:
        raise UsageError(f"input: the {what} has no rows")
    frame = frame.set_axis(names, axis=1)
    objects = {n: frame[n].tolist() for n in names if frame[n].dtype == object}  # where mixed types or lone
    return _checked(lambda: pa.Table.from_pandas(frame, preserve_index=False), objects, what)  # surrogates can be


def _table(obj: Any):
    """(pyarrow table, default name) of an in-memory input, or None for a path."""
    import pyarrow as pa

    if not in_memory(obj):
        return None
    module = type(obj).__module__
    if isinstance(obj, pa.Table):
        return obj, "table"
    if module.startswith("pandas") and type(obj).__name__ == "Series":
        column = str(obj.name) if obj.name is not None else "text"
        return _pandas_table(obj.to_frame(name=column), "Series"), "series"
    if module.startswith("pandas") and hasattr(obj, "columns"):
        return _pandas_table(obj, "DataFrame"), "dataframe"
    if module.startswith("datasets") and type(obj).__name__ in ("DatasetDict", "IterableDatasetDict"):
        raise UsageError(
            f"input: a datasets.{type(obj).__name__} holds several splits ({', '.join(obj)}); pass "
            f"one of them, e.g. input=ds[{next(iter(obj), 'train')!r}]"
        )
    if module.startswith("datasets") and hasattr(obj, "data") and hasattr(obj, "flatten_indices"):
        from mtgauntlet.core.progress import datasets_quiet

        if len(obj) == 0:
            raise UsageError("input: the Dataset has no rows")
        with datasets_quiet():  # no "Flattening the indices" bar: a silent call is silent
            return obj.flatten_indices().data.table, "dataset"  # rows as selected (select/filter/shuffle kept)
    if isinstance(obj, list) and all(isinstance(r, dict) for r in obj):
        if not obj:
            raise UsageError("input: the list of records is empty")
        names = list(dict.fromkeys(str(k) for r in obj for k in r))
        return _checked(
            lambda: pa.Table.from_pylist(obj), {n: [r.get(n) for r in obj] for n in names}, "list of records"
        ), "records"
    raise UsageError(
        f"input: expected a path, a pandas DataFrame or Series, a datasets.Dataset or a list of dicts, "
        f"not {type(obj).__name__}"
    )


def input_table(obj: Any):
    """The ``pyarrow.Table`` of an in-memory input (checked as for `as_input_path`)."""
    got = _table(obj)
    if got is None:
        raise UsageError(f"input: expected an in-memory table, not the path {os.fspath(obj)!r}")
    return got[0]


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
        digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
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
