"""docs/contributing.md's "Add a workbench metric" walkthrough, followed as written: its two code blocks go into a
temporary copy of the repository (the new module, the one registration line), the CLI reference is regenerated
there as the guide says, and the copy's registry-wide tests (`tests/workbench/test_metric_registry.py`: the new
metric's example, signature, help and a workbench run over a catalog) and the reference-page test pass, with two
files of the package touched."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import REPO
from tests.test_contributing import BLOCK, GUIDE, _changed_files, _section


def follow_the_walkthrough(package: Path) -> None:
    """The block titled with the new module's path is that file; the registry block is a line added to METRICS
    after the ``bleu`` line, as the guide says."""
    blocks = BLOCK.findall(_section(GUIDE.read_text(encoding="utf-8"), "Add a workbench metric"))
    assert [title for title, _ in blocks] == ["mtgauntlet/workbench/ter.py", "mtgauntlet/workbench/registry.py"]
    (module_path, module), (_, line) = blocks
    target = package.parent / module_path
    assert not target.exists()
    target.write_text(module, encoding="utf-8")
    registry = package / "workbench" / "registry.py"
    text = registry.read_text(encoding="utf-8")
    anchor = next(s for s in text.splitlines(keepends=True) if s.strip().startswith('"bleu":'))
    registry.write_text(text.replace(anchor, anchor + line), encoding="utf-8")


@pytest.mark.slow
def test_the_metric_walkthrough_adds_a_metric_that_the_registry_wide_tests_cover(tmp_path, shared_data):
    copy = tmp_path / "copy"
    ignore = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc")
    for part in ("mtgauntlet", "tests", "docs"):
        shutil.copytree(REPO / part, copy / part, ignore=ignore)
    for name in ("pyproject.toml", "mkdocs.yml", "README.md"):
        shutil.copy(REPO / name, copy / name)
    follow_the_walkthrough(copy / "mtgauntlet")
    assert _changed_files(REPO / "mtgauntlet", copy / "mtgauntlet") == ["workbench/registry.py", "workbench/ter.py"]

    env = {
        "PYTHONPATH": str(copy),
        "PATH": "/usr/bin:/bin",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HOME": str(tmp_path),
        "MTGAUNTLET_CACHE_DIR": str(tmp_path / "cache"),
        "MTGAUNTLET_SHARED_DATA": str(shared_data),
    }
    regen = subprocess.run(
        [sys.executable, "-m", "mtgauntlet.cli.reference", "--write", "docs/reference/cli.md"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert regen.returncode == 0, regen.stderr[-2000:]
    assert "ter (sacrebleu's sentence TER, negated)" in (copy / "docs" / "reference" / "cli.md").read_text()
    tests = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-v",
            "-p",
            "no:cacheprovider",
            "tests/workbench/test_metric_registry.py",
            "tests/test_docs.py::test_command_reference_page_is_generated_from_the_cli",
        ],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert tests.returncode == 0, tests.stdout[-4000:]
    passed = [line for line in tests.stdout.splitlines() if "[ter]" in line and "PASSED" in line]
    assert len(passed) == 2, tests.stdout[-4000:]  # the registry-wide tests took the new metric's example and help
    assert "test_every_registered_metric_stores_its_own_scores_through_the_workbench PASSED" in tests.stdout
