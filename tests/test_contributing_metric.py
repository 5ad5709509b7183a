"""docs/contributing.md's "Add a workbench metric" walkthrough, followed as written: its two code blocks go into a
temporary copy of the repository (the new module, the one registration line), the CLI reference is regenerated
there as the guide says, and the copy's registry-wide tests (`tests/workbench/test_metric_registry.py`: the new
metric's example, signature, help and a workbench run over a catalog) and the reference-page test pass, with two
files of the package touched."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.walkthrough import blocks, environment, follow, repo_copy, run_tests

HEADING = "Add a workbench metric"


@pytest.mark.slow
def test_the_metric_walkthrough_adds_a_metric_that_the_registry_wide_tests_cover(tmp_path, shared_data):
    assert [title for title, _ in blocks(HEADING)] == [
        "mtgauntlet/workbench/ter.py",
        "mtgauntlet/workbench/registry.py",
    ]
    copy = repo_copy(tmp_path)
    # the registry block is a line added to METRICS after the ``bleu`` line, as the guide says
    assert follow(copy, HEADING, '"bleu":') == ["workbench/registry.py", "workbench/ter.py"]

    regen = subprocess.run(
        [sys.executable, "-m", "mtgauntlet.cli.reference", "--write", "docs/reference/cli.md"],
        cwd=copy,
        env=environment(copy, tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert regen.returncode == 0, regen.stderr[-2000:]
    assert "ter (sacrebleu's sentence TER, negated)" in (copy / "docs" / "reference" / "cli.md").read_text()
    tests = run_tests(
        copy,
        tmp_path,
        "tests/workbench/test_metric_registry.py",
        "tests/test_docs.py::test_command_reference_page_is_generated_from_the_cli",
        timeout=900,
    )
    assert tests.returncode == 0, tests.stdout[-4000:]
    passed = [line for line in tests.stdout.splitlines() if "[ter]" in line and "PASSED" in line]
    assert len(passed) == 2, tests.stdout[-4000:]  # the registry-wide tests took the new metric's example and help
    assert "test_every_registered_metric_stores_its_own_scores_through_the_workbench PASSED" in tests.stdout
