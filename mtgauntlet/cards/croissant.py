"""Croissant 1.0 (ML Commons) JSON-LD metadata for a release, written without extra dependencies.

One FileSet and one RecordSet per record kind (the kind's folder ``data/<kind>/``, so sets never
overlap). Every column is a field, nested ones included: list columns are ``repeated`` fields, lists of
structs (``checks``, ``trajectory``) are repeated fields whose ``subField``s extract each member with a
JSONPath (a list inside a struct, e.g. a step's ``translations``, is a repeated sub-field). Iterate with
``mlcroissant.Dataset("croissant.json").records("<kind>")``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from mtgauntlet.release_layout import kind_sort_key, path_part
from mtgauntlet.schema import KINDS, column_doc, get_kind

# without --url: the folder croissant.json lies in (a relative URL, resolved against this file wherever it lies)
RELEASE_FOLDER_URL = "./"

CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "sc": "https://schema.org/",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "dct": "http://purl.org/dc/terms/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileObject": "cr:fileObject",
    "fileProperty": "cr:fileProperty",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}


def data_type(t: pa.DataType) -> str | None:
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "sc:Text"
    if pa.types.is_integer(t):
        return "sc:Integer"
    if pa.types.is_floating(t):
        return "sc:Float"
    if pa.types.is_boolean(t):
        return "sc:Boolean"
    if pa.types.is_timestamp(t):
        return "sc:DateTime"
    if pa.types.is_date(t):
        return "sc:Date"
    return None


def _is_list(t: pa.DataType) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t)


def _field(fid: str, name: str, t: pa.DataType, source: dict[str, Any], description: str = "") -> dict[str, Any]:
    """A Croissant field for a column or struct member of type ``t`` read from ``source``."""
    out: dict[str, Any] = {"@type": "cr:Field", "@id": fid, "name": name}
    if description:
        out["description"] = description
    repeated = _is_list(t)
    inner = t.value_type if repeated else t
    while _is_list(inner):  # a list of lists (e.g. QE per translator and per QE spec): repeated, nested as stored
        inner = inner.value_type
        out["description"] = (out.get("description", "") + " A list of lists.").strip()
    if repeated:
        out["repeated"] = True
    if pa.types.is_struct(inner):
        out["dataType"] = "sc:Text"  # the parent carries no value of its own; its sub-fields do
        out["subField"] = [
            _field(
                f"{fid}/{m.name}",
                m.name,
                m.type,
                {**source, "transform": [*source.get("transform", []), {"jsonPath": m.name}]},
            )
            for m in inner
        ]
        return out
    dt = data_type(inner)
    if dt is None:
        raise ValueError(f"no Croissant data type for {t} ({fid})")
    out["dataType"] = dt
    out["source"] = source
    return out


def record_set(kind: str, schema: pa.Schema) -> dict[str, Any]:
    """The kind's record set from the schema of its released files (every column, nested ones included)."""
    fields = []
    for f in schema:
        src = {"fileSet": {"@id": f"files-{kind}"}, "extract": {"column": f.name}}
        fields.append(_field(f"{kind}/{f.name}", f.name, f.type, src, column_doc(kind, f.name)))
    key = "id" if "id" in schema.names else None
    description = get_kind(kind).description if kind in KINDS else ""
    out: dict[str, Any] = {
        "@type": "cr:RecordSet",
        "@id": kind,
        "name": kind,
        "description": description,
        "field": fields,
    }
    if key:
        out["key"] = {"@id": f"{kind}/{key}"}
    return out


def creators(names: Sequence[str]) -> list[dict[str, Any]]:
    """Croissant ``creator``: the people named by ``gauntlet release --creator``, else mtgauntlet (which generated
    the records), saying that no person was named."""
    if names:
        return [{"@type": "sc:Person", "name": n} for n in names]
    return [
        {
            "@type": "sc:Organization",
            "name": "mtgauntlet",
            "description": "records generated with mtgauntlet; the releaser named no creator (--creator)",
        }
    ]


def croissant(manifest: dict[str, Any], schemas: dict[str, pa.Schema], cite_as: str = "") -> dict[str, Any]:
    kinds = sorted(manifest["kinds"], key=kind_sort_key)
    distribution = [
        {
            "@type": "cr:FileSet",
            "@id": f"files-{kind}",
            "name": f"files-{kind}",
            "description": f"{kind} records (Parquet), one folder per language pair",
            "encodingFormat": "application/x-parquet",
            "includes": f"data/{path_part(kind)}/*/*.parquet",
        }
        for kind in kinds
    ]
    lic = manifest["license"]
    out = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "name": manifest["name"],
        "description": f"mtgauntlet release {manifest['name']} {manifest['version']}: "
        + ", ".join(f"{manifest['rows'][k]} {k} records" for k in kinds),
        "version": manifest["version"],
        "license": lic["license"],
        "url": manifest.get("url") or RELEASE_FOLDER_URL,
        "creator": creators(manifest.get("creators") or []),
        "datePublished": manifest["created_at"][:10],
        "distribution": distribution,
        "recordSet": [record_set(kind, schemas[kind]) for kind in kinds],
    }
    if cite_as:
        out["citeAs"] = cite_as
    return out


def write_croissant(release: Path, manifest: dict[str, Any], schemas: dict[str, pa.Schema], cite_as: str = "") -> Path:
    path = release / "croissant.json"
    doc = croissant(manifest, schemas, cite_as)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
