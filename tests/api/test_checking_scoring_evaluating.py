"""The checking, scoring and evaluation verbs of the Python API (issue #27): mg.validate (and validate diversity /
grammar), mg.score, mg.evaluate, mg.simulate and mg.list_models return what the `gauntlet` commands print with --json,
on small real data; silent by default, progress on stderr when asked, errors raised (never printed, never
SystemExit)."""

from __future__ import annotations

import csv
import gzip
import json
import warnings

import pandas as pd
import pyarrow.parquet as pq
import pytest

import mtgauntlet as mg
from mtgauntlet.api import checking
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import qe_a, qe_server_answer


def _json(*args):
    r = invoke([*map(str, args), "--json"])
    assert r.exit_code == 0, r
    return json.loads(r.stdout)


def _plain(obj):
    """As JSON carries it (tuples as lists, NaN as NaN)."""
    return json.loads(json.dumps(obj, default=str))


@pytest.fixture(scope="module")
def subset(tmp_path_factory, sample_path):
    out = tmp_path_factory.mktemp("api-misc") / "subset"
    r = invoke(
        [
            "build",
            "subset",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--estimator",
            "length",
            "--budget",
            "6",
            "--out",
            out,
        ]
    )
    assert r.exit_code == 0, r
    return out


def test_validate_returns_the_report_the_cli_prints_and_a_failed_rule_is_no_exception(subset, tmp_path, capfd):
    capfd.readouterr()
    report = mg.validate(subset, report=tmp_path / "report")
    assert capfd.readouterr() == ("", "")
    assert isinstance(report, mg.Report) and report.passed and report.failed_rules == []
    assert report.path == tmp_path / "report"
    assert report.to_dict() == json.loads((tmp_path / "report" / "report.json").read_text())
    assert report.to_dict() == _json("validate", subset)
    assert mg.validate(subset).path is None

    rules = tmp_path / "strict.yaml"
    rules.write_text("thresholds:\n  unique_words: {min: 1000}\n")
    failed = mg.validate(subset, rules=rules)  # no exception: the report says it
    assert not failed.passed and failed.failed_rules == ["selected_text:unique_words"]
    r = invoke(["validate", subset, "--rules", rules, "--json"])
    assert r.exit_code == 1 and json.loads(r.stdout) == failed.to_dict()

    with pytest.raises(mg.UsageError, match="--gx needs --report"):
        mg.validate(subset, gx=True)
    r = invoke(["validate", subset, "--gx"])
    assert r.exit_code == 2 and r.stderr.startswith("error: --gx needs --report"), r
    with pytest.raises(mg.GauntletError):
        mg.validate(tmp_path / "no-such-build")


def test_diversity_and_grammar_return_what_the_cli_prints(sample_path, tmp_path, capfd):
    capfd.readouterr()
    res = checking.diversity(input=sample_path, column="en", word_order=2)
    assert capfd.readouterr() == ("", "")
    assert _plain(res) == _json("validate", "diversity", "-i", sample_path, "-c", "en", "--word-order", "2")
    rows = pd.read_csv(sample_path, sep="\t", quoting=csv.QUOTE_NONE, dtype=str, keep_default_na=False)
    assert checking.diversity(input=rows, column="en", word_order=2) == res  # a DataFrame reads as the file
    with pytest.raises(mg.UsageError, match="--format"):
        checking.diversity(input=sample_path, column="en", format="xml")
    with pytest.raises(mg.InputError):
        checking.diversity(input=sample_path, column="no_such_column")

    pytest.importorskip("harper", reason="harper-py is installed by make setup")
    df = checking.grammar(input=sample_path, column="en", lang="en", out=tmp_path / "g.parquet")
    shown = _json("validate", "grammar", "-i", sample_path, "-c", "en", "--lang", "en", "-o", tmp_path / "c.parquet")
    summary = df.attrs["mtgauntlet.grammar"]
    assert {**summary, "out": None} == {**shown, "out": None} and summary["n"] == len(df) == len(rows)
    assert df["en"].tolist() == rows["en"].tolist()  # text as it came in
    assert df["grammar_errors"].tolist() == pd.read_parquet(tmp_path / "c.parquet")["grammar_errors"].tolist()
    assert isinstance(df["grammar_issues"].iloc[0], list)


