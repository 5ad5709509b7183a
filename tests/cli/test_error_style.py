"""Issue #17: one error style (`error: …` on one line, exit 2; exit 1 only for a failed rule), no traceback,
arguments checked before any work, and the CLI conventions (--version, real subcommands, help texts)."""

from __future__ import annotations

import pytest

from tests.support.cli import invoke, invoke_subprocess


def _sample_args(sample_path, out):
    return ["--input", str(sample_path), "--src-col", "es", "--src-lang", "es", "--out", str(out)]


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--budget", "0"], "--budget"),
        (["--budget", "-3"], "--budget"),
        (["--shard-size", "0"], "--shard-size"),
        (["--limit", "0"], "--limit"),
        (["--estimator", "lenght"], "lenght"),
        (["--src-lang", "klingon"], "klingon"),
        (["--quoting", "weird"], "weird"),
    ],
)
def test_bad_build_arguments_are_one_line_errors_before_any_work(tmp_path, sample_path, extra, needle):
    out = tmp_path / "o"
    r = invoke(["build", "subset", *_sample_args(sample_path, out), *extra])
    assert r.exit_code == 2, r
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], r
    assert "Traceback" not in r.output and not (out / "build.json").exists()


def test_unknown_output_format_fails_before_scoring(tmp_path, sample_path):
    r = invoke(
        [
            "score",
            "difficulty",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--estimator",
            "syntax",
            "--out",
            tmp_path / "scores.xlsx",
        ]
    )
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "unknown output format" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "scores.xlsx").exists()


def test_every_metric_validate_computes_is_a_known_rule_name(tmp_path, sample_path):
    import json

    from mtgauntlet.validators.metric_names import is_known
    from mtgauntlet.validators.rules import Rules

    assert all(is_known(t.metric) for t in Rules.default().thresholds)
    out = tmp_path / "s"
    assert (
        invoke(
            [
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
                "--out",
                out,
            ]
        ).exit_code
        == 0
    )
    report = json.loads(invoke(["validate", out, "--json"]).stdout)
    names = set(report["kinds"]["smaug_pair"]["metrics"])
    assert names and not [m for m in names if not is_known(m)]


def test_unknown_rule_name_is_an_error_with_its_line(tmp_path, sample_path):
    out = tmp_path / "b"
    assert invoke(["build", "subset", *_sample_args(sample_path, out), "--budget", "5"]).exit_code == 0
    rules = tmp_path / "rules.yaml"
    rules.write_text("version: 1\nthresholds:\n  ids.duplicates: {max: 0}\n  chrf_diversty: {min: 0.5}\n")
    r = invoke(["validate", out, "--rules", rules])
    assert r.exit_code == 2 and "line 4" in r.stderr and "chrf_diversty" in r.stderr and "chrf_diversity" in r.stderr
    rules.write_text("version: 1\noptions:\n  max_text: 10\n")
    r = invoke(["validate", out, "--rules", rules])
    assert r.exit_code == 2 and "max_text" in r.stderr and "line 3" in r.stderr
    rules.write_text("version: 1\nthresholds:\n  chrf_diversity: {min: 1.1}\n")
    r = invoke(["validate", out, "--rules", rules])
    assert r.exit_code == 1 and "FAIL" in r.stdout  # a failed rule is exit 1, not an error


def test_version_and_subcommand_help():
    r = invoke_subprocess(["--version"])
    assert r.exit_code == 0 and r.stdout.startswith("mtgauntlet ")
    r = invoke(["validate", "diversity", "--help"])
    assert r.exit_code == 0 and "--column" in r.stdout and "--rules" not in r.stdout
    r = invoke(["validate", "--help"])
    assert r.exit_code == 0 and "--rules" in r.stdout and "diversity" in r.stdout
    r = invoke(["build", "subset", "--help"])
    assert "<bool>" not in r.stdout and "--no-skip-bad" not in r.stdout and "--skip-bad" in r.stdout


