"""Issue #15: a recipe releases what the equivalent commands release; an interrupted run resumes; a release
made from a recipe reproduces (and reports what differs after an input row is edited); bad recipes are
one-line errors naming the key and line, before any work."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from mtgauntlet.records import load_records_by_kind
from tests.support.cli import invoke

RECIPE = """\
recipe: 1
release:
  name: rc-demo
  version: 0.1.0
  description: Two builds from the shipped sample.
builds:
  hardest:
    builder: subset
    input: sample.tsv
    src-col: es
    src-lang: es
    budget: 8
    estimator: length
  pairs:
    builder: smaug
    input: sample.tsv
    src-lang: es
    tgt-lang: en
    src_col: es
    ref-col: en
    good-from: reference
    phenomena: num,del
validate: {}
"""


@pytest.fixture()
def recipe_dir(tmp_path, sample_path):
    shutil.copy(sample_path, tmp_path / "sample.tsv")
    (tmp_path / "recipe.yaml").write_text(RECIPE, encoding="utf-8")
    return tmp_path


def _run(d, *extra):
    return invoke(["run", d / "recipe.yaml", "--work", d / "work", "--releases", d / "releases", *extra])


def _release(d, name="rc-demo", version="0.1.0"):
    return d / "releases" / f"name={name}" / f"version={version}"


def test_recipe_releases_what_the_commands_release(recipe_dir, sample_path):
    d = recipe_dir
    (d / "recipe.yaml").write_text(RECIPE + "audit: {}\n", encoding="utf-8")
    r = _run(d, "--dry-run")
    assert r.exit_code == 0 and "build hardest [new]" in r.stdout and not (d / "work").exists()
    r = _run(d)
    assert r.exit_code == 0, r
    rel = _release(d)
    manifest = json.loads((rel / "manifest.json").read_text())
    assert manifest["description"] == "Two builds from the shipped sample." and manifest["recipe"] == "recipe.yaml"
    assert "gauntlet reproduce" in (rel / "README.md").read_text() and "sha256:" in (rel / "recipe.yaml").read_text()
    assert {"recipe.yaml", "report.html"} <= {f["path"] for f in manifest["files"]}
    assert "](report.html)" in (rel / "README.md").read_text() and "<html" in (rel / "report.html").read_text()
    assert invoke(["verify", rel]).exit_code == 0
    # the same two builds by hand
    hand = d / "hand"
    assert (
        invoke(
            [
                "build",
                "subset",
                "--input",
                d / "sample.tsv",
                "--src-col",
                "es",
                "--src-lang",
                "es",
                "--budget",
                "8",
                "--estimator",
                "length",
                "--out",
                hand / "a",
            ]
        ).exit_code
        == 0
    )
    assert (
        invoke(
            [
                "build",
                "smaug",
                "--input",
                d / "sample.tsv",
                "--src-lang",
                "es",
                "--tgt-lang",
                "en",
                "--src-col",
                "es",
                "--ref-col",
                "en",
                "--good-from",
                "reference",
                "--phenomena",
                "num,del",
                "--out",
                hand / "b",
            ]
        ).exit_code
        == 0
    )
    assert (
        invoke(
            ["release", hand / "a", hand / "b", "--name", "by-hand", "--version", "0.1.0", "--out", d / "releases"]
        ).exit_code
        == 0
    )
    other = json.loads((_release(d, "by-hand") / "manifest.json").read_text())
    assert sorted(other["signatures"]) == sorted(manifest["signatures"])
    a, b = load_records_by_kind(rel), load_records_by_kind(_release(d, "by-hand"))
    assert set(a) == set(b) == {"smaug_pair", "selected_text"}
    for kind in a:
        assert sorted(a[kind].column("id").to_pylist()) == sorted(b[kind].column("id").to_pylist())


def _interrupt(out):
    shards = sorted((out / "data").glob("part-*.parquet"))
    shards[-1].unlink()
    m = json.loads((out / "build.json").read_text())
    m["status"] = "in_progress"
    (out / "build.json").write_text(json.dumps(m))


def test_interrupted_run_resumes(recipe_dir):
    d = recipe_dir
    text = RECIPE.replace("    phenomena: num,del\n", "    phenomena: num,del\n    shard-size: 10\n")
    (d / "recipe.yaml").write_text(text.replace("validate: {}\n", ""), encoding="utf-8")
    assert _run(d).exit_code == 0
    shutil.rmtree(d / "releases")
    _interrupt(d / "work" / "builds" / "pairs")  # as if killed while building the second set
    r = _run(d)
    assert r.exit_code == 0, r
    assert "build hardest: complete and unchanged, skipped" in r.stdout
    assert "resumed 4 finished shard(s)" in r.stderr
    assert json.loads((d / "work/builds/pairs/build.json").read_text())["status"] == "complete"
    assert _release(d).exists()
    r = _run(d)  # nothing left to do: the release exists with these builds
    assert r.exit_code == 0 and "not released again" in r.stdout


def test_reproduce_identical_then_reports_an_edited_row(recipe_dir):
    d = recipe_dir
    assert _run(d).exit_code == 0
    r = invoke(["reproduce", _release(d), "--inputs", d, "--work", d / "again", "--json"])
    assert r.exit_code == 0, r
    res = json.loads(r.stdout)
    assert res["reproduced"] and {k["kind"]: k["identical"] for k in res["kinds"]} == {
        "selected_text": True,
        "smaug_pair": True,
    }
    lines = (d / "sample.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1].replace("El presidente", "El PRESIDENTE")
    (d / "sample.tsv").write_text("".join(lines), encoding="utf-8")
    r = invoke(["reproduce", _release(d), "--inputs", d, "--work", d / "again2", "--json"])
    assert r.exit_code == 1, r
    res = json.loads(r.stdout)
    assert not res["reproduced"] and any("input sample.tsv changed" in n for n in res["notes"])
    smaug = next(k for k in res["kinds"] if k["kind"] == "smaug_pair")
    released = {x["id"]: x for x in load_records_by_kind(_release(d))["smaug_pair"].to_pylist()}
    touched = {i for i, x in released.items() if "El presidente" in x["src"]}
    assert touched and set(smaug["only_released"]) == touched and len(smaug["only_rebuilt"]) == len(touched)


def test_reproduce_finds_moved_inputs(recipe_dir, tmp_path_factory):
    d = recipe_dir
    assert _run(d).exit_code == 0
    moved = tmp_path_factory.mktemp("elsewhere")
    shutil.move(d / "sample.tsv", moved / "sample.tsv")
    r = invoke(["reproduce", _release(d), "--work", d / "again"])
    assert r.exit_code == 2 and "--inputs" in r.stderr
    r = invoke(["reproduce", _release(d), "--inputs", moved, "--work", d / "again"])
    assert r.exit_code == 0 and "REPRODUCED" in r.stdout


@pytest.mark.parametrize(
    "edit, line, needle",
    [
        (lambda y: y.replace("    budget: 8\n", "    budget: 8\n    budgt: 3\n"), 13, "unknown key 'budgt'"),
        (lambda y: y.replace("budget: 8", "budget: eight"), 12, "expected int"),
        (lambda y: y.replace("budget: 8", "budget: 0"), 12, "outside"),
        (
            lambda y: y.replace(
                "    input: sample.tsv\n    src-lang: es\n    tgt-lang",
                "    input: nope.tsv\n    src-lang: es\n    tgt-lang",
            ),
            16,
            "input not found",
        ),
        (lambda y: y.replace("builder: smaug", "builder: smaugg"), 15, "unknown or missing builder"),
        (lambda y: y.replace("    budget: 8\n", "    budget: 8\n    out: /tmp/x\n"), 13, "set by `gauntlet run`"),
        (lambda y: y.replace("recipe: 1", "recipe: 2"), 1, "recipe format version"),
        (lambda y: y + "publsh: {}\n", 24, "unknown key 'publsh'"),
        (lambda y: y.replace("  version: 0.1.0\n", ""), 2, "missing required key 'version'"),
    ],
)
def test_invalid_recipes_are_one_line_errors(recipe_dir, edit, line, needle):
    d = recipe_dir
    (d / "recipe.yaml").write_text(edit(RECIPE), encoding="utf-8")
    r = _run(d)
    assert r.exit_code == 2, r
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0] and f"line {line}" in err[0], r
    assert not (d / "work").exists()


def test_resolved_recipe_is_itself_a_valid_recipe(recipe_dir):
    d = recipe_dir
    assert _run(d).exit_code == 0
    resolved = yaml.safe_load((d / "work" / "recipe.resolved.yaml").read_text())
    assert (
        resolved["builds"]["hardest"]["quoting"] == "auto" and len(resolved["builds"]["pairs"]["sha256"]["input"]) == 64
    )
    (d / "recipe2.yaml").write_text((d / "work" / "recipe.resolved.yaml").read_text(), encoding="utf-8")
    r = invoke(["run", d / "recipe2.yaml", "--work", d / "work", "--releases", d / "releases", "--dry-run"])
    assert r.exit_code == 0 and "build hardest [done]" in r.stdout and "build pairs [done]" in r.stdout, r


@pytest.mark.parametrize(
    "name", sorted(p.name for p in (Path(__file__).parents[2] / "examples").glob("*.yaml") if p.name != "rules.yaml")
)
def test_example_recipes_are_valid(name, tmp_path):
    from tests.conftest import SHARED_DATA

    path = Path(__file__).parents[2] / "examples" / name
    if "shared/data" in path.read_text() and not SHARED_DATA.exists():
        pytest.skip(f"real data folder {SHARED_DATA} not present")
    r = invoke(["run", path, "--dry-run", "--work", tmp_path / "w", "--releases", tmp_path / "r"])
    assert r.exit_code == 0 and "dry run: nothing was run" in r.stdout, r
