"""``#batch=1``: requests through the OpenAI Batch API (/v1/files + /v1/batches on the local server of
tests/support/openai_server.py) give the records of the synchronous path, and a killed build resumes its batches instead
of paying for them twice."""

import json
import os
import signal
import subprocess
import sys
import time

from tests.models.test_usage import _args, _content, _manifest, _spec_usage, _stack
from tests.support.cli import REPO, invoke

BATCH = "#batch=1,poll=0.05"


def _uploads(server):
    return [r for r in server.requests if r["path"] == "/v1/files"]


def test_batch_api_gives_the_records_of_the_synchronous_path(tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE", "off")  # every run really asks
    for var in ("MTGAUNTLET_CONCURRENCY", "MTGAUNTLET_MAX_COST", "MTGAUNTLET_MAX_REQUESTS"):
        monkeypatch.setenv(var, "")
    with _stack() as s:
        sync = invoke(_args(s, tmp_path, "sync"))
        assert sync.exit_code == 0, sync
        s["servers"]["llm"].requests.clear()
        batched = invoke(_args(s, tmp_path, "batch", llm_opts=BATCH, qe_opts=BATCH))
        assert batched.exit_code == 0, batched
        assert _content(tmp_path / "batch") == _content(tmp_path / "sync")
        editor = s["servers"]["llm"]
        assert not [r for r in editor.requests if r["path"].endswith("/chat/completions")]  # all through batches
        assert len(_uploads(editor)) == len(editor.batches) > 0
        assert all(b["status"] == "completed" for b in editor.batches.values())
        assert sorted(p.name for p in (tmp_path / "batch" / "batches").glob("*.json"))  # ids kept in the build
        u = _spec_usage(_manifest(tmp_path / "batch"), s["llm"] + BATCH)
        assert u["input_tokens"] > 0 and u["failures"] == 0


def _spawn_batch_build(s, tmp_path):
    """The batch build `b` in a new process (to be killed), without the test process's budgets or concurrency."""
    args = [str(a) for a in _args(s, tmp_path, "b", llm_opts=BATCH)]
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "MTGAUNTLET_CONCURRENCY": "",
        "MTGAUNTLET_MAX_REQUESTS": "",
        "MTGAUNTLET_MAX_COST": "",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "mtgauntlet.cli.main", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_killed_batch_build_resumes_its_batch_instead_of_paying_twice(tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE", "off")
    with _stack() as s:
        editor = s["servers"]["llm"]
        editor.hold_batches = True  # the first batch never ends while the first run waits
        proc = _spawn_batch_build(s, tmp_path)
        try:
            deadline = time.monotonic() + 120
            while not any(b["polls"] >= 2 for b in editor.batches.values()):
                assert time.monotonic() < deadline and proc.poll() is None, "the build never waited on a batch"
                time.sleep(0.05)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        assert len(editor.batches) == 1
        first = next(iter(editor.batches))
        editor.hold_batches = False
        r = invoke(_args(s, tmp_path, "b", llm_opts=BATCH))
        assert r.exit_code == 0, r
        assert editor.batches[first]["status"] == "completed"  # the killed run's batch was resumed ...
        inputs = [json.dumps(b["input_file_id"]) for b in editor.batches.values()]
        contents = [editor.files[b["input_file_id"]] for b in editor.batches.values()]
        assert len(set(contents)) == len(contents) == len(inputs)  # ... and no request list was batched twice
        for var in ("MTGAUNTLET_CONCURRENCY", "MTGAUNTLET_MAX_COST", "MTGAUNTLET_MAX_REQUESTS"):
            monkeypatch.setenv(var, "")
        full = invoke(_args(s, tmp_path, "full"))
        assert full.exit_code == 0, full
        assert _content(tmp_path / "b") == _content(tmp_path / "full")


def test_build_killed_before_saving_a_new_batch_id_finds_that_batch_by_its_metadata(tmp_path, monkeypatch):
    """The gap of the id file: killed after the server created the batch but before the answer (and the id) came
    back. The intent file written first makes the next run list the batches and wait for the one with its key."""
    monkeypatch.setenv("MTGAUNTLET_CACHE", "off")
    with _stack() as s:
        editor = s["servers"]["llm"]
        editor.stall_create.set()  # the batch is created, its id never reaches the first run
        proc = _spawn_batch_build(s, tmp_path)
        try:
            deadline = time.monotonic() + 120
            while not editor.batches:
                assert time.monotonic() < deadline and proc.poll() is None, "the build never created a batch"
                time.sleep(0.05)
            time.sleep(0.3)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            editor.stall_create.clear()
        (state,) = (tmp_path / "b" / "batches").glob("*.json")
        intent = json.loads(state.read_text())
        assert intent["batch_id"] is None  # the id was never saved ...
        (first,) = editor.batches
        assert editor.batches[first]["metadata"] == {"mtgauntlet_key": intent["key"]}  # ... but the batch has its key
        r = invoke(_args(s, tmp_path, "b", llm_opts=BATCH))
        assert r.exit_code == 0, r
        assert any(q["path"] == "/v1/batches?list" for q in editor.requests)
        assert editor.batches[first]["status"] == "completed"  # adopted, not created again:
        contents = [editor.files[b["input_file_id"]] for b in editor.batches.values()]
        assert len(set(contents)) == len(contents)
        for var in ("MTGAUNTLET_CONCURRENCY", "MTGAUNTLET_MAX_COST", "MTGAUNTLET_MAX_REQUESTS"):
            monkeypatch.setenv(var, "")
        full = invoke(_args(s, tmp_path, "full"))
        assert full.exit_code == 0, full
        assert _content(tmp_path / "b") == _content(tmp_path / "full")
