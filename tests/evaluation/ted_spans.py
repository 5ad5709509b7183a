"""Google's TED en-de MQM spans, imported as a user does (`gauntlet import mqm-spans`): the span tests' set."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from mtgauntlet.records import load_records
from tests.support.cli import invoke


def imported_ted(shared_data: Path, tmp: Path, rows: int) -> tuple[Path, list[dict]]:
    """The first ``rows`` rows of ``mqm_ted_ende.tsv.gz`` imported into ``tmp/rel``: (the release root, its
    records)."""
    with gzip.open(shared_data / "google-wmt-mqm" / "raw" / "mqm_ted_ende.tsv.gz", "rb") as f:
        lines = f.read().split(b"\n")
    src = tmp / "mqm_ted_ende.tsv"
    src.write_bytes(b"\n".join(lines[: rows + 1]) + b"\n")
    r = invoke(["import", "mqm-spans", src, "--name", "ted", "--version", "1.0.0", "--out", tmp / "rel",
                "--provenance", "license=apache-2.0", "--json"])  # fmt: skip
    assert r.exit_code == 0, r.output
    return tmp / "rel", load_records(Path(json.loads(r.stdout)["release"])).to_pylist()
