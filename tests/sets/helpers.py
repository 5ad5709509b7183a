"""Shared by the import/export tests: small real-format fixtures made from DEMETR items at test time, and record
comparison."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from mtgauntlet.records import load_records

# the fields that carry no set content: when the record was made, by which importer (and the id that hashes it)
PROVENANCE_FIELDS = ("created_at", "builder", "id")


def demetr_items(shared: Path, n: int = 6, *, checked_only: bool = True) -> list[dict]:
    """The first ``n`` DEMETR items (of distinct perturbations), read from the shared file."""
    out, seen = [], set()
    with gzip.open(shared / "demetr" / "demetr_dev.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            item = json.loads(line)
            if (checked_only and not item["pert_check"]) or item["pert_name"] in seen:
                continue
            if "\n" in item["pert_sent"] or "\t" in "".join(str(v) for v in item.values()):
                continue
            seen.add(item["pert_name"])
            out.append(item)
            if len(out) == n:
                return out
    return out


def write_tsv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    path.write_text("".join("\t".join(r) + "\n" for r in [header, *rows]), encoding="utf-8")
    return path


def records(release, key=("source_id",)) -> dict:
    return {tuple(r[k] for k in key): r for r in load_records(release).to_pylist()}


def differing(a: dict, b: dict, ignore=PROVENANCE_FIELDS) -> dict:
    """field -> (first value in a, in b) of the fields that differ between two keyed record sets."""
    assert set(a) == set(b)
    out = {}
    for k, rec in a.items():
        for f, value in rec.items():
            if f not in ignore and value != b[k][f]:
                out.setdefault(f, (value, b[k][f]))
    return out
