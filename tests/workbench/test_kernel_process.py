"""chrF, chrF++ and BLEU scored in a second process (`mtgauntlet.workbench.kernel_process`): the same scores as
in this process, and this process scores them itself whenever the child cannot."""

from __future__ import annotations

import contextlib
import csv
import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from mtgauntlet.workbench import kernel_process
from mtgauntlet.workbench.kernel_process import KernelProcess, offered
from mtgauntlet.workbench.lexical import Bleu, ChrF, ChrFPlusPlus
from tests.evaluation.workbench_sets import make_catalog
from tests.support.cli import REPO


@pytest.fixture(scope="module")
def pairs(sample_path):
    """(hypotheses, references) of the shipped sample: lowercased, a word dropped, empty, and without reference."""
    with open(sample_path, encoding="utf-8") as fh:
        refs = [r["en"] for r in csv.DictReader(fh, delimiter="\t")][:60]
    hyp = [r.lower() for r in refs] + [" ".join(r.split()[1:]) for r in refs] + ["", "Nada.", "👍 Sí"]
    ref: list[str | None] = refs + refs + ["Nothing.", None, "Yes"]
    return hyp, ref


def _here(kind, hyp, ref):
    metric = kind()
    metric.ready()
    return list(kind.kernel()(metric.metric, hyp, ref))


@contextlib.contextmanager
def _child(*kinds):
    """A child process asked to load ``kinds``, each expected with its signature here; closed after the block."""
    process = KernelProcess()
    try:
        for kind in kinds:
            assert process.load(kind)
            process.expect(kind, kind().signature())
        yield process
    finally:
        process.close()


def test_the_child_scores_as_this_process_does(pairs):
    hyp, ref = pairs
    with _child(ChrF, ChrFPlusPlus, Bleu) as process:
        for kind in (Bleu, ChrF, ChrFPlusPlus):
            assert process.score(kind, hyp, ref) == _here(kind, hyp, ref)
        assert process.score(ChrF, hyp[:1], ref[:1]) == _here(ChrF, hyp[:1], ref[:1])  # one pair: no halves
        child = process.proc
    assert child is not None and child.returncode == 0 and process.proc is None


def test_a_metric_whose_signature_differs_there_is_scored_here(pairs):
    hyp, ref = pairs
    with _child(ChrF, Bleu) as process:
        process.expect(ChrF, "chrf|another sacrebleu")
        assert process.score(ChrF, hyp, ref) is None  # refused: scored here
        assert process.score(Bleu, hyp, ref) == _here(Bleu, hyp, ref)  # the other one still there


def test_a_child_that_dies_leaves_the_scoring_here(pairs, monkeypatch):
    hyp, ref = pairs
    with _child(ChrF) as process:
        metric = ChrF()
        metric.process = process
        assert metric.score([], hyp, ref, "es", "en") == _here(ChrF, hyp, ref)
        assert process.proc is not None
        process.proc.kill()
        process.proc.wait()
        assert metric.score([], hyp, ref, "es", "en") == _here(ChrF, hyp, ref)  # scored here
        assert metric.process is None and process.proc is None


def test_the_child_imports_the_parents_mtgauntlet_not_the_working_folders(pairs, tmp_path, monkeypatch):
    hyp, ref = pairs
    (tmp_path / "mtgauntlet").mkdir()
    (tmp_path / "mtgauntlet" / "__init__.py").write_text("raise ImportError('the working folder copy')\n")
    monkeypatch.chdir(tmp_path)
    with _child(ChrF) as process:
        assert process.score(ChrF, hyp, ref) == _here(ChrF, hyp, ref)


def test_a_child_running_another_mtgauntlet_is_not_used(pairs, monkeypatch):
    hyp, ref = pairs
    with _child(ChrF) as process:
        monkeypatch.setattr(kernel_process, "package_file", lambda: "/elsewhere/mtgauntlet/__init__.py")
        assert process.score(ChrF, hyp, ref) is None  # scored here


def test_the_child_refuses_a_class_outside_the_package():
    process = KernelProcess()
    try:
        assert process.load(json.JSONDecoder)
        process.expect(json.JSONDecoder, "x")
        assert process.score(json.JSONDecoder, ["a"], ["a"]) is None
    finally:
        process.close()


def test_only_a_command_line_run_starts_one(monkeypatch):
    from mtgauntlet.core import one_command

    monkeypatch.setitem(one_command._STATE, "one_command", False)
    assert not kernel_process.worthwhile()  # a program calling the API is not a one-command process
    with offered(local_engine=True):
        assert kernel_process.attach(ChrF) is None
        assert ChrF().process is None


@pytest.mark.e2e
def test_a_command_line_run_scores_in_the_child_the_same_as_the_api(tmp_path, sample_path, shared_data):
    import mtgauntlet as mg

    catalog = make_catalog(tmp_path / "catalog", sample_path, shared_data)
    here = mg.evaluate("metric", releases=catalog, metric="chrf,chrf++,bleu", out=tmp_path / "api", ci_resamples=20)
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('numba here:', 'numba' in sys.modules, file=sys.stderr))\n"
        "from mtgauntlet.cli.main import main\n"
        "main()\n"
    )
    args = ["-v", "evaluate", "metric", "--releases", str(catalog), "-m", "chrf,chrf++,bleu", "--ci-resamples", "20"]
    proc = subprocess.run(
        [sys.executable, "-c", code, *args, "--out", str(tmp_path / "cli"), "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    assert "kernel process: pid" in proc.stderr and "numba here: False" in proc.stderr  # the child scored
    there = json.loads(proc.stdout)
    assert there["scores"] == here["scores"] > 0 and there["metrics"] == here["metrics"]
    for kind in ("metric_score", "metric_stat"):  # the same rows, score for score
        assert _rows(tmp_path / "cli", kind) == _rows(tmp_path / "api", kind)


def _rows(results, kind):
    manifest = json.loads((results / "manifest.json").read_text())
    rows = [r for f in manifest["files"] if f["kind"] == kind for r in pq.read_table(results / f["path"]).to_pylist()]
    return sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)
