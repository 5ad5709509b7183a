import json
import shutil

import pyarrow.parquet as pq
import pytest

from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.catalog import QueryRefused, run_query
from mtgauntlet.releases.manifest import sha256_file
from mtgauntlet.releases.release import make_release
from tests.support.cli import invoke
from tests.support.release_helpers import run_main


@pytest.fixture(scope="module")
def built(tmp_path_factory, sample_path):
    out = tmp_path_factory.mktemp("builds")
    r = invoke(
        [
            "build",
            "subset",
            "--input",
            str(sample_path),
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--domain-col",
            "domain",
            "--budget",
            "6",
            "--stratify",
            "domain",
            "--out",
            str(out / "subset"),
        ]
    )
    assert r.exit_code == 0, r.output
    return out


def test_subset_build_and_query(built):
    df = run_query(built, "SELECT * FROM selected_text ORDER BY rank")
    assert len(df) == 6 and list(df["rank"]) == [1, 2, 3, 4, 5, 6]
    assert df["difficulty"].is_monotonic_decreasing
    assert set(df["domain"]) == {"news", "travel", "science", "daily"}  # stratified: every domain kept


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TABLE x AS SELECT 1",
        "INSERT INTO selected_text VALUES (1)",
        "DROP VIEW selected_text",
        "COPY selected_text TO 'x.csv'",
        "SELECT 1; DROP VIEW selected_text",
        "ATTACH 'x.db'",
        "SET threads = 1",
        "EXPLAIN ANALYZE SELECT 1",
        "EXPLAIN /* x */ ANALYZE SELECT 1",
        "EXPLAIN COPY selected_text TO 'x.csv'",
        "PRAGMA version",
        "CALL pragma_version()",
    ],
)
def test_query_is_read_only(built, sql, monkeypatch, capsys):
    with pytest.raises(QueryRefused):
        run_query(built, sql)
    code, out, err = run_main(monkeypatch, capsys, "query", "--releases", built, sql)
    assert code == 2 and err.startswith(("error: read-only catalog", "error: cannot parse")), err


def test_explain_and_select_forms_are_allowed(built):
    assert len(run_query(built, "EXPLAIN SELECT * FROM selected_text")) >= 1
    assert run_query(built, "FROM selected_text SELECT count(*) AS n")["n"][0] == 6
    assert run_query(built, "WITH t AS (SELECT rank FROM selected_text) SELECT max(rank) AS m FROM t")["m"][0] == 6


@pytest.fixture(scope="module")
def released(built, tmp_path_factory):
    root = tmp_path_factory.mktemp("catalog") / "releases"
    rel = make_release([built / "subset"], "cat", "0.1.0", out=root)
    return root, rel


def test_catalog_attacks_write_nothing_and_fetch_nothing(released, tmp_path, monkeypatch, capsys):
    root, rel = released
    target = rel / "data" / "selected_text" / "es-en" / "records.parquet"
    before = sha256_file(target)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # DuckDB installs extensions under ~/.duckdb
    attacks = {  # statement -> what stops it
        f"EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{target}' (FORMAT parquet)": "read-only catalog",
        f"COPY (SELECT 1 AS x) TO '{root}/x.csv'": "read-only catalog",  # inside the root: the parser check
        "SELECT * FROM read_text('/etc/passwd')": "disabled by configuration",  # a SELECT: the locked settings
        f"SELECT * FROM read_parquet('{root}/../../x.parquet')": "disabled by configuration",
        "SELECT * FROM read_csv('https://example.com/x.csv')": "disabled by configuration",
        # extension types/functions: with autoinstall on DuckDB tries to download inet / excel here
        "SELECT '127.0.0.1'::INET AS ip": "is not in the catalog, but it exists in the inet extension",
        "SELECT * FROM read_xlsx('x.xlsx')": "is not in the catalog, but it exists in the excel extension",
        "SET enable_external_access = true": "read-only catalog",
    }
    for sql, why in attacks.items():
        code, out, err = run_main(monkeypatch, capsys, "query", "--releases", root, sql)
        assert code == 2 and err.startswith("error: ") and len(err.splitlines()) == 1, (sql, err)
        assert why in err and "install" not in err, (sql, err)
    assert sha256_file(target) == before
    assert not (root / "x.csv").exists() and not (tmp_path / "home").exists()
    assert run_query(root, "SELECT count(*) AS n FROM selected_text")["n"][0] == 6


