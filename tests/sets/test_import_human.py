"""Human-judgment sets in and out: the WMT23 MQM table (the whole shared file, recognised by its sha256, and a
filtered subset written at test time) imports as human_score records, releases, verifies, reads in the catalog,
datasets and Croissant, and comes back equal through the mt-metrics-eval layout."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import mtgauntlet as mg
from tests.sets.helpers import differing, records
from tests.support.cli import invoke

KEY = ("lp", "seg_id", "system")
TABLE = "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz"


def _subset(shared: Path, out: Path, systems=("AIRC", "ONLINE-B", "refA"), segs=6) -> Path:
    """en-de and zh-en rows of three systems and the first segments, as a plain TSV (bytes as in the file)."""
    with gzip.open(shared / TABLE, "rb") as f:
        lines = f.read().split(b"\n")
    keep = [lines[0]] + [
        ln
        for ln in lines[1:]
        if ln
        and ln.split(b"\t")[0] in (b"en-de", b"zh-en")
        and ln.split(b"\t")[4].decode() in systems
        and int(ln.split(b"\t")[1]) < segs
    ]
    out.write_bytes(b"\n".join(keep) + b"\n")
    return out


@pytest.fixture(scope="module")
def mqm_release(shared_data, tmp_path_factory):
    out = tmp_path_factory.mktemp("rel")
    r = invoke(
        [
            "import",
            "human-table",
            shared_data / TABLE,
            "--name",
            "wmt23-mqm",
            "--version",
            "1.0.0",
            "--score-col",
            "mqm,da_sqm",
            "--ref-systems",
            "all",  # every row, references included: the whole table comes back through the layout
            "--out",
            out,
            "--json",
        ]
    )
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["release"])


def test_the_mqm_table_imports_recognised_by_content_and_verifies(mqm_release, shared_data):
    m = json.loads((mqm_release / "manifest.json").read_text())
    assert m["rows"] == {"human_score": 36629} and m["builds"][0]["builder"] == "import:human-table"
    lic = m["license"]
    assert lic["license"] == "other" and lic["license_name"] == "wmt-research-use"
    assert lic["sources"][0]["origin"].startswith("recognised by content: sha256 3733e532")
    assert invoke(["verify", mqm_release]).exit_code == 0
    got = records(mqm_release, KEY)
    airc = got[("en-de", "0", "AIRC")]
    assert airc["tgt"].startswith("\ufeff")  # the BOM of the original system output stays
    assert {s["name"]: s["value"] for s in airc["scores"]} == {"da_sqm": 67.5, "mqm": -1.0}
    assert (airc["doc"], airc["domain"], json.loads(airc["extra"])) == (
        "aj-english.33941",
        "news",
        {"is_human_ref": "0"},
    )
    he = next(r for k, r in got.items() if k[0] == "he-en")
    assert {s["name"]: s["value"] for s in he["scores"]}["da_sqm"] is None  # not rated: null, not 0


def test_the_mqm_release_reads_in_the_catalog(mqm_release):
    df = mg.query(
        "SELECT lp, count(*) AS n, count(map_from_entries(scores)['mqm']) AS mqm FROM latest_human_score "
        "GROUP BY lp ORDER BY lp",
        releases=mqm_release.parents[1],
    )
    assert list(df["lp"]) == ["en-de", "he-en", "zh-en"]
    assert list(df["mqm"]) == [5980, 10660, 18832]
    assert mg.query("SELECT count(*) AS n FROM human_score", releases=mqm_release.parents[1])["n"][0] == 36629


def test_the_mqm_table_round_trips_through_the_mt_metrics_eval_layout(mqm_release, tmp_path):
    out = tmp_path / "wmt23_mtme_seg_scores"  # the same name: the same source_dataset
    r = invoke(["export", "mtme", mqm_release, "--out", out, "--json"])
    assert r.exit_code == 0, r.output
    assert (out / "human-scores" / "en-de.mqm.seg.score").is_file()
    assert (out / "system-outputs" / "en-de" / "AIRC.txt").read_bytes().startswith("\ufeff".encode())
    again = mg.import_set(
        "mtme",
        out,
        name="wmt23-mqm-mtme",
        version="1.0.0",
        out=tmp_path / "rel",
        provenance=["license=other", "license_name=wmt-research-use", "license_link=https://www2.statmt.org/"],
        ref_systems="all",
    )
    assert mg.verify(again).ok
    skipped = again.manifest["builds"][0]["counts"]["skipped"]
    assert skipped == {
        "no human score for this system and segment": again.manifest["builds"][0]["counts"]["items"] - 36629
    }
    # the layout carries no extra columns (is_human_ref): everything else comes back as it was
    assert (
        differing(records(mqm_release, KEY), records(again.path, KEY), ignore=("created_at", "builder", "id", "extra"))
        == {}
    )


def test_a_filtered_subset_loads_with_datasets_and_croissant(shared_data, tmp_path):
    datasets = pytest.importorskip("datasets")
    mlc = pytest.importorskip("mlcroissant")
    src = _subset(shared_data, tmp_path / "mqm_subset.tsv")
    rel = mg.import_set(
        "human-table",
        src,
        name="mqm-subset",
        version="0.1.0",
        out=tmp_path / "rel",
        score_col="mqm",
        provenance=["license=cc-by-4.0"],
        ref_systems="refA",
    )
    want = {r["id"]: r for r in records(rel.path, KEY).values()}
    lines = src.read_text(encoding="utf-8").splitlines()[1:]
    rows = sum(1 for ln in lines if ln.split("\t")[6])  # rows with an MQM score; the others are skipped, counted
    assert rel.manifest["builds"][0]["counts"]["skipped"] == (
        {"no human score in the score columns": len(lines) - rows} if len(lines) > rows else {}
    )
    assert len(want) == rows > 10 and all([s["name"] for s in r["scores"]] == ["mqm"] for r in want.values())
    assert all(set(json.loads(r["extra"])) == {"is_human_ref", "da_sqm"} for r in want.values())  # the other columns
    ds = datasets.load_dataset(str(rel.path), "human_score", split="test", cache_dir=str(tmp_path / "hf"))
    assert len(ds) == len(want) and all(row == want[row["id"]] for row in ds)
    got = list(mlc.Dataset(jsonld=str(rel.path / "croissant.json")).records(record_set="human_score"))
    assert len(got) == len(want)


def test_a_score_that_is_no_number_is_one_line_naming_file_line_and_field(shared_data, tmp_path):
    src = _subset(shared_data, tmp_path / "bad.tsv")
    lines = src.read_text(encoding="utf-8").split("\n")
    cells = lines[3].split("\t")
    cells[6] = "n/a"
    lines[3] = "\t".join(cells)
    src.write_text("\n".join(lines), encoding="utf-8")
    r = invoke(
        [
            "import",
            "human-table",
            src,
            "--name",
            "bad",
            "--version",
            "1.0.0",
            "--score-col",
            "mqm",
            "--out",
            tmp_path / "rel",
        ]
    )
    assert r.exit_code == 2 and r.exception == f"error: {src}, line 4, field 'mqm': not a number: 'n/a'"
    r = invoke(["import", "human-table", src, "--name", "bad", "--version", "1.0.0", "--out", tmp_path / "rel"])
    assert r.exit_code == 2 and "--score-col" in r.exception
    assert not (tmp_path / "rel").exists()


def test_crlf_lines_and_rows_without_any_score(tmp_path):
    src = tmp_path / "crlf.tsv"
    src.write_bytes(
        "lp\tseg_id\tsystem\tesa\tmqm\tsrc\tref\ttgt\r\n"
        'en-de\t0\tA\t\t\tHi "you"\tHallo\tHallo \r\n'
        'en-de\t0\tB\t70\t\tHi "you"\tHallo\t\ufeffHi\r\n'.encode()
    )
    rel = mg.import_set(
        "human-table",
        src,
        name="crlf",
        version="1.0.0",
        out=tmp_path / "rel",
        score_col=["mqm", "esa"],
        provenance=["license=mit"],
    )
    assert rel.manifest["builds"][0]["counts"]["skipped"] == {"no human score in the score columns": 1}
    (b,) = records(rel.path, KEY).values()
    assert (b["system"], b["src"], b["tgt"]) == ("B", 'Hi "you"', "\ufeffHi")  # one CR off each line, no more
    assert b["scores"] == [{"name": "esa", "value": 70.0}, {"name": "mqm", "value": None}]
