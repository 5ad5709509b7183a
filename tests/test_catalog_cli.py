import json

import pytest
from typer.testing import CliRunner

from mtgauntlet.cli.main import app
from mtgauntlet.releases.catalog import QueryRefused, run_query

runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory, sample_path):
    out = tmp_path_factory.mktemp("builds")
    r = runner.invoke(app, ["build", "subset", "--input", str(sample_path), "--src-col", "es", "--src-lang", "es",
                            "--tgt-lang", "en", "--domain-col", "domain", "--budget", "6", "--stratify", "domain",
                            "--out", str(out / "subset")])
    assert r.exit_code == 0, r.output
    return out


def test_subset_build_and_query(built):
    df = run_query(built, "SELECT * FROM selected_text ORDER BY rank")
    assert len(df) == 6 and list(df["rank"]) == [1, 2, 3, 4, 5, 6]
    assert df["difficulty"].is_monotonic_decreasing
    assert set(df["domain"]) == {"news", "travel", "science", "daily"}  # stratified: every domain kept


@pytest.mark.parametrize("sql", ["CREATE TABLE x AS SELECT 1", "INSERT INTO selected_text VALUES (1)",
                                 "DROP VIEW selected_text", "COPY selected_text TO 'x.csv'",
                                 "SELECT 1; DROP VIEW selected_text", "ATTACH 'x.db'"])
def test_query_is_read_only(built, sql):
    with pytest.raises(QueryRefused):
        run_query(built, sql)
    r = runner.invoke(app, ["query", "--releases", str(built), sql])
    assert r.exit_code != 0


def test_query_formats(built):
    r = runner.invoke(app, ["query", "-r", str(built), "-f", "json", "SELECT rank, text FROM selected_text ORDER BY rank"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert [x["rank"] for x in rows] == [1, 2, 3, 4, 5, 6]
    r = runner.invoke(app, ["query", "-r", str(built), "-f", "csv", "SELECT count(*) AS n FROM selected_text"])
    assert r.output.splitlines() == ["n", "6"]


def test_help_lists_every_verb_and_each_verb_has_help():
    r = runner.invoke(app, ["--help"])
    verbs = ("build", "validate", "release", "verify", "publish", "query", "evaluate", "score", "simulate", "models")
    for verb in verbs:
        assert verb in r.output
        sub = runner.invoke(app, [verb, "--help"])
        assert sub.exit_code == 0 and "Usage" in sub.output, verb
    for sub in (["build", "smaug"], ["build", "mtbreaker"], ["build", "zeroshot"], ["build", "bandit"],
                ["build", "subset"], ["evaluate", "metric"], ["evaluate", "dec"], ["simulate", "bandit"]):
        assert runner.invoke(app, [*sub, "--help"]).exit_code == 0, sub
    r = runner.invoke(app, ["frobnicate"])
    assert r.exit_code != 0


def test_models_lists_embedded():
    r = runner.invoke(app, ["models", "--json"])
    data = json.loads(r.output)
    roles = {row["role"] for row in data["embedded"]}
    assert {"llm", "embedder", "annotator", "nli", "infiller"} <= roles
    nli = [row for row in data["embedded"] if row["role"] == "nli"][0]
    assert nli["installed"] is False and "hf:" in nli["what"]


def test_bad_input_error_is_clear(tmp_path):
    p = tmp_path / "in.tsv"
    p.write_text("src\tdomain\nHola\tnews\n\tnews\n", encoding="utf-8")
    r = runner.invoke(app, ["build", "subset", "-i", str(p), "--src-lang", "es", "--out", str(tmp_path / "o")])
    assert r.exit_code != 0
    assert isinstance(r.exception, Exception) and "line 3" in str(r.exception) and "'src'" in str(r.exception)
    r = runner.invoke(app, ["build", "subset", "-i", str(p), "--src-lang", "es", "--out", str(tmp_path / "o"),
                            "--skip-bad", "--budget", "1"])
    assert r.exit_code == 0, r.output
    m = json.loads((tmp_path / "o" / "build.json").read_text())
    assert m["counts"]["produced"] == 1
