"""The card's column reference, generated from the record schemas (``mtgauntlet.schema``)."""

from __future__ import annotations

import pyarrow as pa

from mtgauntlet.schema import KINDS, column_doc


def type_name(t: pa.DataType) -> str:
    """A readable type: string, int32, list<string>, list<struct<name: string, value: double>>, ..."""
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"list<{type_name(t.value_type)}>"
    if pa.types.is_struct(t):
        return "struct<" + ", ".join(f"{f.name}: {type_name(f.type)}" for f in t) + ">"
    if pa.types.is_timestamp(t):
        return f"timestamp ({t.tz or 'naive'})"
    return str(t)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def columns_section(schemas: dict[str, pa.Schema]) -> str:
    """One table per kind: every column of the released files with its type and meaning."""
    parts = []
    for kind, schema in schemas.items():
        description = KINDS[kind].description if kind in KINDS else ""
        parts.append(f"#### `{kind}`\n\n{description}\n")
        rows = ["| column | type | meaning |", "|---|---|---|"]
        for f in schema:
            rows.append(f"| `{f.name}` | `{_cell(type_name(f.type))}` | {_cell(column_doc(kind, f.name))} |")
        parts.append("\n".join(rows))
    return "\n\n".join(parts)
