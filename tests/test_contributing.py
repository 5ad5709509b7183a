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
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

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
