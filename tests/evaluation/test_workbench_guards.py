"""`gauntlet evaluate metric` over a catalog refuses what would store nothing true: a ``col:NAME`` metric that no set
keeps as a score (one line naming the column, where it is kept and how to keep it), and a second run into a results
folder another run is writing (one line naming that run's pid); the lock of a run that died is taken over. A catalog
of real DEMETR items (imported as an ACES TSV) and a filtered WMT23 MQM subset."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sets.helpers import demetr_items, write_tsv
from tests.support.cli import REPO, invoke

ACES = ["source", "good-translation", "incorrect-translation", "reference", "phenomena", "langpair", "BLEU", "note"]
MQM = "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz"


@pytest.fixture(scope="module")
def releases(shared_data, tmp_path_factory) -> Path:
    """An ACES set (a numeric BLEU column kept in scores, a text ``note`` kept in extra) and a WMT23 MQM subset
    (mqm kept as a score, da_sqm left as text)."""
    root = tmp_path_factory.mktemp("guards")
    rows = [
        [it["src_sent"], it["mt_sent"], it["pert_sent"], it["eng_sent"], it["pert_name"], "de-en", f"{i}.5", f"n{i}"]
        for i, it in enumerate(demetr_items(shared_data, 6))
    ]
    aces = write_tsv(root / "aces.tsv", ACES, rows)
    out = ["--version", "1.0.0", "--out", root / "releases", "--provenance", "license=cc-by-nc-sa-4.0"]
    assert invoke(["import", "aces", aces, "--name", "aces-demetr", *out]).exit_code == 0
    with gzip.open(shared_data / MQM, "rt", encoding="utf-8", newline="") as f:
        lines = [next(f) for _ in range(13)]
    (root / "mqm.tsv").write_text("".join(lines), encoding="utf-8")
    r = invoke(["import", "human-table", root / "mqm.tsv", "--name", "mqm", "--score-col", "mqm", *out])
    assert r.exit_code == 0, r.output
    return root / "releases"


def _evaluate(releases: Path, out: Path, metric: str = "chrf"):
    return invoke(["evaluate", "metric", "--releases", releases, "-m", metric, "--out", out, "--json"])


def test_a_column_no_set_keeps_as_a_score_is_a_one_line_error(releases, tmp_path):
    r = _evaluate(releases, tmp_path / "r1", "col:note")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert r.exception.startswith("error: --metric col:note: no set keeps a score 'note': ")
    assert "aces-demetr@1.0.0 keeps it in extra (as text), not in scores" in r.exception
    assert "--score-col note" in r.exception
    assert not (tmp_path / "r1" / "manifest.json").exists()  # nothing scored, nothing sealed

    r = _evaluate(releases, tmp_path / "r2", "col:da_sqm")
    assert r.exit_code == 2 and "mqm@1.0.0 keeps it in extra" in r.exception and "--score-col da_sqm" in r.exception
    r = _evaluate(releases, tmp_path / "r3", "col:nowhere")
    assert r.exit_code == 2 and "the sets keep the scores BLEU, mqm" in r.exception, r.output


def _judged(releases: Path) -> int:
    """The MQM subset's rows with an mqm score (the others were skipped at import)."""
    lines = (releases.parent / "mqm.tsv").read_text(encoding="utf-8").splitlines()
    column = lines[0].split("\t").index("mqm")
    return sum(line.split("\t")[column] != "" for line in lines[1:])


def test_a_column_one_set_keeps_scores_that_set(releases, tmp_path):
    r = _evaluate(releases, tmp_path / "r", "col:mqm")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert 0 < _judged(releases) < 12
    assert res["metrics"]["col:mqm"]["computed"] == _judged(releases) + 12  # and the 6 pairs' two sides: failed
    assert res["metrics"]["col:mqm"]["failed"] == 12


HOLD = """
import sys, time
from pathlib import Path
from mtgauntlet.workbench.store import results_lock
with results_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_second_run_into_a_folder_being_written_is_refused_naming_the_first(releases, tmp_path):
    out = tmp_path / "results"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(out)],
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        r = _evaluate(releases, out)
        assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
        assert r.exception == (
            f"error: another run (pid {holder.pid}) is writing {out}; wait for it to finish or give another --out"
        )
        assert not (out / "manifest.json").exists()
    finally:
        holder.kill()
        holder.wait()
    # the holder died holding the lock: its lock file (and pid) stays, and the next run takes it over
    assert (out / ".lock").read_text() == f"pid {holder.pid}"
    r = _evaluate(releases, out)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["scores"] == 2 * 6 + _judged(releases)
    assert not (out / ".lock").exists()  # a finished run leaves no lock file
