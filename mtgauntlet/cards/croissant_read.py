"""A release's records read through ``mlcroissant``, equal to its Parquet records.

``mlcroissant.Dataset(jsonld=...).records(record_set=KIND)`` yields each record with its fields keyed by their
Croissant ids (``challenge_pair/scores``), texts as bytes, and one known artefact: a repeated field with sub-fields
(a list of structs, e.g. ``scores`` or ``checks``) that is null in the Parquet comes back as one element whose
members are all None (``[{'name': None, 'value': None}]``): mlcroissant fills a null list that way
(``_populate_repeated_nested_subfield``). No writer of mtgauntlet writes such an element (a score or check always
has a name), so :func:`croissant_records` reads it back as the null it is, keys the fields by column name, decodes
the texts, and casts each value to the Parquet column's type: a record equals ``load_records(...).to_pylist()``'s.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa


def _plain(value: Any, t: pa.DataType) -> Any:
    """An mlcroissant value as the Parquet column of type ``t`` holds it."""
    if value is None:
        return None
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        inner = t.value_type
        items = list(value)
        if pa.types.is_struct(inner) and len(items) == 1 and all(v is None for v in dict(items[0]).values()):
            return None  # mlcroissant's rendering of a null list of structs
        return [_plain(v, inner) for v in items]
    if pa.types.is_struct(t):
        members = {k.rsplit("/", 1)[-1]: v for k, v in dict(value).items()}
        return {m.name: _plain(members.get(m.name), m.type) for m in t}
    if isinstance(value, bytes) and (pa.types.is_string(t) or pa.types.is_large_string(t)):
        return value.decode("utf-8")
    if pa.types.is_timestamp(t) and isinstance(value, _dt.datetime):
        tz = getattr(t, "tz", None)
        return value.replace(tzinfo=_dt.UTC) if tz and value.tzinfo is None else value
    if pa.types.is_floating(t):
        return float(value)
    if pa.types.is_integer(t):
        return int(value)
    if pa.types.is_boolean(t):
        return bool(value)
    return value


def croissant_records(release: str | Path, kind: str, schema: pa.Schema | None = None) -> Iterator[dict[str, Any]]:
    """The ``kind`` records of a release (its folder, or its ``croissant.json``) read through mlcroissant, each
    field keyed by its column name and valued as in the Parquet (``schema``: the Parquet schema; by default that of
    the release's files of ``kind``)."""
    import mlcroissant as mlc

    path = Path(release)
    jsonld = path / "croissant.json" if path.is_dir() else path
    if schema is None:
        import pyarrow.parquet as pq

        from mtgauntlet.release_layout import path_part

        files = sorted((jsonld.parent / "data" / path_part(kind)).rglob("*.parquet"))
        schema = pq.read_schema(files[0]) if files else pa.schema([])
    types = {f.name: f.type for f in schema}
    for record in mlc.Dataset(jsonld=str(jsonld)).records(record_set=kind):
        out = {}
        for key, value in record.items():
            name = key.split("/", 1)[1] if key.startswith(f"{kind}/") else key
            out[name] = _plain(value, types[name]) if name in types else value
        yield out
