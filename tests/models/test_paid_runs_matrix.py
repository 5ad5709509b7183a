"""Issue #40: one fault matrix over every command that can reach a paid backend, against one local OpenAI-compatible
server that counts what it is paid (tests/support/openai_server.py).

The commands are read from the CLI (every command that takes ``--max-cost``), not listed by hand: a new paid
command without a scenario in tests/support/paid_commands.py fails `test_every_paid_command_is_in_the_matrix`.
Each command is run

- killed with SIGKILL (in a child process) and run again, at concurrency 8 with synchronous requests or at
  concurrency 1 with ``#batch=1``, in turn over the commands;
- stopped gracefully with SIGTERM or SIGINT (in turn) at concurrency 8, synchronous or ``#batch=1``, and run again;
- with an HTTP 400 and an answer with invalid usage, then again;
- under ``--max-cost`` (at concurrency 8) and under ``--max-requests``;

and every spec carries a planted secret (URL user info, ``#key=`` and the key variable ``#key_env``), looked for
in every file and every output. After each ending: nothing that reached the client is paid twice (a graceful stop
reached it all), what the command recorded is at most what the server billed and at least that minus the recorded
``unanswered_max_usd`` and ``unmetered_max_usd`` (equal after a graceful stop), a budget is never passed and a run
stopped by ``--max-cost`` spent at least the cap minus one request's worst case.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer
from tests.support.paid_commands import (
    COMMANDS,
    ENV_KEY,
    PRICE,
    SECRETS,
    answer_any_role,
    paid_commands,
    recorded_usage,
)


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("MATRIX_KEY", ENV_KEY)
    for var in ("MTGAUNTLET_CONCURRENCY", "MTGAUNTLET_MAX_COST", "MTGAUNTLET_MAX_REQUESTS", "OPENAI_API_KEY"):
        monkeypatch.setenv(var, "")


def test_every_paid_command_is_in_the_matrix():
    assert paid_commands() == set(COMMANDS)


# -- checks ----------------------------------------------------------------------------------------------------------
def _money(usage: dict) -> tuple[float, float, int]:
    """(recorded cost, its upper margin: unanswered + unmetered bounds, recorded requests)."""
    cost = sum(u.get("cost_usd") or 0.0 for u in usage.values())
    margin = sum((u.get("unanswered_max_usd") or 0.0) + (u.get("unmetered_max_usd") or 0.0) for u in usage.values())
    return cost, margin, sum(u["requests"] for u in usage.values())


def _check_accounts(srv: ScriptedServer, usage: dict | None, exact: bool) -> None:
    if usage is None:
        return
    cost, margin, _ = _money(usage)
    billed = srv.cost(PRICE)
    assert cost <= billed + 1e-9 and billed <= cost + margin + 1e-9, (cost, billed, margin, usage)
    if exact:
        assert abs(cost - billed) < 0.005, (cost, billed, usage)  # to the cent


def _no_secret(tmp: Path, outputs: list[str], given: tuple[Path, ...] = ()) -> None:
    """No secret in ``outputs`` nor in any file under ``tmp`` but the ``given`` inputs that hold one."""
    for text in outputs:
        assert not [s for s in SECRETS if s in text], text[-2000:]
    for path in tmp.rglob("*"):
        if path.is_file() and path not in given and path.stat().st_size < 50_000_000:
            data = path.read_bytes()
            assert not [s for s in SECRETS if s.encode() in data], path


# -- the matrix --------------------------------------------------------------------------------------------------------
def _opts(concurrency: int, batch: bool) -> str:
    return f",concurrency={concurrency}" + (",batch=1,poll=0.05" if batch else "")


def _fresh(srv: ScriptedServer) -> None:
    """Forget what preparing the inputs paid (a catalog, a breaker set are made with servers of their own)."""
    srv.usage.update(requests=0, prompt_tokens=0, completion_tokens=0)
    srv.paid.clear()


# hard kills run the command in a child process (see _started): one per command, with concurrency 8 and
# synchronous requests or concurrency 1 and the Batch API in turn
KILLS = [
    pytest.param(cmd, *((8, False) if i % 2 == 0 else (1, True)), id=cmd.replace(" ", "-"))
    for i, cmd in enumerate(COMMANDS)
]
# graceful stops run in this process (the signal sent to it while the command runs): SIGTERM and SIGINT in turn,
# concurrency 8, synchronous requests and the Batch API in turn
STOPS = [
    pytest.param(cmd, signal.SIGTERM if i % 2 == 0 else signal.SIGINT, 8, i % 4 >= 2, id=cmd.replace(" ", "-"))
    for i, cmd in enumerate(COMMANDS)
]


def _started(args: list[str], out: Path) -> subprocess.Popen:
    """Run ``gauntlet ARGS`` in a fresh interpreter (not a fork of this one: a fork of a process that has used
    OpenMP, as torch does, is killed by libgomp when it runs a parallel region); its output goes to ``out``."""
    with out.open("wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "mtgauntlet.cli.main", *args], stdout=log, stderr=subprocess.STDOUT, cwd=Path.cwd()
        )


@pytest.mark.parametrize("command, concurrency, batch", KILLS)
def test_killed_then_run_again(tmp_path, command, concurrency, batch):
    make, where = COMMANDS[command]
    with ScriptedServer(default=answer_any_role, latency=0.05) as srv:
        args = [str(a) for a in make(srv, tmp_path, "out", _opts(concurrency, batch))]
        _fresh(srv)
        child = _started(args, tmp_path / "killed.log")
        try:
            deadline = time.monotonic() + 180  # the child imports the torch-backed commands first
            while srv.usage["requests"] < 3 and time.monotonic() < deadline and child.poll() is None:
                time.sleep(0.005)
            in_flight = srv.in_flight
        finally:
            child.kill()
            child.wait()
        log = (tmp_path / "killed.log").read_text(errors="replace") if (tmp_path / "killed.log").exists() else ""
        assert srv.usage["requests"] >= 3, f"the run ended before it was killed: {log[-2000:]}"
        again = invoke(args)
        assert again.exit_code == 0, again.output
        assert srv.paid_twice() <= in_flight + concurrency, (srv.paid_twice(), in_flight)
        _check_accounts(srv, recorded_usage(where, tmp_path, "out"), exact=False)
    _no_secret(tmp_path, [again.output])


@pytest.mark.parametrize("command, sig, concurrency, batch", STOPS)
def test_stopped_gracefully_then_run_again(tmp_path, command, sig, concurrency, batch):
    make, where = COMMANDS[command]
    seen: list[int] = []  # a signal that came outside the command's scope does not end the tests
    saved = {s: signal.signal(s, lambda n, f: seen.append(n)) for s in (signal.SIGTERM, signal.SIGINT)}
    with ScriptedServer(default=answer_any_role, latency=0.05) as srv:
        args = make(srv, tmp_path, "out", _opts(concurrency, batch))
        _fresh(srv)
        sent = threading.Event()

        def send() -> None:
            deadline = time.monotonic() + 120
            while srv.usage["requests"] < 3 and time.monotonic() < deadline and not done.is_set():
                time.sleep(0.005)
            if not done.is_set():
                os.kill(os.getpid(), sig)
                sent.set()

        done = threading.Event()
        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        try:
            stopped = invoke(args)
        finally:
            done.set()
            sender.join()
            for s, old in saved.items():
                signal.signal(s, old)
        assert sent.is_set() and not seen, (seen, stopped.output)  # the signal came while the command ran
        assert stopped.exit_code == 128 + sig, stopped.output  # drained, then ended as interrupted
        again = invoke(args)
        assert again.exit_code == 0, again.output
        assert srv.paid_twice() == 0, srv.paid  # a graceful stop waited for every answer it had asked for
        _check_accounts(srv, recorded_usage(where, tmp_path, "out"), exact=True)
    _no_secret(tmp_path, [stopped.output, again.output])


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_http_400_and_invalid_usage_then_run_again(tmp_path, command):
    make, where = COMMANDS[command]
    with ScriptedServer(default=answer_any_role, latency=0.01) as srv:
        args = make(srv, tmp_path, "out", _opts(8, False) + ",retries=0")
        _fresh(srv)
        srv.script = [("usage", {"prompt_tokens": "many"}), ("status", 400)]
        first = invoke(args)
        assert first.exit_code in (0, 2), first.output
        again = invoke(args)
        assert again.exit_code == 0, again.output
        assert srv.paid_twice() == 0, srv.paid
        _check_accounts(srv, recorded_usage(where, tmp_path, "out"), exact=False)
    _no_secret(tmp_path, [first.output, again.output])


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("limit", ["--max-cost", "--max-requests"])
def test_a_budget_is_never_passed(tmp_path, command, limit):
    make, where = COMMANDS[command]
    value = "0.3" if limit == "--max-cost" else "5"
    with ScriptedServer(default=answer_any_role, latency=0.01) as srv:
        args = make(srv, tmp_path, "out", _opts(8, False))
        _fresh(srv)
        r = invoke([limit, value, *args])
        assert r.exit_code in (0, 3), r.output
        if limit == "--max-requests":
            assert srv.usage["requests"] <= 5
        else:
            assert srv.cost(PRICE) <= 0.3 + 1e-12
        if r.exit_code == 3:
            assert "budget reached" in r.stderr and "(answered)" in r.stderr, r.stderr
            recorded = recorded_usage(where, tmp_path, "out") if where != "score" else None
            journal = _journal(tmp_path, where)
            if limit == "--max-cost" and journal:
                worst = max(line.get("sent_usd", 0.0) for line in journal)
                cost, margin, _ = _money(recorded) if recorded else (0.0, 0.0, 0)
                assert cost + margin >= 0.3 - worst - 1e-9, (cost, margin, worst)
    _no_secret(tmp_path, [r.output])


def _journal(tmp: Path, where: str) -> list[dict]:
    paths = {"build": tmp / "out" / "usage.jsonl", "results": tmp / "out" / "usage.jsonl"}
    path = paths.get(where)
    if path is None or not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_metrics_credentials_reach_no_file_and_no_output(tmp_path):
    """Item 7: ``-m llm-as-qe:openai:m@http://alice:PW@HOST/v1#key=sk-...`` was the metric's name in the results
    manifest, the metric_score and leaderboard Parquet, the page's title, ``export seg-score`` file names, ``--json``,
    ``query`` and ``mg.evaluate``'s return: every command that writes or prints what the run stored."""
    import mtgauntlet as mg

    make, _ = COMMANDS["evaluate metric"]
    with ScriptedServer(default=answer_any_role) as srv:
        args = make(srv, tmp_path, "out", _opts(8, False))
        outputs = [invoke([*args, "--json"]).output]
        spec = next(a for a in args if isinstance(a, str) and a.startswith("llm-as-qe:"))
        returned = mg.evaluate("metric", releases=tmp_path / "releases", metric=spec, out=tmp_path / "out2")
        outputs.append(json.dumps(returned))
    results = tmp_path / "out"
    for extra in (
        ["leaderboard", "--results", results, "--releases", tmp_path / "releases", "--out", tmp_path / "lb.html"],
        ["export", "seg-score", results, "--out", tmp_path / "wmt", "--releases", tmp_path / "releases", "--json"],
        ["query", "--releases", tmp_path / "releases", "--results", results, "-f", "json", "SELECT * FROM leaderboard"],
        [
            "query",
            "--releases",
            tmp_path / "releases",
            "--results",
            results,
            "SELECT DISTINCT metric FROM metric_score",
        ],
    ):
        r = invoke(extra)
        assert r.exit_code == 0, r.output
        outputs.append(r.output)
    assert "llm-as-qe:openai:qa@http://127.0.0.1" in outputs[-1]  # named, by its public spec
    _no_secret(tmp_path, outputs)
    assert [p.name for p in (tmp_path / "wmt").iterdir() if "matrix" in p.name or "key" in p.name] == []


