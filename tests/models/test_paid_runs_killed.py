"""Paid builds killed at any point (SIGKILL, SIGTERM, SIGINT; synchronous requests and the Batch API; concurrency 1
and 8) and run again, against local OpenAI-compatible servers that count what they are paid (tests/support/openai_server.py):
no answer that reached the client is paid again (answers paid twice are at most the requests in flight at the kill),
the records are those of an uninterrupted build, and build.json's usage after the final run is what the servers were
paid (requests, and the cost to the cent)."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.models.test_usage import _content
from tests.support.cli import REPO, invoke
from tests.support.scripted_roles import scripted_stack, seeded_editor

PRICE = (1.0, 2.0)  # USD per 1M tokens: a request costs ~0.0001 USD, the requests in flight at a kill < 1 cent
OPTS = f"#price={PRICE[0]:g}/{PRICE[1]:g}"
BATCH = ",batch=1,poll=0.05"
SEEDS = [
    f"The {w} report number {i} was read aloud to the committee."
    for i, w in enumerate(
        [
            "annual",
            "budget",
            "audit",
            "safety",
            "court",
            "census",
            "weather",
            "harbour",
            "tax",
            "trade",
            "water",
            "rail",
        ]
    )
]


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache"))
    for var in ("MTGAUNTLET_CONCURRENCY", "MTGAUNTLET_MAX_COST", "MTGAUNTLET_MAX_REQUESTS"):
        monkeypatch.setenv(var, "")


def _args(s, tmp_path, out, concurrency, batch):
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\n" + "".join(f"{t}\n" for t in SEEDS), encoding="utf-8")
    llm = s["llm"] + OPTS + (BATCH if batch else "")
    return [
        "build",
        "mtbreaker",
        "--seeds",
        seeds,
        "--variant",
        "seeded+qe",
        "--steps",
        "2",
        "--llm",
        llm,
        "--mt",
        s["mt"] + OPTS,
        "--qe",
        f"{s['qe_a']}{OPTS},{s['qe_b']}{OPTS}",
        "--no-language-guard",
        "--shard-size",
        "12",
        "--concurrency",
        str(concurrency),
        "--out",
        tmp_path / out,
    ]


def _paid_requests(s) -> int:
    return sum(srv.usage["requests"] for srv in s["servers"].values())


def _kill_then_rerun(s, tmp_path, sig, concurrency, batch, kill_at):
    args = [str(a) for a in _args(s, tmp_path, "b", concurrency, batch)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mtgauntlet.cli.main", *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 180
        while _paid_requests(s) < kill_at:
            assert proc.poll() is None, f"the build ended before the kill: {proc.stderr.read()[-2000:]!r}"
            assert time.monotonic() < deadline, "the build never reached the kill point"
            time.sleep(0.005)
        in_flight = sum(srv.in_flight for srv in s["servers"].values())
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0, "the build finished before the signal arrived"
    assert not (tmp_path / "b" / "data").exists() or not list((tmp_path / "b" / "data").glob("part-*.parquet"))
    r = invoke(_args(s, tmp_path, "b", concurrency, batch))
    assert r.exit_code == 0, r
    return json.loads((tmp_path / "b" / "build.json").read_text()), in_flight


def _check(s, tmp_path, manifest, in_flight, concurrency, batch):
    # requests in flight at the kill: those the servers were handling, plus (a race of a few ms) answers sent
    # just before it that the client had not read yet: at most one backend's concurrency
    most = in_flight + concurrency
    assert sum(srv.paid_twice() for srv in s["servers"].values()) <= most, [
        (role, srv.paid_twice()) for role, srv in s["servers"].items()
    ]
    usage = manifest["usage"]
    counted = sum(u["requests"] for u in usage.values())
    paid = _paid_requests(s)
    # an answer paid while the client was being killed never reached it: neither counted nor cached
    assert 0 <= paid - counted <= most, (paid, counted, most)
    cost = sum(u["cost_usd"] for u in usage.values())
    server_cost = sum(srv.cost(PRICE) for srv in s["servers"].values())
    assert abs(cost - server_cost) < 0.005 and cost <= server_cost + 1e-9, (cost, server_cost)  # to the cent
    assert all(u["invalid_usage"] == 0 and u["failures"] == 0 for u in usage.values())
    # the killed and resumed build gives the records of an uninterrupted one (from the cache: nothing is paid)
    before = paid
    full = invoke(_args(s, tmp_path, "full", concurrency, batch))
    assert full.exit_code == 0, full
    assert _content(tmp_path / "b") == _content(tmp_path / "full")
    assert _paid_requests(s) == before


def _run(tmp_path, sig, concurrency, batch, kill_at):
    with scripted_stack(editor_fn=seeded_editor(), latency=0.03) as s:
        manifest, in_flight = _kill_then_rerun(s, tmp_path, sig, concurrency, batch, kill_at)
        _check(s, tmp_path, manifest, in_flight, concurrency, batch)


def test_a_build_killed_mid_shard_pays_again_only_what_was_in_flight(tmp_path):
    """The fast variant: SIGKILL, synchronous requests one at a time, killed in the middle of its only shard (half
    way through the editor's first round of 12 requests: the 36 requests before it translated and scored the
    seeds)."""
    _run(tmp_path, signal.SIGKILL, 1, False, 42)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=["kill", "term", "int"])
@pytest.mark.parametrize(
    "concurrency, batch, kill_at",
    [(1, False, 18), (8, False, 66), (8, True, 90)],
    ids=["sync-c1", "sync-c8", "batch-c8"],
)
def test_killed_paid_builds_are_never_paid_twice_and_account_for_every_paid_answer(
    tmp_path, sig, concurrency, batch, kill_at
):
    _run(tmp_path, sig, concurrency, batch, kill_at)