def test_score_difficulty_returns_the_table_the_cli_writes(sample_path, tmp_path, monkeypatch, capfd):
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    capfd.readouterr()
    df = mg.score("difficulty", input=sample_path, src_col="es", src_lang="es", estimator="length")
    assert capfd.readouterr() == ("", "")
    assert list(work.iterdir()) == []  # out=None: nothing written, no shards left behind
    shown = _json(
        "score", "difficulty", "-i", sample_path, "--src-col", "es", "--src-lang", "es", "-o", tmp_path / "cli.parquet"
    )
    written = pd.read_parquet(tmp_path / "cli.parquet")
    pd.testing.assert_frame_equal(df, written)
    assert {**df.attrs["mtgauntlet.score"], "out": None} == {**shown, "out": None}
    assert df["difficulty"].notna().all() and len(df) == shown["rows"]

    api_out = mg.score("difficulty", input=sample_path, src_col="es", src_lang="es", out=tmp_path / "api.parquet")
    assert pq.read_table(tmp_path / "api.parquet").equals(pq.read_table(tmp_path / "cli.parquet"))
    assert api_out.attrs["mtgauntlet.score"]["out"] == str(tmp_path / "api.parquet")
    # an in-memory table gives the same scores
    rows = pd.read_csv(sample_path, sep="\t", quoting=csv.QUOTE_NONE, dtype=str, keep_default_na=False)
    again = mg.score("difficulty", input=rows, src_col="es", src_lang="es")
    assert again["difficulty"].tolist() == df["difficulty"].tolist()

    mg.score("difficulty", input=sample_path, src_col="es", src_lang="es", progress=True)
    out, err = capfd.readouterr()
    assert out == "" and "score difficulty" in err

    with pytest.raises(mg.UsageError, match="^--limit: "):
        mg.score("difficulty", input=sample_path, src_lang="es", limit=0)
    with pytest.raises(mg.UsageError, match="unknown kind"):
        mg.score("fluency", input=sample_path)
    with pytest.raises(mg.UsageError, match="unknown option"):
        mg.score("difficulty", input=sample_path, src_lang="es", qe="qe")
    with pytest.raises(mg.UsageError, match="^--format: "):
        mg.score("qe", input=sample_path, format="xml")
    with pytest.raises(mg.InputError):
        mg.score("difficulty", input=sample_path)  # no source language
    assert list(work.iterdir()) == []


def test_score_qe_usage_dry_run_and_budget(tmp_path, monkeypatch):
    for var in ("MTGAUNTLET_MAX_COST", "MTGAUNTLET_MAX_REQUESTS"):
        monkeypatch.setenv(var, "")
    pairs = [
        {"src": "Hello there.", "tgt": "Hola.", "lp": "en-es"},
        {"src": "Good night, see you tomorrow.", "tgt": "Buenas noches, hasta mañana.", "lp": "en-es"},
        {"src": "The committee approved the budget.", "tgt": "El comité aprobó el presupuesto.", "lp": "en-es"},
    ]
    table = tmp_path / "pairs.tsv"
    pd.DataFrame(pairs).to_csv(table, sep="\t", index=False)
    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        spec = f"llm-as-qe:openai:qa@{srv.url}#price=1/2"
        plan = mg.score("qe", input=pairs, qe=spec, dry_run=True)
        assert not srv.requests and f"openai:qa@{srv.url}#price=1/2: 3 calls" in "\n".join(plan.lines())
        df = mg.score("qe", input=pairs, qe=spec)
        assert len(srv.requests) == 3 and df["qe"].tolist() == [qe_a(p["src"], p["tgt"]) for p in pairs]
        usage = df.attrs["mtgauntlet.usage"][f"openai:qa@{srv.url}#price=1/2"]
        assert usage["requests"] == 3 and usage["cost_usd"] > 0
        shown = _json("score", "qe", "-i", table, "-o", tmp_path / "cli.parquet", "--qe", spec)
        assert shown["usage"].keys() == df.attrs["mtgauntlet.score"]["usage"].keys()  # (the cache answered the CLI)
        assert pd.read_parquet(tmp_path / "cli.parquet")["qe"].tolist() == df["qe"].tolist()

        fresh = f"llm-as-qe:openai:qb@{srv.url}"
        with pytest.raises(mg.BudgetSpent) as spent:
            mg.score("qe", input=pairs, qe=fresh, shard_size=1, max_requests=1, out=tmp_path / "cut.parquet")
        assert spent.value.exit_code == 3 and not (tmp_path / "cut.parquet").exists()
        resumed = mg.score("qe", input=pairs, qe=fresh, shard_size=1, out=tmp_path / "cut.parquet")
        assert resumed["qe"].tolist() == df["qe"].tolist() and not (tmp_path / "cut.parquet.work").exists()


def test_evaluate_metric_equals_the_cli_json(shared_data, capfd):
    demetr = shared_data / "demetr" / "demetr_dev.jsonl.gz"
    opts = dict(set=demetr, metric=["chrf", "bleu"], lp="de-en,fr-en", phenomena=["critical_id8_negation"])
    capfd.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mg.evaluate("metric", **opts)
    assert capfd.readouterr() == ("", "")
    shown = _json(
        "evaluate",
        "metric",
        "--set",
        demetr,
        "-m",
        "chrf,bleu",
        "--lp",
        "de-en,fr-en",
        "--phenomena",
        "critical_id8_negation",
    )
    assert _plain(res) == shown and res["metrics"] == ["chrf", "bleu"] and res["results"]
    assert all(issubclass(w.category, mg.GauntletWarning) for w in caught)
    with pytest.raises(mg.UsageError, match="^--ties: "):
        mg.evaluate("metric", set=demetr, ties="sometimes")
    with pytest.raises(mg.UsageError, match="no pairs left"):
        mg.evaluate("metric", set=demetr, lp="xx-yy")
    with pytest.raises(mg.UsageError, match="unknown kind"):
        mg.evaluate("metrics", set=demetr)


