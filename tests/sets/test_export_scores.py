"""Metric results out as WMT *.seg.score / *.sys.score files, and a hand-written mt-metrics-eval folder in: a pure
function over metric_score records, and the CLI over their Parquet file."""

from __future__ import annotations

import json

import pyarrow.parquet as pq

import mtgauntlet as mg
from mtgauntlet.records import load_records
from mtgauntlet.schema import to_table
from mtgauntlet.sets.formats.seg_score import seg_score_lines
from tests.sets.helpers import records, write_tsv
from tests.support.cli import invoke


def _score(rec, release, side, value, metric="chrf"):
    return {
        "item_key": f"{rec['id']}-{side}",
        "metric": metric,
        "metric_signature": f"{metric}|v1",
        "set": release.name,
        "version": release.version,
        "record_kind": release.manifest["kinds"][0],
        "record_id": rec["id"],
        "side": side,
        "score": value,
        "failure": None if value is not None else "oops",
    }


def test_seg_and_sys_score_lines_of_pairs_and_of_human_judgments(tmp_path):
    pairs = mg.import_set(
        "wmt-challenge",
        write_tsv(
            tmp_path / "cs.tsv",
            ["lp", "source", "good", "incorrect", "reference", "phenomena"],
            [["de-en", "Hallo", "Hello", "Bye", "Hello", "ne"]],
        ),
        name="cs",
        version="1.0.0",
        out=tmp_path / "rel",
        provenance=["license=mit"],
    )
    human = mg.import_set(
        "human-table",
        write_tsv(
            tmp_path / "h.tsv",
            ["lp", "seg_id", "system", "mqm", "src", "ref", "tgt"],
            [
                ["en-de", "0", "A", "-1", "Hi", "Hallo", "Hallo"],
                ["en-de", "1", "A", "-5", "Yes", "Ja", "Nein"],
                ["en-de", "0", "B", "0", "Hi", "Hallo", "Hi"],
            ],
        ),
        name="h",
        version="1.0.0",
        out=tmp_path / "rel",
        score_col="mqm",
        provenance=["license=mit"],
    )
    (pair,) = records(pairs.path).values()
    hs = records(human.path, ("seg_id", "system"))
    scores = [
        _score(pair, pairs, "good", 80.0),
        _score(pair, pairs, "bad", 20.5),
        _score(hs[("0", "A")], human, "tgt", 60.0),
        _score(hs[("1", "A")], human, "tgt", 40.0),
        _score(hs[("0", "B")], human, "tgt", None),
    ]
    items = {pair["id"]: ("de-en", "", pair["id"])} | {
        r["id"]: ("en-de", r["system"], r["seg_id"]) for r in hs.values()
    }
    seg, sys_ = seg_score_lines(scores, items)["chrf"]
    assert seg == [
        f"chrf\tde-en\tcs\t-\tgood\t{pair['id']}\t80.0",
        f"chrf\tde-en\tcs\t-\tbad\t{pair['id']}\t20.5",
        "chrf\ten-de\th\t-\tA\t0\t60.0",
        "chrf\ten-de\th\t-\tA\t1\t40.0",
        "chrf\ten-de\th\t-\tB\t0\tNone",
    ]
    assert sys_ == [
        "chrf\tde-en\tcs\t-\tbad\t20.5",
        "chrf\tde-en\tcs\t-\tgood\t80.0",
        "chrf\ten-de\th\t-\tA\t50.0",
        "chrf\ten-de\th\t-\tB\tNone",
    ]
    # the CLI over a metric_score Parquet file, the sets read from their releases
    pq.write_table(to_table("metric_score", scores), tmp_path / "scores.parquet")
    r = invoke(
        [
            "export",
            "seg-score",
            tmp_path / "scores.parquet",
            "--out",
            tmp_path / "wmt",
            "--releases",
            tmp_path / "rel",
            "--json",
        ]
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["records"] == 5
    assert (tmp_path / "wmt" / "chrf.seg.score").read_text().splitlines() == seg
    assert (tmp_path / "wmt" / "chrf.sys.score").read_text().splitlines() == sys_
    r = invoke(
        [
            "export",
            "seg-score",
            tmp_path / "scores.parquet",
            "--out",
            tmp_path / "wmt2",
            "--releases",
            tmp_path / "nowhere",
        ]
    )
    assert r.exit_code == 2 and "no such release" in r.exception and not (tmp_path / "wmt2").exists()


def test_an_mt_metrics_eval_folder_skips_unjudged_outputs_and_keeps_missing_scores_null(tmp_path):
    root = tmp_path / "wmt-mini"
    for sub in ("sources", "references", "system-outputs/de-en", "human-scores", "documents"):
        (root / sub).mkdir(parents=True)
    (root / "sources" / "de-en.txt").write_text('Hallo "Welt"\nJa  \n', encoding="utf-8")
    (root / "references" / "de-en.refA.txt").write_text('Hello "world"\nYes\n', encoding="utf-8")
    (root / "documents" / "de-en.docs").write_text("news\td1\nnews\td1\n", encoding="utf-8")
    (root / "system-outputs" / "de-en" / "S1.txt").write_text("\ufeffHello world\nYes \n", encoding="utf-8")
    (root / "system-outputs" / "de-en" / "S2.txt").write_text("Hi\nNo\n", encoding="utf-8")
    (root / "human-scores" / "de-en.mqm.seg.score").write_text("S1\t-1.0\nS1\tNone\nS2\tNone\nS2\tNone\n")
    (root / "human-scores" / "de-en.esa.seg.score").write_text("S1\t80\nS1\t70\nS2\tNone\nS2\t12.5\n")
    rel = mg.import_set("mtme", root, name="mini", version="1.0.0", out=tmp_path / "rel", provenance=["license=mit"])
    got = records(rel.path, ("seg_id", "system"))
    assert set(got) == {("0", "S1"), ("1", "S1"), ("1", "S2")}  # S2's segment 0 has no human score
    assert rel.manifest["builds"][0]["counts"]["skipped"] == {"no human score for this system and segment": 1}
    s1 = got[("1", "S1")]
    assert (s1["src"], s1["ref"], s1["tgt"], s1["doc"], s1["domain"]) == ("Ja  ", "Yes", "Yes ", "d1", "news")
    assert s1["scores"] == [{"name": "esa", "value": 70.0}, {"name": "mqm", "value": None}]
    assert got[("0", "S1")]["tgt"] == "\ufeffHello world"
    back = mg.export_set("mtme", rel, out=tmp_path / "out" / "wmt-mini")  # same name: same source_dataset
    assert (back.path / "sources" / "de-en.txt").read_bytes() == (root / "sources" / "de-en.txt").read_bytes()
    again = mg.import_set(
        "mtme", back.path, name="mini", version="1.0.1", out=tmp_path / "rel", provenance=["license=mit"]
    )
    assert {k: {f: v for f, v in r.items() if f != "created_at"} for k, r in got.items()} == {
        k: {f: v for f, v in r.items() if f != "created_at"}
        for k, r in records(again.path, ("seg_id", "system")).items()
    }


def test_a_smaug_release_exports_as_a_wmt_challenge_tsv(tmp_path, sample_path):
    from tests.support.release_helpers import cli

    cli(
        "build",
        "smaug",
        "--input",
        sample_path,
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
        "--limit",
        "6",
        "--phenomena",
        "num,neg",
        "--out",
        tmp_path / "b",
    )
    cli("release", tmp_path / "b", "--name", "smaug", "--version", "0.1.0", "--out", tmp_path / "rel")
    rel = tmp_path / "rel" / "name=smaug" / "version=0.1.0"
    smaug = {(r["src"], r["bad"]): r for r in pq.read_table(rel / "data").to_pylist()}
    out = mg.export_set("wmt-challenge", rel, out=tmp_path / "smaug.tsv")
    again = mg.import_set(
        "wmt-challenge",
        out.path,
        name="smaug-cs",
        version="0.1.0",
        out=tmp_path / "rel2",
        provenance=["license=apache-2.0"],
    )
    back = load_records(again.path).to_pylist()
    assert len(back) == len(smaug) > 0
    for r in back:
        s = smaug[(r["src"], r["bad"])]
        assert r["source_id"] == s["source_id"]
        assert (r["src"], r["good"], r["bad"], r["ref"], r["phenomenon"], r["lp"]) == (
            s["src"],
            s["good"],
            s["bad"],
            s["ref"],
            s["phenomenon"],
            "es-en",
        )
        assert json.loads(r["extra"])["perturbation"] == s["perturbation"]
        assert r["aces_category"] == "mistranslation"
