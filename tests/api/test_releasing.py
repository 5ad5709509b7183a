"""A notebook's release flow through the Python API only (issue #27): mg.release -> mg.verify -> mg.query ->
mg.audit -> mg.publish, silent by default, warnings as GauntletWarnings, errors raised (never printed, never
SystemExit), and the same release, query result and publish plan as the `gauntlet` commands give."""

from __future__ import annotations

import hashlib
import json
import math
import warnings

import pandas as pd
import pytest

import mtgauntlet as mg
from tests.support.cli import invoke
from tests.support.release_helpers import cli


@pytest.fixture(scope="module")
def validated(tmp_path_factory, sample_path):
    """A subset build of the shipped sample and its validation report (both through the CLI for now)."""
    root = tmp_path_factory.mktemp("api-rel")
    cli(
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
        root / "subset",
    )
    cli("validate", root / "subset", "--report", root / "report")
    return root / "subset", root / "report"


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _release_both_ways(validated, tmp_path):
    build, report = validated
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rel = mg.release([build], name="nb", version="0.1.0", out=tmp_path / "api", report=report)
    by_cli = invoke(
        ["release", build, "--name", "nb", "--version", "0.1.0", "--out", tmp_path / "cli", "--report", report]
    )
    assert by_cli.exit_code == 0, by_cli
    return rel, caught, by_cli


def test_release_verify_query_audit_silently_as_the_cli_does(validated, tmp_path, capfd):
    capfd.readouterr()
    rel, caught, by_cli = _release_both_ways(validated, tmp_path)
    api_out, api_err = capfd.readouterr()  # the CLI's output went to invoke's buffers, the API's nowhere
    assert (api_out, api_err) == ("", "")
    assert rel.path == tmp_path / "api" / "name=nb" / "version=0.1.0" and rel.name == "nb" and rel.version == "0.1.0"
    # the sample is not recognised without --input-file: its licence is unknown, which is warned about
    assert rel.warnings and all(w.startswith("licence: ") for w in rel.warnings)
    assert [str(w.message) for w in caught if issubclass(w.category, mg.GauntletWarning)] == rel.warnings
    assert [f"warning: {w}" for w in rel.warnings] == [
        line for line in by_cli.stderr.splitlines() if line.startswith("warning:")
    ]
    assert rel.not_validated == [] and rel.manifest["validation"]["selected_text"]["passed"] is True
    # the same files; the same bytes in every data file
    cli_dir = tmp_path / "cli" / "name=nb" / "version=0.1.0"
    cli_manifest = json.loads((cli_dir / "manifest.json").read_text())
    assert [f["path"] for f in rel.manifest["files"]] == [f["path"] for f in cli_manifest["files"]]
    data = [f["path"] for f in rel.manifest["files"] if f.get("kind")]
    assert data and all(_sha256(rel.path / p) == _sha256(cli_dir / p) for p in data)
    assert rel.to_pandas().equals(pd.read_parquet(cli_dir / data[0]))

    check = mg.verify(rel)
    assert check.ok and bool(check) and check.problems == [] and check.path == rel.path

    sql = "SELECT id, text, difficulty FROM latest_selected_text ORDER BY id"
    df = mg.query(sql, releases=tmp_path / "api")
    shown = invoke(["query", "--releases", tmp_path / "cli", "-f", "json", sql])
    assert shown.exit_code == 0, shown
    assert df.to_dict("records") == json.loads(shown.stdout) and len(df) == rel.manifest["total_rows"]

    page = mg.audit(rel, out=tmp_path / "audit.html")
    assert page == tmp_path / "audit.html" and "nb 0.1.0" in page.read_text(encoding="utf-8")
    assert capfd.readouterr() == ("", "")
    mg.audit(rel, out=tmp_path / "shown.html", progress=True)  # asked for: a progress display, on stderr only
    out, err = capfd.readouterr()
    assert out == "" and "audit" in err