@pytest.fixture(scope="module")
def judgments(shared_data, tmp_path_factory):
    """WMT23 MQM en-de judgments of the first 25 source segments, every system, as a plain table."""
    path = shared_data / "wmt23-mqm-mtme" / "wmt23_mtme_seg_scores.tsv.gz"
    out = tmp_path_factory.mktemp("dec") / "judgments.tsv"
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f, out.open("w", encoding="utf-8", newline="") as g:
        w = csv.writer(g, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE, escapechar="\\")
        w.writerow(["lp", "item_id", "src", "system", "score", "is_human_ref"])
        segs: list[str] = []
        for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if r["lp"] != "en-de" or not r["mqm"] or "\\" in r["src"] or "\t" in r["src"]:
                continue
            if r["seg_id"] not in segs:
                if len(segs) == 25:
                    continue
                segs.append(r["seg_id"])
            w.writerow([r["lp"], r["seg_id"], r["src"], r["system"], r["mqm"], r["is_human_ref"]])
    return out


def test_evaluate_dec_and_bandit_equal_the_cli_json(judgments, sample_path, tmp_path, capfd):
    capfd.readouterr()
    res = mg.evaluate("dec", judgments=judgments, estimator="length", fraction=0.5, include_human=False)
    assert capfd.readouterr() == ("", "")
    shown = _json("evaluate", "dec", "-j", judgments, "-e", "length", "--fraction", "0.5", "--exclude-human")
    assert _plain(res) == shown and res["include_human"] is False and res["results"][0]["dec"] is not None
    mg.evaluate("dec", judgments=judgments, progress=True)
    out, err = capfd.readouterr()
    assert out == "" and "evaluate dec" in err
    with pytest.raises(mg.UsageError, match="^--fraction: "):
        mg.evaluate("dec", judgments=judgments, fraction=1.5)
    with pytest.raises(mg.InputError, match="no judgments"):
        mg.evaluate("dec", judgments=judgments, lp="xx-yy")

    # a pre-scored pool: the sample's sentences, their length difficulty, 7 topics
    scored = mg.score("difficulty", input=sample_path, src_col="es", src_lang="es")
    pool = tmp_path / "pool.tsv"
    scored.assign(topic=[f"t{i % 7}" for i in range(len(scored))])[["topic", "difficulty"]].to_csv(
        pool, sep="\t", index=False
    )
    res = mg.evaluate("bandit", pool=pool, budgets=[7, 14], k=2, repeats=2, algorithms="brute,greedy", min_samples=1)
    shown = _json(
        "evaluate",
        "bandit",
        "--pool",
        pool,
        "--budgets",
        "7,14",
        "--k",
        "2",
        "--repeats",
        "2",
        "--algorithms",
        "brute,greedy",
        "--min-samples",
        "1",
    )
    assert _plain(res) == shown and res["topics"] == 7
    with pytest.raises(mg.UsageError, match="^--budgets"):
        mg.evaluate("bandit", pool=pool, budgets="a,b")


def _no_timing(res):
    return {
        **res,
        "algorithms": {
            a: {k: v for k, v in r.items() if k not in ("seconds", "pulls_per_s")} for a, r in res["algorithms"].items()
        },
    }


def test_simulate_and_models_equal_the_cli_json(tmp_path, capfd):
    capfd.readouterr()
    res = mg.simulate("bandit", topics=2000, budget=3000, k=5, plot=tmp_path / "sim.png")
    assert capfd.readouterr() == ("", "")
    shown = _json("simulate", "bandit", "--topics", "2000", "--budget", "3000", "--k", "5")
    assert _no_timing(_plain({k: v for k, v in res.items() if k != "plot"})) == _no_timing(shown)
    assert res["plot"] == str(tmp_path / "sim.png") and (tmp_path / "sim.png").stat().st_size > 0
    scaling = mg.simulate("bandit", sizes=[100, 1000], k=5)
    assert _plain(scaling) == _json("simulate", "bandit", "--sizes", "100,1000", "--k", "5")
    with pytest.raises(mg.UsageError, match="^--epsilon: "):
        mg.simulate("bandit", epsilon=1.5)
    with pytest.raises(mg.UsageError, match="^--k 20 is more than --topics 10"):
        mg.simulate("bandit", topics=10, k=20)

    import mtgauntlet.models.registry  # noqa: F401  (mtgauntlet.models is then the package: still callable)

    df = mg.list_models()
    assert capfd.readouterr() == ("", "")
    shown = _json("models")
    assert df.to_dict("records") == shown["embedded"]
    assert {"embedded": df.to_dict("records"), **df.attrs} == shown and "openai" in df.attrs["backends"]