def test_usage_error_is_one_line(tmp_path):
    r = invoke(["build", "subset", "--budget", "5"])
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "--input" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = invoke(["nosuchverb"])
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1


def test_validate_diversity_reads_any_table(tmp_path, sample_path):
    r = invoke(["validate", "diversity", "--input", sample_path, "--column", "es", "--embedder", "e5", "--json"])
    assert r.exit_code == 0, r
    import json

    res = json.loads(r.stdout)
    assert res["n"] == 42 and 0 < res["chrf_diversity"] <= 1


@pytest.mark.slow
def test_great_expectations_output_stays_quiet_without_verbose(tmp_path, sample_path):
    out = tmp_path / "b"
    assert invoke(["build", "subset", *_sample_args(sample_path, out), "--budget", "5"]).exit_code == 0
    r = invoke(["validate", out, "--gx", "--report", tmp_path / "rep"])
    assert r.exit_code == 0 and (tmp_path / "rep" / "gx-docs" / "index.html").exists()
    assert "Calculating Metrics" not in r.output and "INFO" not in r.output


def test_every_reported_traceback_is_now_one_line(tmp_path, sample_path):
    """Issue #17 point 5, each case through the real entry point: one `error:` line, exit 2, no traceback."""
    sub = tmp_path / "sub"
    assert invoke(["build", "subset", *_sample_args(sample_path, sub), "--budget", "5"]).exit_code == 0
    rel_root = tmp_path / "releases"
    assert invoke(["release", sub, "--name", "x", "--version", "0.1.0", "--out", rel_root]).exit_code == 0
    rel = rel_root / "name=x" / "version=0.1.0"
    broken = tmp_path / "broken"
    import shutil

    shutil.copytree(rel_root, broken)
    (broken / "name=x" / "version=0.1.0" / "manifest.json").write_text("{not json")
    qe_table = tmp_path / "qe.tsv"
    qe_table.write_text("src\ttgt\tlp\nHola\tHello\tes-en\n", encoding="utf-8")
    regular = tmp_path / "a-file"
    regular.write_text("x")
    cases = [
        ["build", "subset", *_sample_args(sample_path, tmp_path / "o1"), "--budget", "0"],
        ["build", "subset", *_sample_args(sample_path, tmp_path / "o2"), "--budget", "-3"],
        [
            "build",
            "bandit",
            "--corpus",
            sample_path,
            "--text-column",
            "en",
            "--topic-column",
            "domain",
            "--budget",
            "0",
            "--out",
            tmp_path / "o3",
        ],
        ["build", "subset", *_sample_args(sample_path, tmp_path / "o4"), "--shard-size", "0"],
        ["build", "subset", *_sample_args(sample_path, tmp_path / "o5"), "--limit", "0"],
        ["build", "subset", *_sample_args(sample_path, tmp_path / "o6"), "--estimator", "lenght"],
        [
            "score",
            "difficulty",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--out",
            tmp_path / "x.xlsx",
        ],
        ["score", "qe", "--input", qe_table, "--qe", "llm-as-qe:openai:m@notaurl", "--out", tmp_path / "q.tsv"],
        ["query", "--releases", rel_root, "SELECT * FROM nosuchtable"],
        ["query", "--releases", broken, "SELECT * FROM selected_text"],  # the unreadable release is skipped
        ["verify", broken / "name=x" / "version=0.1.0"],
        ["publish", rel, "--repo", f"file:{regular}"],
        ["publish", rel, "--repo", "someone/nothing"],
    ]
    for args in cases:
        r = invoke(args, env={"HF_HUB_OFFLINE": "1"})
        lines = r.stderr.strip().splitlines()
        assert r.exit_code == 2, (args, r)
        assert lines and lines[-1].startswith("error: ") and "Traceback" not in r.output, (args, r)
    assert not any((tmp_path / f"o{i}" / "build.json").exists() for i in range(1, 7))