def test_query_keeps_null_nan_and_nested_values_exact(validated, tmp_path):
    mg.release(validated[0], name="q", version="1.0.0", out=tmp_path)
    df = mg.query(
        "SELECT CAST(NULL AS DOUBLE) AS null_float, 'NaN'::DOUBLE AS nan, CAST(NULL AS INTEGER) AS "
        "null_int, 7 AS seven, [1, NULL] AS list, {'a': 1.5} AS struct, count(*) AS n "
        "FROM selected_text",
        releases=tmp_path,
    )
    row = df.iloc[0]
    assert row["null_float"] is pd.NA and math.isnan(row["nan"]) and row["null_int"] is pd.NA
    assert row["seven"] == 7 and str(df["null_int"].dtype).startswith("int32")
    assert list(row["list"]) == [1, None] and dict(row["struct"]) == {"a": 1.5} and row["n"] == 6


def test_warnings_of_the_catalog_are_gauntlet_warnings(validated, tmp_path):
    rel = mg.release(validated[0], name="w", version="0.1.0", out=tmp_path)
    (rel.path / "manifest.json").write_text("{not json")
    with pytest.warns(mg.GauntletWarning, match=r"^catalog: skipped name=w/version=0.1.0.*manifest") as caught:
        assert mg.query("SELECT 1 AS x", releases=tmp_path).to_dict("records") == [{"x": 1}]
    assert caught[0].filename == __file__  # shown at the caller's line, not inside mtgauntlet


def test_errors_are_raised_not_printed(validated, tmp_path, capfd):
    build, _ = validated
    capfd.readouterr()
    with pytest.raises(mg.GauntletError, match="invalid version '1.0'"):
        mg.release([build], name="e", version="1.0", out=tmp_path)
    with pytest.raises(mg.UsageError, match="^builds: "):
        mg.release([], name="e", version="1.0.0", out=tmp_path)
    rel = mg.release(build, name="e", version="1.0.0", out=tmp_path)
    with pytest.raises(mg.GauntletError, match="already exists"):
        mg.release([build], name="e", version="1.0.0", out=tmp_path)
    with pytest.raises(mg.GauntletError, match="read-only catalog"):
        mg.query("DELETE FROM selected_text", releases=tmp_path)
    with pytest.raises(mg.UsageError, match="^--examples: "):
        mg.audit(rel, out=tmp_path / "a.html", examples=-1)
    with pytest.raises(mg.GauntletError, match="manifest.json"):
        mg.verify(build)  # a build is no release
    # a changed file is a problem to return (the CLI prints it as MISMATCH and exits 1), not an exception
    data = next(f["path"] for f in rel.manifest["files"] if f.get("kind"))
    with open(rel.path / data, "ab") as fh:
        fh.write(b"\0")
    check = mg.verify(rel.path)
    assert not check.ok and len(check.problems) == 1 and check.problems[0].startswith(f"{data}: changed")
    assert capfd.readouterr() == ("", "")
    shown = invoke(["verify", rel.path])
    assert shown.exit_code == 1 and shown.stderr.splitlines() == [f"MISMATCH {p}" for p in check.problems]


def test_publish_plans_and_publishes_like_the_cli(validated, tmp_path, capfd):
    rel = mg.release(validated[0], name="p", version="0.1.0", out=tmp_path / "releases")
    repo = f"file:{tmp_path / 'hub.git'}"
    capfd.readouterr()
    plan = mg.publish(rel, repo=repo, dry_run=True)
    assert plan.dry_run and plan.commit is None and plan.tag == "v0.1.0" and plan.remote == "missing"
    assert {"op": "add", "path": "manifest.json"} in plan.operations
    shown = invoke(["publish", rel.path, "--repo", repo, "--dry-run", "--json"])
    assert shown.exit_code == 0 and json.loads(shown.stdout)["operations"] == plan.operations
    done = mg.publish(rel.path, repo=repo)
    assert done.commit and not done.dry_run and not done.already_published
    assert capfd.readouterr() == ("", "")
    again = mg.publish(rel.path, repo=repo)  # the tag holds exactly this release: nothing to send, no error
    assert again.already_published and again.commit == done.commit and again.operations == []
