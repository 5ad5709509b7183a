"""Exports read what a manifest seals, as the catalog does: an edited or deleted data file of a release or of a
results folder is a one-line error naming the file (exit 2, nothing written), a planted file is not read (a warning
names it). A release imported from real DEMETR items, scored by chrF over the catalog."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.sets.helpers import demetr_items, write_tsv
from tests.support.cli import invoke

WMT = ["lp", "source", "good", "incorrect", "reference", "phenomena"]


@pytest.fixture(scope="module")
def scored(shared_data, tmp_path_factory):
    """(release, results folder, seg-score export of the untouched results) of 10 DEMETR pairs scored by chrF
    (shard size 4: several shards)."""
    root = tmp_path_factory.mktemp("sealed")
    rows = [
        ["de-en", it["src_sent"], it["mt_sent"], it["pert_sent"], it["eng_sent"], it["pert_name"]]
        for it in demetr_items(shared_data, 10)
    ]
    src = write_tsv(root / "demetr.tsv", WMT, rows)
    args = ["--name", "demetr-cs", "--version", "1.0.0", "--out", root / "releases", "--provenance", "license=mit"]
    assert invoke(["import", "wmt-challenge", src, *args]).exit_code == 0
    results = root / "results"
    r = invoke(
        ["evaluate", "metric", "--releases", root / "releases", "-m", "chrf", "--out", results, "--shard-size", "4"]
    )
    assert r.exit_code == 0, r.output
    export = root / "export"
    r = invoke(["export", "seg-score", results, "--out", export, "--releases", root / "releases"])
    assert r.exit_code == 0, r.output
    return root / "releases" / "name=demetr-cs" / "version=1.0.0", results, export


def _copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to)
    return to


def _seg_lines(export: Path) -> list[str]:
    return (export / "chrf.seg.score").read_text(encoding="utf-8").splitlines()


def _export_scores(results: Path, out: Path, releases: Path):
    return invoke(["export", "seg-score", results, "--out", out, "--releases", releases])


def test_an_edited_or_deleted_results_shard_is_refused_naming_it(scored, tmp_path):
    release, results, export = scored
    assert len(_seg_lines(export)) == 20  # 10 pairs, good and bad
    shards = sorted((results / "data" / "metric_score").glob("part-*.parquet"))
    assert len(shards) >= 3

    edited = _copy(results, tmp_path / "edited")
    shard = edited / "data" / "metric_score" / shards[0].name
    t = pq.read_table(shard)
    pq.write_table(t.set_column(t.schema.get_field_index("score"), "score", [[99.0] * t.num_rows]), shard)
    r = _export_scores(edited, tmp_path / "e1", release.parent.parent)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert r.exception.startswith(f"error: {edited}: refused: data/metric_score/{shard.name}: ")
    assert not (tmp_path / "e1").exists()

    deleted = _copy(results, tmp_path / "deleted")
    (deleted / "data" / "metric_score" / shards[1].name).unlink()
    r = _export_scores(deleted, tmp_path / "e2", release.parent.parent)
    assert r.exit_code == 2 and f"data/metric_score/{shards[1].name}: missing" in r.exception, r.output
    assert not (tmp_path / "e2").exists()


def test_a_planted_results_shard_is_not_exported(scored, tmp_path):
    release, results, export = scored
    planted = _copy(results, tmp_path / "planted")
    shard = next((planted / "data" / "metric_score").glob("part-*.parquet"))
    t = pq.read_table(shard)
    pq.write_table(
        t.set_column(t.schema.get_field_index("score"), "score", [[-5.0] * t.num_rows]),
        planted / "data" / "metric_score" / "part-99999999T000000-planted.parquet",
    )
    r = _export_scores(planted, tmp_path / "e", release.parent.parent)
    assert r.exit_code == 0, r.output
    assert "part-99999999T000000-planted.parquet not sealed by its manifest: not read" in r.stderr
    assert _seg_lines(tmp_path / "e") == _seg_lines(export)


def test_an_edited_release_is_not_exported(scored, tmp_path):
    release, _, _ = scored
    ok = invoke(["export", "aces", release, "--out", tmp_path / "ok.tsv"])
    assert ok.exit_code == 0, ok.output
    edited = _copy(release, tmp_path / "rel")
    data = next((edited / "data").rglob("*.parquet"))
    t = pq.read_table(data)
    bad = t.column("bad").to_pylist()
    bad[0] = "An edited translation."
    pq.write_table(t.set_column(t.schema.get_field_index("bad"), "bad", [bad]), data)
    r = invoke(["export", "aces", edited, "--out", tmp_path / "edited.tsv"])
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    rel = data.relative_to(edited).as_posix()
    assert r.exception.startswith(f"error: {edited}: refused: {rel}: ")
    assert not (tmp_path / "edited.tsv").exists()
    data.unlink()
    r = invoke(["export", "wmt-challenge", edited, "--out", tmp_path / "deleted.tsv"])
    assert r.exit_code == 2 and f"{rel}: missing" in r.exception, r.output
    manifest = json.loads((release / "manifest.json").read_text())
    assert any(f["path"] == rel for f in manifest["files"])


def test_a_nul_byte_already_in_a_release_is_not_written_into_a_tsv(shared_data, tmp_path):
    from tests.evaluation.workbench_sets import write_build
    from tests.support.release_helpers import cli

    it = demetr_items(shared_data, 1)[0]
    row = {"lp": "de-en", "src": it["src_sent"], "good": it["mt_sent"], "bad": it["pert_sent"][:4] + "\x00"}
    row |= {"ref": it["eng_sent"], "phenomenon": it["pert_name"], "src_lang": "de", "tgt_lang": "en"}
    build = write_build(tmp_path / "b", "challenge_pair", [row])  # made before importers refused NUL bytes
    cli("release", build, "--name", "nul", "--version", "1.0.0", "--out", tmp_path / "rel", "--license", "mit")
    rel = tmp_path / "rel" / "name=nul" / "version=1.0.0"
    r = invoke(["export", "aces", rel, "--out", tmp_path / "nul.tsv"])
    assert (
        r.exit_code == 2
        and "field incorrect-translation holds a NUL byte, which the format cannot carry" in r.exception
    ), r.output
    assert not (tmp_path / "nul.tsv").exists()