def test_validate_with_an_llm_judge_runs_in_the_same_scope(tmp_path):
    """`validate` takes no --max-cost of its own but its rules may name a paid LLM judge: the command line's budget
    holds, every request is journalled beside the report, and the secret reaches no file or output."""
    from tests.support.paid_commands import _breaker_set, _spec

    build = _breaker_set(tmp_path)
    with ScriptedServer(default=answer_any_role) as srv:
        rules = tmp_path / "rules.yaml"
        rules.write_text(f"version: 1\noptions:\n  judge: {_spec(srv, 'bj', ',concurrency=8')}\n", encoding="utf-8")
        args = ["validate", build, "--rules", rules, "--report", tmp_path / "report"]
        stopped = invoke(["--max-requests", "1", *args])
        assert stopped.exit_code == 3 and "--max-requests 1" in stopped.stderr, stopped.output
        assert srv.usage["requests"] == 1
        journal = [json.loads(x) for x in (tmp_path / "report" / "usage.jsonl").read_text().splitlines()]
        assert sum(line.get("sent", 0) for line in journal) == 1 == sum(line.get("settled", 0) for line in journal)
        done = invoke(args)
        assert done.exit_code in (0, 1), done.output  # 1: a rule failed, which is no error of the run
        assert srv.paid_twice() == 0
    _no_secret(tmp_path, [stopped.output, done.output], given=(rules,))
