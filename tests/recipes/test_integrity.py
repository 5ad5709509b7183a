"""Issue #25 (the third integrity round), recipe items 7, 11, 13, 14, 15 and 18, and issue #26 point 2, each
through the real entry point: names and paths are refused before anything is written, recipe YAML is loaded
bounded and strict, `reproduce` verifies first and finds inputs as `run` did, a re-run does nothing new, paths
resolve against the recipe's folder, an interrupted build resumes, outputs follow the umask, and the audit
step takes `against:`."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.recipes.test_run_and_reproduce import RECIPE, _release, _run, recipe_dir  # noqa: F401  (recipe_dir is a fixture)
from tests.support.cli import REPO, invoke, invoke_subprocess


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


def _one_error_line(r, *needles: str) -> str:
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "internal error" not in err[0], r
    for needle in needles:
        assert needle in err[0], r
    return err[0]


# -- item 7: names and paths refused before anything is written -------------------------------------------
@pytest.mark.parametrize("name", ["../../x", "ABSOLUTE", "demo\nx"])
def test_release_name_that_leaves_the_work_directory_is_refused_before_writing(recipe_dir, monkeypatch, name):
    d = recipe_dir
    name = str(d / "abs") if name == "ABSOLUTE" else name
    (d / "recipe.yaml").write_text(RECIPE.replace("name: rc-demo", f"name: {json.dumps(name)}"), encoding="utf-8")
    cwd = d / "a" / "b"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)
    before = _files(d)
    r = invoke(["run", d / "recipe.yaml"])  # default --work gauntlet-work/<name>, default --releases
    assert r.exit_code == 2, r
    _one_error_line(r, "recipe.yaml, line 3, field 'release.name'", "invalid release name")
    assert _files(d) == before  # no build, no resolved recipe, nowhere


def test_release_version_is_checked_before_writing(recipe_dir):
    d = recipe_dir
    (d / "recipe.yaml").write_text(RECIPE.replace("version: 0.1.0", "version: ../1"), encoding="utf-8")
    r = _run(d)
    assert r.exit_code == 2 and not (d / "work").exists(), r
    _one_error_line(r, "line 4", "invalid version")


BOMB = """\
recipe: 1
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
j: &j [*i,*i,*i,*i,*i,*i,*i,*i,*i]
k: [*j,*j,*j,*j,*j,*j,*j,*j,*j]
"""


def test_yaml_alias_bomb_is_refused_at_once(tmp_path):
    (tmp_path / "bomb.yaml").write_text(BOMB, encoding="utf-8")
    t0 = time.monotonic()
    r = invoke_subprocess(["run", tmp_path / "bomb.yaml", "--work", tmp_path / "w"], timeout=60)
    assert r.exit_code == 2, r
    _one_error_line(r, "bomb.yaml, line", "expands to more than")
    assert time.monotonic() - t0 < 30 and not (tmp_path / "w").exists()


@pytest.mark.parametrize(
    "edit, line, needle",
    [
        (
            lambda y: y.replace("    budget: 8\n", "    budget: 8\n    budget: 9\n"),
            13,
            "duplicate key 'budget' (first on line 12)",
        ),
        (
            lambda y: y.replace("builds:\n", "builds:\n  x: !!python/object/apply:os.system ['touch pwned']\n"),
            7,
            "YAML tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed",
        ),
        (lambda y: y.replace("Two builds", "Two b\xe9ilds"), 5, "not UTF-8 text (byte 0xe9)"),
        (lambda y: y.replace("validate: {}\n", "validate: &v {rules: *v}\n"), 23, "recursive YAML alias"),
        (lambda y: y.replace("validate: {}\n", "validate: " + "[" * 90 + "]" * 90 + "\n"), 23, "nested deeper than"),
    ],
)
def test_malformed_recipe_yaml_is_one_line_naming_file_and_line(recipe_dir, edit, line, needle):
    d = recipe_dir
    (d / "recipe.yaml").write_bytes(edit(RECIPE).encode("latin-1"))
    r = _run(d)
    assert r.exit_code == 2, r
    _one_error_line(r, "recipe.yaml", f"line {line}", needle)
    assert not (d / "work").exists() and not (d / "pwned").exists()


def test_step_paths_are_checked_before_writing(recipe_dir):
    d = recipe_dir
    (d / "recipe.yaml").write_text(RECIPE.replace("validate: {}", "validate: {rules: nope.yaml}"), encoding="utf-8")
    r = _run(d)
    assert r.exit_code == 2 and not (d / "work").exists(), r
    _one_error_line(r, "line 23", "field 'validate.rules'", "not found")


# -- items 11 and 14: reproduce verifies the release first ------------------------------------------------
@pytest.mark.parametrize(
    "tamper, code, needle",
    [
        (lambda rel: (rel / "extra.txt").write_text("x"), 1, "extra.txt: extra file, not in the manifest"),
        (
            lambda rel: (rel / "recipe.yaml").write_text((rel / "recipe.yaml").read_text() + "# edited\n"),
            1,
            "recipe.yaml: changed",
        ),
        (
            lambda rel: (rel / "manifest.json").write_text('{"files": [', encoding="utf-8"),
            2,
            "corrupt release manifest",
        ),
    ],
)
def test_reproduce_refuses_a_release_that_does_not_verify(recipe_dir, tamper, code, needle):
    d = recipe_dir
    assert _run(d).exit_code == 0
    tamper(_release(d))
    r = invoke(["reproduce", _release(d), "--inputs", d, "--work", d / "again"])
    assert r.exit_code == code and "REPRODUCED" not in r.stdout, r
    _one_error_line(r, needle)
    assert not (d / "again").exists()  # refused before rebuilding


# -- items 13 and 18: relative paths, moved inputs, the temporary rebuild folder ------------------------
def _relative_layout(root: Path, sample_path: Path) -> Path:
    """root/recipes/r.yaml whose input is ../data/sample.tsv (as examples/demo.yaml is laid out)."""
    (root / "data").mkdir()
    shutil.copy(sample_path, root / "data" / "sample.tsv")
    (root / "recipes").mkdir()
    text = RECIPE.replace("input: sample.tsv", "input: ../data/sample.tsv").replace("validate: {}\n", "")
    (root / "recipes" / "r.yaml").write_text(text, encoding="utf-8")
    return root / "recipes" / "r.yaml"


def test_reproduce_resolves_inputs_as_run_did_and_finds_moved_ones_by_sha256(tmp_path, sample_path, monkeypatch):
    _relative_layout(tmp_path, sample_path)
    monkeypatch.chdir(tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where reproduce makes its temporary folder
    assert invoke(["run", "recipes/r.yaml", "--work", "w"]).exit_code == 0
    rel = "releases/name=rc-demo/version=0.1.0"
    r = invoke(["reproduce", rel])  # from the directory `run` ran in, no --inputs
    assert r.exit_code == 0 and "REPRODUCED" in r.stdout, r
    assert list(scratch.iterdir()) == []  # the temporary rebuild folder is gone
    stash = tmp_path / "stash" / "deep"
    stash.mkdir(parents=True)
    shutil.move(tmp_path / "data" / "sample.tsv", stash / "renamed.tsv")
    (stash / "other.tsv").write_text("es\ten\nhola\thello\n", encoding="utf-8")
    r = invoke(["reproduce", rel])
    assert r.exit_code == 2 and "--inputs" in r.stderr, r
    r = invoke(["reproduce", rel, "--inputs", tmp_path / "stash", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["reproduced"] and json.loads(r.stdout)["rebuild"] is None, r
    # a rebuild that differs (exit 1) removes its temporary folder too
    text = (stash / "renamed.tsv").read_text(encoding="utf-8").replace("El presidente", "El PRESIDENTE")
    (stash / "renamed.tsv").unlink()
    (tmp_path / "stash" / "sample.tsv").write_text(text, encoding="utf-8")  # found by name, other bytes
    r = invoke(["reproduce", rel, "--inputs", tmp_path / "stash"])
    assert r.exit_code == 1 and "NOT REPRODUCED" in r.stdout, r
    assert list(scratch.iterdir()) == []


# -- items 15 and 18: a re-run does nothing new; every path relative to the recipe's folder -------------
def test_rerun_after_publishing_does_nothing_new(tmp_path, sample_path, monkeypatch):
    root = tmp_path
    shutil.copy(sample_path, root / "sample.tsv")
    (root / "r").mkdir()
    text = RECIPE.replace("input: sample.tsv", "input: ../sample.tsv") + "publish:\n  repo: file:../hub\n"
    (root / "r" / "recipe.yaml").write_text(text, encoding="utf-8")
    cwd = root / "a" / "b"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)
    args = ["run", root / "r" / "recipe.yaml", "--work", root / "work", "--releases", root / "releases"]
    r = invoke(args)
    assert r.exit_code == 0, r
    assert (root / "hub" / "HEAD").is_file() and not (root / "a" / "hub").exists()  # the recipe's folder
    tags = subprocess.run(["git", "-C", root / "hub", "tag"], capture_output=True, text=True).stdout.split()
    assert tags == ["v0.1.0"]
    r = invoke(args)
    assert r.exit_code == 0, r
    assert "nothing to publish" in r.stdout and "not released again" in r.stdout
    assert "validate-hardest: unchanged since it passed, skipped" in r.stdout
    assert "validate-pairs: unchanged since it passed, skipped" in r.stdout
    assert "$ gauntlet" not in r.stderr  # no command ran at all
    # a tag that holds other files is still refused
    (root / "releases" / "name=rc-demo" / "version=0.1.0").rename(root / "old")
    shutil.rmtree(root / "work" / "builds" / "hardest")
    (root / "r" / "recipe.yaml").write_text(text.replace("budget: 8", "budget: 6"), encoding="utf-8")
    r = invoke(args)
    assert r.exit_code == 2 and "tag v0.1.0 already exists" in r.stderr, r


def test_validation_reruns_when_its_rules_change(recipe_dir):
    d = recipe_dir
    shutil.copy(REPO / "examples" / "rules.yaml", d / "rules.yaml")
    (d / "recipe.yaml").write_text(RECIPE.replace("validate: {}", "validate: {rules: rules.yaml}"), encoding="utf-8")
    assert _run(d).exit_code == 0
    shutil.rmtree(_release(d))
    (d / "rules.yaml").write_text((d / "rules.yaml").read_text() + "\n# edited\n", encoding="utf-8")
    r = _run(d)
    assert r.exit_code == 0 and "unchanged since it passed" not in r.stdout, r
    assert r.stderr.count("$ gauntlet validate") == 2


# -- item 18: an interrupted build resumes -------------------------------------------------------------
@pytest.mark.slow
def test_killed_first_run_resumes_without_overwrite(tmp_path, sample_path):
    rows = sample_path.read_text(encoding="utf-8").splitlines()
    body = [f"{line.split(chr(9))[0]} ({i})\t{line.split(chr(9), 1)[1]}" for i in range(12) for line in rows[1:]]
    (tmp_path / "big.tsv").write_text("\n".join([rows[0], *body]) + "\n", encoding="utf-8")
    (tmp_path / "recipe.yaml").write_text(
        "recipe: 1\nrelease: {name: killed, version: 0.1.0}\nbuilds:\n  hardest:\n    builder: subset\n"
        "    input: big.tsv\n    src-col: es\n    src-lang: es\n    budget: 8\n    estimator: length\n"
        "    shard-size: 1\n",
        encoding="utf-8",
    )
    out = tmp_path / "work" / "builds" / "hardest"
    args = ["run", tmp_path / "recipe.yaml", "--work", tmp_path / "work", "--releases", tmp_path / "releases"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "mtgauntlet.cli.main", *map(str, args)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while len(list(out.glob("*/part-*.parquet"))) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the build finished before it could be killed"
    assert json.loads((out / "build.json").read_text())["status"] == "in_progress"
    r = invoke([*args, "--dry-run"])
    assert r.exit_code == 0 and "build hardest [resuming]" in r.stdout, r
    r = invoke(args)
    assert r.exit_code == 0, r
    assert "--overwrite" not in r.stderr and "resumed" in r.stderr and "discarded" not in r.stderr


# -- item 18: outputs follow the umask -------------------------------------------------------------------
def test_build_outputs_follow_the_umask(recipe_dir):
    d = recipe_dir
    old = os.umask(0o022)
    try:
        assert _run(d).exit_code == 0
    finally:
        os.umask(old)
    work = d / "work"
    files = [work / "recipe.resolved.yaml"]
    for build in ("hardest", "pairs"):
        files += [
            work / "builds" / build / "build.json",
            *(work / "builds" / build / "data").glob("*.parquet"),
            work / "reports" / build / "report.json",
        ]
    assert len(files) >= 7
    assert {oct(f.stat().st_mode & 0o777) for f in files} == {"0o644"}


# -- issue #26 point 2: audit against a previous release ---------------------------------------------------
@pytest.mark.slow
def test_audit_step_takes_against(recipe_dir):
    d = recipe_dir
    assert _run(d).exit_code == 0
    assert not (d / "work" / "audit.html").exists()  # `audit:` not set: no page claimed
    text = RECIPE.replace("version: 0.1.0", "version: 0.2.0").replace("budget: 8", "budget: 6")
    (d / "recipe.yaml").write_text(text + "audit:\n  against: releases/name=rc-demo/version=0.1.0\n", encoding="utf-8")
    r = _run(d)
    assert r.exit_code == 0, r
    assert "--against" in r.stderr and str(_release(d)) in r.stderr
    page = (d / "work" / "audit.html").read_text(encoding="utf-8")
    assert "<h2>6. Diff</h2>" in page and "records added / removed / replaced / changed" in page
    assert "report.html" in {
        f["path"] for f in json.loads((_release(d, version="0.2.0") / "manifest.json").read_text())["files"]
    }
    r = _run(d)
    assert r.exit_code == 0 and "audit: unchanged since it passed, skipped" in r.stdout, r