def test_kind_metadata_holding_sql_is_never_executed(released, tmp_path):
    root, rel = released
    other = tmp_path / "root"
    shutil.copytree(root, other)
    src = other / "name=cat" / "version=0.1.0" / "data" / "selected_text" / "es-en" / "records.parquet"
    t = pq.read_table(src)
    evil = (f"x AS SELECT 1; COPY (SELECT 42 AS pwned) TO '{tmp_path}/pwned.csv'; CREATE VIEW y").encode()
    pq.write_table(t.replace_schema_metadata({**t.schema.metadata, b"mtgauntlet.kind": evil}), other / "evil.parquet")
    assert run_query(other, "SELECT 1 AS one")["one"][0] == 1
    assert run_query(other, "SELECT count(*) AS n FROM selected_text")["n"][0] == 6
    assert not (tmp_path / "pwned.csv").exists()


def test_release_names_are_validated_before_sql(built, released, tmp_path):
    root, rel = released
    with pytest.raises(GauntletError, match="invalid release name"):
        make_release([built / "subset"], "cat\n", "0.2.0", out=root)
    other = tmp_path / "root"
    shutil.copytree(root, other)
    shutil.copytree(other / "name=cat", other / "name=cat'; DROP VIEW x; --\n")  # made by hand, not by mtgauntlet
    df = run_query(other, "SELECT name, count(*) AS n FROM selected_text GROUP BY name")
    assert df["name"].tolist() == ["cat"] and df["n"].tolist() == [6]
    assert run_query(other, "SELECT name FROM releases")["name"].tolist() == ["cat"]


def test_runtime_sql_error_is_one_line(built, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "query", "--releases", built, "SELECT * FROM nosuchtable")
    assert code == 2 and err.startswith("error: query failed: Catalog Error") and len(err.splitlines()) == 1
    assert "nosuchtable" in err and "Traceback" not in err


def test_query_formats(built):
    r = invoke(["query", "-r", str(built), "-f", "json", "SELECT rank, text FROM selected_text ORDER BY rank"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert [x["rank"] for x in rows] == [1, 2, 3, 4, 5, 6]
    r = invoke(["query", "-r", str(built), "-f", "csv", "SELECT count(*) AS n FROM selected_text"])
    assert r.output.splitlines() == ["n", "6"]


def test_help_lists_every_verb_and_each_verb_has_help():
    r = invoke(["--help"])
    verbs = ("build", "validate", "release", "verify", "publish", "query", "evaluate", "score", "simulate", "models")
    for verb in verbs:
        assert verb in r.output
        sub = invoke([verb, "--help"])
        assert sub.exit_code == 0 and "Usage" in sub.output, verb
    for sub in (
        ["build", "smaug"],
        ["build", "mtbreaker"],
        ["build", "zeroshot"],
        ["build", "bandit"],
        ["build", "subset"],
        ["evaluate", "metric"],
        ["evaluate", "dec"],
        ["simulate", "bandit"],
    ):
        assert invoke([*sub, "--help"]).exit_code == 0, sub
    r = invoke(["frobnicate"])
    assert r.exit_code != 0


def test_models_lists_embedded():
    r = invoke(["models", "--json"])
    data = json.loads(r.stdout)
    roles = {row["role"] for row in data["embedded"]}
    assert {"llm", "embedder", "annotator", "nli", "infiller"} <= roles
    nli = [row for row in data["embedded"] if row["role"] == "nli"][0]
    assert nli["installed"] is False and "hf:" in nli["what"]


def test_bad_input_error_is_clear(tmp_path):
    p = tmp_path / "in.tsv"
    p.write_text("src\tdomain\nHola\tnews\n\tnews\n", encoding="utf-8")
    r = invoke(["build", "subset", "-i", str(p), "--src-lang", "es", "--out", str(tmp_path / "o")])
    assert r.exit_code != 0
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "line 3" in r.stderr and "'src'" in r.stderr
    r = invoke(
        [
            "build",
            "subset",
            "-i",
            str(p),
            "--src-lang",
            "es",
            "--out",
            str(tmp_path / "o"),
            "--skip-bad",
            "--budget",
            "1",
        ]
    )
    assert r.exit_code == 0, r.output
    m = json.loads((tmp_path / "o" / "build.json").read_text())
    assert m["counts"]["produced"] == 1
