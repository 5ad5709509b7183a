"""Small catalogs for the workbench tests: releases of the three set kinds, made the way a release is made (a
complete build folder of records, released by `gauntlet release`), from real text: SMAUG-style pairs of the shipped
sample, challenge pairs with ACES categories, and a filtered subset of the WMT23 MQM table read at test time."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pyarrow.parquet as pq

from mtgauntlet.schema import record_id, to_table, utcnow
from tests.support.release_helpers import cli

WMT23 = "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz"


def write_build(folder: Path, kind: str, rows: list[dict], builder: str = "test-import") -> Path:
    """A complete build folder holding ``rows`` as ``kind`` records."""
    sig = f"{builder}-{kind}-{len(rows)}-{folder.name}"
    now = utcnow()
    records = [{"builder": builder, "builder_version": "1", "created_at": now, **r} for r in rows]
    for r in records:
        r["id"] = record_id(kind, r)
    (folder / "data").mkdir(parents=True)
    pq.write_table(to_table(kind, records, signature=sig), folder / "data" / "records.parquet")
    (folder / "build.json").write_text(
        json.dumps(
            {
                "status": "complete",
                "kind": kind,
                "builder": builder,
                "builder_version": "1",
                "signature": sig,
                "counts": {"produced": len(records)},
            }
        )
    )
    return folder


def sample_pairs(sample_path: Path, n: int = 24) -> list[dict]:
    """SMAUG-style pairs: good = the reference, bad = the reference with a number or a word changed."""
    with open(sample_path, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))[:n]
    out = []
    for i, r in enumerate(rows):
        words = r["en"].split()
        bad = " ".join(words[:-2] + [words[-1]]) if i % 2 else " ".join(["Not"] + words)
        out.append(
            {
                "src": r["es"],
                "ref": r["en"],
                "good": r["en"] if i % 3 else r["en"].lower(),
                "bad": bad,
                "phenomenon": "del" if i % 2 else "neg",
                "src_lang": "es",
                "tgt_lang": "en",
                "source_id": str(i),
            }
        )
    return out


def challenge_pairs(sample_path: Path, n: int = 20) -> list[dict]:
    categories = {"omission": "omission", "addition": "addition", "punct": "punctuation"}
    with open(sample_path, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))[-n:]
    out = []
    for i, r in enumerate(rows):
        ph = list(categories)[i % 3]
        words = r["en"].split()
        bad = {"omission": " ".join(words[1:]), "addition": r["en"] + " again", "punct": r["en"].rstrip(".!?")}[ph]
        out.append(
            {
                "lp": "es-en",
                "src": r["es"],
                "good": r["en"],
                "bad": bad,
                "ref": r["en"],
                "phenomenon": ph,
                "aces_category": categories[ph],
                "src_lang": "es",
                "tgt_lang": "en",
                "source_id": f"c{i}",
                "scores": {"kept_good": float(len(r["en"])), "kept_bad": float(len(bad))},
            }
        )
    return out


def wmt23_subset(shared_data: Path, lp: str = "en-de", segments: int = 24) -> list[dict]:
    """The WMT23 MQM rows of the first ``segments`` MQM-annotated segments of ``lp`` (every system)."""
    with gzip.open(shared_data / WMT23, "rt", encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        rows = [r for r in reader if r["lp"] == lp and r["mqm"] != ""]
    segs = sorted({int(r["seg_id"]) for r in rows})[:segments]
    keep = [r for r in rows if int(r["seg_id"]) in segs]
    src_lang, tgt_lang = lp.split("-")
    return [
        {
            "lp": lp,
            "seg_id": r["seg_id"],
            "system": r["system"],
            "src": r["src"],
            "ref": r["ref"],
            "tgt": r["tgt"],
            "domain": r["domain"],
            "doc": r["doc_id"],
            "src_lang": src_lang,
            "tgt_lang": tgt_lang,
            "source_dataset": "wmt23-mqm",
            "source_id": f"{r['seg_id']}:{r['system']}",
            "scores": {
                "mqm": float(r["mqm"]),
                "da_sqm": float(r["da_sqm"]) if r["da_sqm"] else None,
                "length_ratio": len(r["tgt"]) / max(1, len(r["src"])),
            },
        }
        for r in keep
    ]


def make_catalog(root: Path, sample_path: Path, shared_data: Path, segments: int = 24) -> Path:
    """``root/releases`` with a smaug_pair, a challenge_pair and a human_score release."""
    releases = root / "releases"
    kinds = {
        "smaug-sample": ("smaug_pair", sample_pairs(sample_path)),
        "aces-like": ("challenge_pair", challenge_pairs(sample_path)),
        "wmt23-mqm-ende": ("human_score", wmt23_subset(shared_data, segments=segments)),
    }
    for name, (kind, rows) in kinds.items():
        build = write_build(root / "builds" / name, kind, rows)
        cli("release", build, "--name", name, "--version", "1.0.0", "--out", releases, "--license", "cc-by-4.0")
    return releases
