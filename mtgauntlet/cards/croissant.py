"""Croissant (ML Commons) JSON-LD metadata for a release, written without extra dependencies.

Validated with ``mlcroissant`` when that package is installed (optional)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

_TYPES = {"string": "sc:Text", "large_string": "sc:Text", "double": "sc:Float", "float": "sc:Float",
          "int32": "sc:Integer", "int64": "sc:Integer", "bool": "sc:Boolean", "timestamp[us, tz=UTC]": "sc:Date"}

CONTEXT = {
    "@language": "en", "@vocab": "https://schema.org/", "sc": "https://schema.org/",
    "cr": "http://mlcommons.org/croissant/", "rai": "http://mlcommons.org/croissant/RAI/",
    "dct": "http://purl.org/dc/terms/", "citeAs": "cr:citeAs", "column": "cr:column", "conformsTo": "dct:conformsTo",
    "data": {"@id": "cr:data", "@type": "@json"}, "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "examples": {"@id": "cr:examples", "@type": "@json"}, "extract": "cr:extract", "field": "cr:field",
    "fileObject": "cr:fileObject", "fileProperty": "cr:fileProperty", "fileSet": "cr:fileSet", "format": "cr:format",
    "includes": "cr:includes", "isLiveDataset": "cr:isLiveDataset", "jsonPath": "cr:jsonPath", "key": "cr:key",
    "md5": "cr:md5", "parentField": "cr:parentField", "path": "cr:path", "recordSet": "cr:recordSet",
    "references": "cr:references", "regex": "cr:regex", "repeated": "cr:repeated", "replace": "cr:replace",
    "separator": "cr:separator", "source": "cr:source", "subField": "cr:subField", "transform": "cr:transform",
}


def croissant(release: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    files = manifest["files"]
    distribution = [{"@type": "cr:FileObject", "@id": f["path"], "name": f["path"], "contentUrl": f["path"],
                     "encodingFormat": "application/x-parquet", "sha256": f["sha256"]} for f in files]
    record_sets = []
    for kind in manifest["kinds"]:
        first = next(f for f in files if f["kind"] == kind)
        schema = pq.read_schema(release / first["path"])
        fields = []
        for field in schema:
            simple = _TYPES.get(str(field.type))
            if simple is None:
                continue  # nested columns (maps, lists) are described in the card, not here
            fields.append({"@type": "cr:Field", "@id": f"{kind}/{field.name}", "name": field.name,
                           "dataType": simple,
                           "source": {"fileSet": {"@id": f"files-{kind}"}, "extract": {"column": field.name}}})
        distribution.append({"@type": "cr:FileSet", "@id": f"files-{kind}", "name": f"files-{kind}",
                             "encodingFormat": "application/x-parquet",
                             "includes": sorted({f"data/{f['config']}/*.parquet" for f in files if f["kind"] == kind})})
        record_sets.append({"@type": "cr:RecordSet", "@id": kind, "name": kind, "field": fields})
    return {"@context": CONTEXT, "@type": "sc:Dataset", "conformsTo": "http://mlcommons.org/croissant/1.0",
            "name": manifest["name"], "description": f"mtgauntlet release {manifest['name']} {manifest['version']}",
            "version": manifest["version"], "license": manifest.get("license"), "url": "",
            "datePublished": manifest["created_at"][:10], "distribution": distribution, "recordSet": record_sets}


def write_croissant(release: Path, manifest: dict[str, Any]) -> Path:
    path = release / "croissant.json"
    path.write_text(json.dumps(croissant(release, manifest), indent=2) + "\n", encoding="utf-8")
    return path
