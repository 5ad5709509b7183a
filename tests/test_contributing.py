"""docs/contributing.md's "Add a SMAUG phenomenon" walkthrough, followed as written: its code blocks go into a
temporary copy of the package (the new module, the one registration line), and the copy builds, validates and
releases the new phenomenon on real FLORES rows with units (`5 km` -> `5 mi`): its records, its rejections and
its card flag are there, with two files of the package touched."""

from __future__ import annotations

import csv
import filecmp
import gzip
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.support.cli import REPO

GUIDE = REPO / "docs" / "contributing.md"
BLOCK = re.compile(r'```python title="([^"]+)"\n(.*?)```', re.S)

# runs `gauntlet ARGS` for each ARGS in argv[1] (JSON) in one interpreter, through main's error handling
RUN_COMMANDS = """
import contextlib, io, json, sys
import mtgauntlet
from mtgauntlet.cli.main import run
results = []
for args in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = run(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    results.append({"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
print(json.dumps({"package": mtgauntlet.__file__, "results": results}))
"""


def _section(text: str, heading: str) -> str:
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def follow_the_walkthrough(package: Path) -> None:
    """Apply the phenomenon walkthrough's code blocks to ``package`` (a copy of mtgauntlet/): a block titled with a
    new file's path is that file; the block titled mtgauntlet/phenomena.py is a line added to REGISTERED, after the
    ``del`` line as the guide says."""
    blocks = BLOCK.findall(_section(GUIDE.read_text(encoding="utf-8"), "Add a SMAUG phenomenon"))
    assert [title for title, _ in blocks] == ["mtgauntlet/builders/smaug/phenomena/unit.py", "mtgauntlet/phenomena.py"]
    (module_path, module), (_, line) = blocks
    target = package.parent / module_path
    assert not target.exists()
    target.write_text(module, encoding="utf-8")
    registry = package / "phenomena.py"
    text = registry.read_text(encoding="utf-8")
    anchor = next(s for s in text.splitlines(keepends=True) if s.strip().startswith('Registration("del"'))
    registry.write_text(text.replace(anchor, anchor + line), encoding="utf-8")


def _changed_files(original: Path, copy: Path) -> list[str]:
    def walk(cmp: filecmp.dircmp, prefix: str) -> list[str]:
        out = [prefix + n for n in cmp.left_only + cmp.right_only + cmp.diff_files if n != "__pycache__"]
        for name, sub in cmp.subdirs.items():
            if name != "__pycache__":
                out += walk(sub, f"{prefix}{name}/")
        return out

    return sorted(walk(filecmp.dircmp(original, copy, ignore=["__pycache__"]), ""))


