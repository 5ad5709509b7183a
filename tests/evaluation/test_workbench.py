"""The metric workbench over a catalog of a SMAUG set, an ACES-like challenge set and a WMT23 MQM subset: scores
stored and sealed, the leaderboard filled, only new work scored, a killed run resumed, tampering refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import mtgauntlet as mg
from tests.evaluation.workbench_sets import make_catalog, wmt23_subset
from tests.support.cli import REPO, invoke

PAIR_STATS = {"accuracy", "aces_tau", "smaug_tau", "smaug_d"}
HUMAN_STATS = {
    "seg_pearson",
    "seg_kendall",
    "seg_acc_eq",
    "sys_pairwise_accuracy",
    "sys_soft_pairwise_accuracy",
    "sys_pearson",
}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory, sample_path, shared_data):
    return make_catalog(tmp_path_factory.mktemp("workbench"), sample_path, shared_data)


def _evaluate(releases, out, *metrics, extra=()):
    r = invoke(
        [
            "evaluate",
            "metric",
            "--releases",
            releases,
            "-m",
            ",".join(metrics),
            "--out",
            out,
            "--json",
            "--ci-resamples",
            "50",
            *extra,
        ]
    )
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _leaderboard(releases, results, where="true"):
    r = invoke(
        [
            "query",
            "--releases",
            releases,
            "--results",
            results,
            "-f",
            "json",
            f"SELECT * FROM leaderboard WHERE {where}",
        ]
    )
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _stored(results: Path) -> dict:
    manifest = json.loads((results / "manifest.json").read_text())
    rows = [
        r
        for f in manifest["files"]
        if f["kind"] == "metric_score"
        for r in pq.read_table(results / f["path"]).to_pylist()
    ]
    return {(r["metric_signature"], r["set"], r["record_id"], r["side"]): r["score"] for r in rows}


@pytest.fixture(scope="module")
def first_run(catalog, tmp_path_factory):
    out = tmp_path_factory.mktemp("res") / "results"
    return out, _evaluate(catalog, out, "chrf", "bleu")


def test_chrf_bleu_over_the_catalog_store_scores_and_fill_the_leaderboard(catalog, first_run, sample_path):
    from sacrebleu.metrics import CHRF

    from tests.evaluation.workbench_sets import sample_pairs

    out, res = first_run
    assert {(s["name"], s["kind"]) for s in res["sets"]} == {
        ("smaug-sample", "smaug_pair"),
        ("aces-like", "challenge_pair"),
        ("wmt23-mqm-ende", "human_score"),
    }
    r = invoke(
        [
            "query",
            "--releases",
            catalog,
            "--results",
            out,
            "-f",
            "json",
            "SELECT metric, count(*) AS n, count(DISTINCT item_key) AS items FROM metric_score GROUP BY metric",
        ]
    )
    stored = {x["metric"]: x for x in json.loads(r.stdout)}
    for m in ("chrf", "bleu"):  # an item in two sets (same text, reference, languages) is scored once
        assert stored[m]["n"] == res["scores"] // 2
        assert res["metrics"][m]["computed"] == stored[m]["items"] < stored[m]["n"]
        assert res["metrics"][m]["reused"] == stored[m]["n"] - stored[m]["items"]
    assert (
        res["metrics"]["chrf"]["signature"].startswith("chrf|nrefs:1|")
        and "version:" in res["metrics"]["chrf"]["signature"]
    )
    rows = _leaderboard(catalog, out)
    by = {(r["metric"], r["set"], r["statistic"]) for r in rows}
    for m in ("chrf", "bleu"):
        assert {(m, "smaug-sample", s) for s in PAIR_STATS} <= by
        assert {(m, "aces-like", s) for s in PAIR_STATS | {"aces_score"}} <= by
        assert {(m, "wmt23-mqm-ende", s) for s in HUMAN_STATS} <= by
    assert {
        "metric",
        "set",
        "version",
        "phenomenon",
        "lp",
        "statistic",
        "value",
        "ci_low",
        "ci_high",
        "n",
        "grouping",
    } <= set(rows[0])
    # chrF's accuracy on the SMAUG set, counted here from sacrebleu directly
    chrf = CHRF()
    pairs = sample_pairs(sample_path)
    wins = [
        chrf.sentence_score(p["good"], [p["ref"]]).score > chrf.sentence_score(p["bad"], [p["ref"]]).score
        for p in pairs
    ]
    acc = [
        r
        for r in rows
        if (r["metric"], r["set"], r["statistic"], r["phenomenon"], r["lp"])
        == ("chrf", "smaug-sample", "accuracy", "all", "all")
    ]
    assert len(acc) == 1 and acc[0]["value"] == pytest.approx(np.mean(wins)) and acc[0]["n"] == len(pairs)
    assert acc[0]["ci_low"] <= acc[0]["value"] <= acc[0]["ci_high"]


def test_wmt23_mqm_subset_gets_chrf_segment_and_system_statistics(catalog, first_run, shared_data):
    from sacrebleu.metrics import CHRF
    from scipy.stats import pearsonr

    out, _ = first_run
    rows = _leaderboard(catalog, out, "metric = 'chrf' AND set = 'wmt23-mqm-ende' AND gold = 'mqm'")
    got = {(r["statistic"], r["grouping"]): r for r in rows}
    for key in [
        ("seg_acc_eq", "item"),
        ("seg_acc_eq", "sys"),
        ("seg_pearson", "none"),
        ("seg_pearson", "item"),
        ("seg_pearson", "sys"),
        ("seg_kendall", "item"),
        ("seg_kendall", "sys"),
        ("sys_pairwise_accuracy", "none"),
    ]:
        assert key in got and got[key]["value"] is not None, key
    assert 0 <= got[("seg_acc_eq", "item")]["value"] <= 1
    # the pooled segment-level Pearson, computed here with scipy from sacrebleu's chrF
    chrf = CHRF()
    subset = wmt23_subset(shared_data)
    m = [chrf.sentence_score(r["tgt"], [r["ref"]]).score for r in subset]
    h = [r["scores"]["mqm"] for r in subset]
    assert got[("seg_pearson", "none")]["value"] == pytest.approx(pearsonr(m, h).statistic, abs=1e-9)
    assert got[("seg_pearson", "none")]["n"] == len(subset)


def test_a_third_metric_is_the_only_one_computed(catalog, first_run, tmp_path):
    import shutil

    out = tmp_path / "results"
    shutil.copytree(first_run[0], out)
    res = _evaluate(catalog, out, "chrf", "bleu", "col:length_ratio")
    total = first_run[1]["scores"] // 2  # rows per metric
    assert res["metrics"]["chrf"] == {**res["metrics"]["chrf"], "computed": 0, "reused": total}
    assert res["metrics"]["bleu"]["computed"] == 0 and res["metrics"]["bleu"]["reused"] == total
    assert res["metrics"]["col:length_ratio"]["computed"] == total
    assert res["scores"] == 3 * total
    again = _evaluate(catalog, out, "chrf", "col:length_ratio")
    assert all(c["computed"] == 0 for c in again["metrics"].values())
    rows = _leaderboard(catalog, out, "metric = 'col:length_ratio'")
    assert {r["set"] for r in rows} == {"wmt23-mqm-ende"}  # the column exists only there


def test_a_python_callable_is_a_metric(catalog, tmp_path):
    def shorter_is_better(src, hyp, ref, src_lang, tgt_lang):
        return [-abs(len(h) - len(r or "")) for h, r in zip(hyp, ref)]

    res = mg.evaluate(
        "metric", releases=catalog, sets="smaug-sample", metric=shorter_is_better, out=tmp_path / "r", ci_resamples=20
    )
    ((name, counts),) = res["metrics"].items()
    assert name.endswith("shorter_is_better") and counts["computed"] == 48 and counts["signature"].startswith("python:")
    df = mg.query(
        "SELECT statistic, value FROM leaderboard WHERE phenomenon = 'all' AND lp = 'all'",
        releases=catalog,
        results=tmp_path / "r",
    )
    assert set(df["statistic"]) == PAIR_STATS


def test_a_killed_run_resumes_to_the_same_scores(catalog, first_run, tmp_path):
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mtgauntlet.cli.main",
            "evaluate",
            "metric",
            "--releases",
            str(catalog),
            "-m",
            "chrf,bleu",
            "--out",
            str(out),
            "--shard-size",
            "1",
            "--ci-resamples",
            "20",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 120
    while time.time() < deadline and len(list((out / "data" / "metric_score").glob("part-*.parquet"))) < 20:
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    shards = list((out / "data" / "metric_score").glob("part-*.parquet"))
    assert shards and not (out / "manifest.json").exists(), "the run was not killed mid-run"
    res = _evaluate(catalog, out, "chrf", "bleu")
    assert res["unsealed_shards_resumed"] >= 20
    assert 0 < sum(c["reused"] for c in res["metrics"].values())
    assert sum(c["computed"] for c in res["metrics"].values()) < first_run[1]["scores"]
    assert _stored(out) == _stored(first_run[0])


def test_a_tampered_results_shard_is_refused(catalog, first_run, tmp_path):
    import shutil

    out = tmp_path / "results"
    shutil.copytree(first_run[0], out)
    shard = next((out / "data" / "metric_score").glob("part-*.parquet"))
    t = pq.read_table(shard)
    pq.write_table(
        t.set_column(t.schema.get_field_index("score"), "score", pq.read_table(shard).column("score").fill_null(0.0)),
        shard,
    )
    r = invoke(["query", "--releases", catalog, "--results", out, "SELECT count(*) FROM metric_score"])
    assert r.exit_code == 2 and "results refused" in r.stderr and shard.name in r.stderr and "Traceback" not in r.output


def test_dec_results_go_into_the_same_leaderboard(catalog, first_run, shared_data, tmp_path):
    import shutil

    out = tmp_path / "results"
    shutil.copytree(first_run[0], out)
    judgments = shared_data / "wmt23-mqm-mtme" / "wmt23_mtme_seg_scores.tsv.gz"
    r = invoke(["evaluate", "dec", "-j", judgments, "-e", "length", "--lp", "en-de", "--out", out, "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    rows = _leaderboard(catalog, out, "metric = 'length'")
    dec = {(x["lp"], x["statistic"]): x for x in rows}
    assert dec[("all", "dec")]["value"] == pytest.approx(res["results"][0]["dec"])
    assert dec[("en-de", "dec")]["value"] == pytest.approx(res["results"][0]["per_lp"]["en-de"])
    assert dec[("all", "dec")]["set"] == judgments.name and dec[("all", "dec")]["record_kind"] == "judgment"
    assert len(_leaderboard(catalog, out, "metric = 'chrf'")) == len(
        _leaderboard(catalog, first_run[0], "metric = 'chrf'")
    )


def test_max_requests_stops_an_llm_judge_keeps_what_it_scored_and_resumes_without_paying_twice(catalog, tmp_path):
    from tests.support.openai_server import ScriptedServer

    def judge(messages):
        return f"SCORE |||{len(messages[-1]['content']) % 97}|||"

    out = tmp_path / "results"
    with ScriptedServer(default=judge) as srv:
        spec = f"llm-as-qe:openai:judge@{srv.url}"
        r = invoke(
            [
                "evaluate",
                "metric",
                "--releases",
                catalog,
                "--sets",
                "smaug-sample",
                "-m",
                spec,
                "--out",
                out,
                "--shard-size",
                "4",
                "--max-requests",
                "10",
                "--ci-resamples",
                "20",
            ]
        )
        assert r.exit_code == 3, r.output
        assert "Traceback" not in r.output and len(srv.requests) == 10
        manifest = json.loads((out / "manifest.json").read_text())
        assert (
            manifest["runs"][-1]["stopped"] and manifest["runs"][-1]["usage"][spec.split(":", 1)[1]]["requests"] == 10
        )
        stored = sum(f["rows"] for f in manifest["files"] if f["kind"] == "metric_score")
        assert stored == 8  # two whole chunks of 4; the third was cut by the budget
        res = _evaluate(catalog, out, spec, extra=("--sets", "smaug-sample"))
        assert res["metrics"][spec]["reused"] == 8 and res["metrics"][spec]["computed"] == 40
        assert len(srv.requests) == 48  # the 2 answers of the cut chunk came from the cache: nothing paid twice


def test_engine_ray_stores_the_same_scores_as_local(catalog, first_run, tmp_path):
    pytest.importorskip("ray")
    import ray

    out = tmp_path / "ray"
    try:
        res = mg.evaluate(
            "metric", releases=catalog, metric="chrf,bleu", out=out, engine="ray", shard_size=16, ci_resamples=50
        )
    finally:
        ray.shutdown()
    assert [c["computed"] for c in res["metrics"].values()] == [c["computed"] for c in first_run[1]["metrics"].values()]
    assert _stored(out) == _stored(first_run[0])
    local = _leaderboard(catalog, first_run[0], "metric = 'chrf'")
    assert sorted(map(json.dumps, _leaderboard(catalog, out, "metric = 'chrf'")), key=str) == sorted(
        map(json.dumps, local), key=str
    )


def test_chrf_and_bleu_scorers_equal_sacrebleu_sentence_score(shared_data, sample_path):
    """Each distinct reference is prepared once (a segment's systems share it): the scores stay sacrebleu's."""
    from sacrebleu.metrics import BLEU, CHRF

    from mtgauntlet.workbench.metrics import make_scorer
    from tests.evaluation.workbench_sets import sample_pairs

    rows = wmt23_subset(shared_data, segments=10)
    pairs = sample_pairs(sample_path)
    hyp = [r["tgt"] for r in rows] + [p[k] for p in pairs for k in ("good", "bad")]
    ref = [r["ref"] for r in rows] + [p["ref"] for p in pairs for _ in "gb"]
    ref[3] = None  # no reference: no score
    for name, metric in (("chrf", CHRF()), ("bleu", BLEU(effective_order=True))):
        want = [metric.sentence_score(h, [r]).score if r else None for h, r in zip(hyp, ref)]
        assert make_scorer(name).score([], hyp, ref, "en", "de") == want


def test_engine_ray_keeps_the_budget(catalog, tmp_path):
    pytest.importorskip("ray")
    import ray

    from tests.support.openai_server import ScriptedServer

    out = tmp_path / "results"
    with ScriptedServer(default=lambda m: "SCORE |||50|||") as srv:
        spec = f"llm-as-qe:openai:judge@{srv.url}"
        try:
            with pytest.raises(mg.BudgetSpent):
                mg.evaluate(
                    "metric",
                    releases=catalog,
                    sets="smaug-sample",
                    metric=spec,
                    out=out,
                    engine="ray",
                    shard_size=4,
                    max_requests=10,
                    ci_resamples=20,
                )
        finally:
            ray.shutdown()
        assert len(srv.requests) == 10  # never past the budget, though the workers run elsewhere
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["runs"][-1]["usage"][spec.split(":", 1)[1]]["requests"] == 10  # the workers' usage counted


def test_sets_by_name_version_or_query_and_one_line_errors(catalog, tmp_path):
    res = _evaluate(catalog, tmp_path / "a", "chrf", extra=("--sets", "aces-like@1.0.0"))
    assert [s["name"] for s in res["sets"]] == ["aces-like"] and res["scores"] == 40
    everything = _evaluate(catalog, tmp_path / "a", "chrf")  # adding sets scores only what is new in them
    sql = (
        "SELECT count(DISTINCT item_key) AS n, count(DISTINCT item_key) FILTER (set = 'aces-like') AS old "
        "FROM metric_score"
    )
    r = invoke(["query", "--releases", catalog, "--results", tmp_path / "a", "-f", "json", sql])
    keys = json.loads(r.stdout)[0]
    assert everything["metrics"]["chrf"]["computed"] == keys["n"] - keys["old"]
    assert everything["metrics"]["chrf"]["computed"] + everything["metrics"]["chrf"]["reused"] == everything["scores"]
    res = _evaluate(
        catalog, tmp_path / "b", "chrf", extra=("--sets", "SELECT name, version FROM releases WHERE name LIKE 'wmt23%'")
    )
    assert [s["kind"] for s in res["sets"]] == ["human_score"]
    for sets, says in (
        ("nope", "no release named 'nope'"),
        ("aces-like@9.9.9", "has no version '9.9.9'"),
        ("SELECT name, version FROM releases; DROP TABLE releases", "refused"),
    ):
        r = invoke(["evaluate", "metric", "--releases", catalog, "-m", "chrf", "--out", tmp_path / "c", "--sets", sets])
        assert r.exit_code == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.output
    r = invoke(["evaluate", "metric", "--releases", catalog, "-m", "chrf", "--out", tmp_path / "d", "--set", "x.tsv"])
    assert r.exit_code == 2 and "--set scores one set" in r.stderr


def test_signatures_name_what_makes_the_scores():
    import sacrebleu

    from mtgauntlet.workbench.metrics import make_scorer

    assert f"version:{sacrebleu.__version__}" in make_scorer("chrf").signature
    assert "tok:13a" in make_scorer("bleu").signature and "nc:6" in make_scorer("chrf").signature
    judge = make_scorer("llm-as-qe:openai:judge@http://127.0.0.1:9#price=1/2").signature
    assert "LLMQualityEstimator" in judge and "model=judge" in judge and "price" not in judge

    def f(src, hyp, ref, s, t):
        return [1.0] * len(hyp)

    def g(src, hyp, ref, s, t):
        return [2.0] * len(hyp)

    assert make_scorer(f).signature != make_scorer(g).signature
    assert make_scorer("col:a,b").signature == "col:a,b"


def test_results_views_keep_the_catalog_read_only(catalog, first_run, tmp_path):
    outside = tmp_path / "outside.parquet"
    pq.write_table(pq.read_table(next((first_run[0] / "data" / "metric_score").glob("*.parquet"))), outside)
    for sql in (
        f"SELECT count(*) FROM read_parquet('{outside}')",
        "COPY (SELECT 1) TO 'x.csv'",
        "SELECT 1; DROP VIEW leaderboard",
    ):
        r = invoke(["query", "--releases", catalog, "--results", first_run[0], sql])
        assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1, (sql, r.output)
    ok = invoke(
        [
            "query",
            "--releases",
            catalog,
            "--results",
            first_run[0],
            "-f",
            "json",
            "SELECT count(*) AS n FROM metric_score",
        ]
    )
    assert json.loads(ok.stdout) == [{"n": first_run[1]["scores"]}]