def _rows_with_units(shared_data: Path, n_without: int = 6) -> list[dict[str, str]]:
    """FLORES devtest es-en rows whose English side has a unit after a number, and a few without one."""
    with gzip.open(shared_data / "flores200-devtest" / "flores200_devtest.tsv.gz", "rt", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    unit = re.compile(r"\d ?(km|kg|°C)\b")
    with_units = [r for r in rows if unit.search(r["eng"])]
    without = [r for r in rows if not re.search(r"\d", r["eng"])][:n_without]
    assert len(with_units) >= 5
    return [{"es": r["spa"], "en": r["eng"]} for r in with_units + without]


def test_the_phenomenon_walkthrough_adds_a_phenomenon_in_two_files(tmp_path, shared_data):
    from mtgauntlet import phenomena
    from tests.support.walkthrough import passed, repo_copy, run_tests

    package = repo_copy(tmp_path) / "mtgauntlet"
    follow_the_walkthrough(package)
    assert _changed_files(REPO / "mtgauntlet", package) == ["builders/smaug/phenomena/unit.py", "phenomena.py"]

    rows = _rows_with_units(shared_data)
    corpus = tmp_path / "units.tsv"
    with corpus.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, ["es", "en"], delimiter="\t")
        writer.writeheader()
        writer.writerows(rows)
    (tmp_path / "rules.yaml").write_text(
        "version: 1\nthresholds:\n  smaug.span_mismatches: {max: 0}\n"
        "  smaug.nli.unit.bad_contradicts_ref_rate: {min: 0.5}\n",
        encoding="utf-8",
    )
    build = [
        "build",
        "smaug",
        "--input",
        str(corpus),
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
        str(tmp_path / "b"),
    ]
    commands = [
        ["build", "smaug", "--help"],
        build + ["--phenomena", "unit,num"],
        ["validate", "records", str(tmp_path / "b"), "--rules", str(tmp_path / "rules.yaml")],
        ["release", str(tmp_path / "b"), "--name", "units", "--version", "0.1.0", "--out", str(tmp_path / "releases")],
    ]
    env = {
        "PYTHONPATH": str(package.parent),
        "PATH": "/usr/bin:/bin",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "MTGAUNTLET_CACHE_DIR": str(tmp_path / "cache"),
        "HOME": str(tmp_path),
    }
    proc = subprocess.run(
        [sys.executable, "-c", RUN_COMMANDS, json.dumps(commands)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    ran = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(ran["package"]).parent == package  # the copy ran, not the checkout
    helped, built, validated, released = ran["results"]

    help_text = re.sub(r"[\s│|]+", "", helped["stdout"])
    assert helped["code"] == 0 and f"subsetof{','.join([*phenomena.NAMES, 'unit'])}." in help_text
    # an opt-in phenomenon (default=False) leaves the default --phenomena, hence existing signatures, as they were
    assert f"[default:{','.join(phenomena.DEFAULT)}]" in help_text
    assert built["code"] == 0, built
    records = [r for f in sorted((tmp_path / "b" / "data").glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
    units = [r for r in records if r["phenomenon"] == "unit"]
    assert len(units) >= 5 and {r["phenomenon"] for r in records} == {"unit", "num"}
    for r in units:  # the unit after a number swapped, the rest of the reference byte for byte
        assert r["perturbation"] == "unit/unit-swap" and {r["span_original"], r["span_replacement"]} in (
            {"km", "mi"},
            {"kg", "lb"},
            {"°C", "°F"},
        )
        assert r["ref"][: r["span_start"]] + r["span_replacement"] + r["ref"][r["span_end"] :] == r["bad"]
    assert any("20 mi (15 miles)" in r["bad"] or "65 mi (40 miles)" in r["bad"] for r in units)
    manifest = json.loads((tmp_path / "b" / "build.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["rejected"]["unit:not_applicable"] == 6  # the rows without a unit, counted
    assert "unit_not_in_paper" in manifest["config"]["flags"]
    assert "phenomena:unit+num" in manifest["signature"]

    assert validated["code"] == 0, validated  # the metric name of the new phenomenon is known (NOT CHECKED: no NLI)
    assert "smaug.nli.unit.bad_contradicts_ref_rate" in validated["stdout"]
    assert released["code"] == 0, released  # the schema's allowed values include it (values.not_allowed = 0)
    card = (tmp_path / "releases" / "name=units" / "version=0.1.0" / "README.md").read_text(encoding="utf-8")
    card = re.sub(r"\\([\\`*_{}\[\]()#+\-.!~])", r"\1", card)
    assert "a unit of measurement (`unit`)" in card  # the method text
    assert "is not one of the SMAUG paper's phenomena" in card  # the flag, in the build notes

    # step 3 (the docs table regenerated), then the copy's registry-wide tests pass with the new phenomenon among
    # them (its own example built)
    regenerate = [sys.executable, "-m", "mtgauntlet.builders.smaug.phenomena", "--write", "docs/methods/smaug.md"]
    done = subprocess.run(regenerate, capture_output=True, text=True, env=env, cwd=package.parent, timeout=300)
    assert done.returncode == 0, done.stderr
    run = run_tests(package.parent, tmp_path, "tests/builders/smaug/test_phenomena.py", "-m", "not slow")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    registry_wide = "tests/builders/smaug/test_phenomena.py::test_every_registered_phenomenon_builds_on_its_own_example"
    assert passed(run, f"{registry_wide}[unit]")


# -- "Add a validator rule", followed as written (self-contained: its own helpers below) ---------------------------
RULE_FILES = ["validators/measures/urls.py", "validators/registry.py"]
WMT24 = "wmt24-general-testset/wmt24_general_testset.tsv.gz"


def follow_the_rule_walkthrough(root: Path) -> None:
    """Apply the rule walkthrough's code blocks to ``root`` (a copy of the repository): the new module as written,
    and its line added to ``MODULES`` after the ``judge`` line, as the guide says."""
    blocks = BLOCK.findall(_section(GUIDE.read_text(encoding="utf-8"), "Add a validator rule"))
    assert [title for title, _ in blocks] == [f"mtgauntlet/{f}" for f in RULE_FILES]
    (module_path, module), (registry_path, line) = blocks
    target = root / module_path
    assert not target.exists()
    target.write_text(module, encoding="utf-8")
    registry = root / registry_path
    text = registry.read_text(encoding="utf-8")
    anchor = next(s for s in text.splitlines(keepends=True) if s.strip() == '"judge",')
    registry.write_text(text.replace(anchor, anchor + line, 1), encoding="utf-8")


def _url_pairs(shared_data: Path, broken: int) -> list[list[str]]:
    """WMT24 en-es rows whose source URLs the reference keeps, as challenge pairs (good = the reference, bad = it
    without its URLs); in ``broken`` of them the good translation has its URL's path translated."""
    with gzip.open(shared_data / WMT24, "rt", encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE) if r["lp"] == "en-es"]
    url = re.compile(r"https?://\S+")
    kept = [r for r in rows if url.search(r["src"]) and all(u in r["refA"] for u in url.findall(r["src"]))]
    kept = [r for r in kept if url.sub("", r["refA"]).strip()][:8]
    assert len(kept) >= 6
    out = []
    for i, r in enumerate(kept):
        good = r["refA"]
        if i < broken:
            u = url.findall(r["src"])[0]
            good = good.replace(u, u.replace("://", "://es.", 1))  # a URL "translated": no longer the source's
        out.append(["en-es", r["src"], good, url.sub("", r["refA"]).strip(), r["refA"], "url-dropped"])
    return out


@pytest.mark.slow  # a copy of the repository, its registry tests run there, two imports and validations
def test_the_rule_walkthrough_adds_a_rule_in_one_file_and_one_line(tmp_path, shared_data):
    root = tmp_path / "repo"
    for part in ("mtgauntlet", "tests", "docs"):
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    for name in ("pyproject.toml", "mkdocs.yml"):
        shutil.copy(REPO / name, root / name)
    follow_the_rule_walkthrough(root)
    assert _changed_files(REPO / "mtgauntlet", root / "mtgauntlet") == RULE_FILES
    before = (REPO / "mtgauntlet" / RULE_FILES[1]).read_text(encoding="utf-8").splitlines()
    after = (root / "mtgauntlet" / RULE_FILES[1]).read_text(encoding="utf-8").splitlines()
    assert len(after) == len(before) + 1 and [s for s in after if s not in before] == ['    "urls",']

    env = {
        "PYTHONPATH": str(root),
        "PATH": "/usr/bin:/bin",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "MTGAUNTLET_CACHE_DIR": str(tmp_path / "cache"),
        "MTGAUNTLET_SHARED_DATA": str(shared_data),
        "HOME": str(tmp_path),
    }

    def run(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, *args], capture_output=True, text=True, env=env, cwd=root, timeout=timeout
        )

    docs = run("-m", "mtgauntlet.validators", "--write", "docs/validation.md")  # step 3
    assert docs.returncode == 0, docs.stderr[-2000:]
    assert "| `urls` | `urls.changed` |" in (root / "docs" / "validation.md").read_text(encoding="utf-8")
    # the affected tests and the registry-wide ones, in the copy: the new rule runs on its own example there
    tests = run(
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-v",
        "tests/validators/test_registry.py",
        "tests/cli/test_error_style.py",
        "-k",
        "registry or rule or example or known",
    )
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    assert "test_every_rule_computes_what_its_example_says[urls] PASSED" in tests.stdout
    assert " failed" not in tests.stdout and "passed" in tests.stdout

    # step 4: the rule on real rows, through `gauntlet` in the copy: a set that keeps its URLs passes, one whose good
    # translations change two fails (exit 1) with the count
    header = ["lp", "source", "good", "incorrect", "reference", "phenomena"]
    for name, broken in (("kept", 0), ("changed", 2)):
        rows = _url_pairs(shared_data, broken)
        (tmp_path / f"{name}.tsv").write_text("".join("\t".join(r) + "\n" for r in [header, *rows]), encoding="utf-8")
    (tmp_path / "rules.yaml").write_text(
        "version: 1\nthresholds:\n  urls.changed: {max: 0}\n  urls.in_source: {min: 1}\n", encoding="utf-8"
    )
    commands = []
    for name in ("kept", "changed"):
        release = ["--version", "1.0.0", "--out", str(tmp_path / "releases"), "--provenance", "license=unknown"]
        commands.append(["import", "wmt-challenge", str(tmp_path / f"{name}.tsv"), "--name", f"urls-{name}", *release])
        where = str(tmp_path / "releases" / f"name=urls-{name}" / "version=1.0.0")
        commands.append(["validate", where, "--rules", str(tmp_path / "rules.yaml"), "--json"])
    proc = run("-c", RUN_COMMANDS, json.dumps(commands))
    assert proc.returncode == 0, proc.stderr[-3000:]
    ran = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(ran["package"]).parent == root / "mtgauntlet"  # the copy ran, not the checkout
    imported_kept, kept, imported_changed, changed = ran["results"]
    assert imported_kept["code"] == 0 and imported_changed["code"] == 0, ran["results"]
    assert kept["code"] == 0, kept
    metrics = json.loads(kept["stdout"])["kinds"]["challenge_pair"]["metrics"]
    assert metrics["urls.changed"] == 0 and metrics["urls.in_source"] == len(_url_pairs(shared_data, 0))
    assert changed["code"] == 1, changed
    report = json.loads(changed["stdout"])
    assert report["failed_rules"] == ["challenge_pair:urls.changed"]
    assert report["kinds"]["challenge_pair"]["metrics"]["urls.changed"] == 2
