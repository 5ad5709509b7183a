"""Issue #25 (16): the local Ray cluster that `--engine ray` starts does not outlive its driver, whether the
driver finishes, is terminated or is SIGKILLed, and the watchdog that sees to it touches only what the
driver started while starting the cluster."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from tests.support.cli import REPO

WORDS = "the old harbour town kept its lighthouse burning through every winter storm since records began".split()


def _tree(pid: int) -> dict[int, tuple[float, str]]:
    try:
        kids = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return {}
    found = {}
    for kid in kids:
        try:
            found[kid.pid] = (kid.create_time(), kid.name())
        except psutil.Error:
            pass
    return found


def _running(seen: dict[int, tuple[float, str]]) -> dict[int, str]:
    """The processes of ``seen`` still running as themselves (a zombie has ended)."""
    left = {}
    for pid, (created, name) in seen.items():
        try:
            proc = psutil.Process(pid)
            if proc.create_time() == created and proc.status() != psutil.STATUS_ZOMBIE:
                left[pid] = name
        except psutil.Error:
            pass
    return left


def _in_session(sid: int) -> dict[int, tuple[float, str]]:
    """Every process of session ``sid``: all that a driver started in a session of its own, and what those
    started in turn (a process reparented after its parent died included), except those that left it."""
    found = {}
    for proc in psutil.process_iter(["create_time", "name"]):
        try:
            if os.getsid(proc.pid) == sid:
                found[proc.pid] = (proc.info["create_time"], proc.info["name"])
        except OSError:
            pass
    return found


def _wait_until_gone(seen, within: float = 15.0, session: int | None = None) -> dict[int, str]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        left = _running({**seen, **(_in_session(session) if session else {})})
        if not left:
            break
        time.sleep(0.25)
    return left


def _kill_all(seen) -> None:
    for pid in _running(seen):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _env(**extra) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    return {**env, "PYTHONPATH": str(REPO), "MTGAUNTLET_RAY_CPUS": "1", **extra}


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM", "finished"])
def test_local_ray_cluster_ends_with_its_driver(tmp_path, how):
    rows = ["src"] + [" ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(3 + i % 17)) for i in range(2000)]
    (tmp_path / "in.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "scored.parquet"
    driver = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mtgauntlet.cli.main",
            "score",
            "difficulty",
            "--input",
            str(tmp_path / "in.tsv"),
            "--src-lang",
            "en",
            "--estimator",
            "length",
            "--engine",
            "ray",
            "--shard-size",
            "100",
            "--out",
            str(out),
        ],
        env=_env(),
        cwd=tmp_path,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "stderr", "w"),
    )
    seen: dict[int, tuple[float, str]] = {}
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and driver.poll() is None:
            seen.update(_tree(driver.pid))
            names = {name for _, name in seen.values()}
            if how != "finished" and {"raylet", "gcs_server"} <= names:
                break
            time.sleep(0.1)
        if how == "finished":
            assert driver.wait(timeout=180) == 0, (tmp_path / "stderr").read_text()
            assert out.exists()
        else:
            assert {"raylet", "gcs_server"} <= {name for _, name in seen.values()}, (tmp_path / "stderr").read_text()
            if how == "SIGKILL":
                time.sleep(1.0)  # the raylet starts its agents; SIGTERM comes while Ray is still starting
                seen.update(_tree(driver.pid))
            driver.send_signal(getattr(signal, how))
            driver.wait(timeout=60)
        assert len(seen) >= 3, seen
        assert _wait_until_gone(seen, session=driver.pid) == {}
    finally:
        if driver.poll() is None:
            driver.kill()
        _kill_all({**seen, **_in_session(driver.pid)})


DRIVER = """
import subprocess, sys, time
from mtgauntlet.engines.ray_watchdog import guard_local_cluster

bystander = subprocess.Popen(["sleep", "120"])                        # the driver's own, before the cluster
with guard_local_cluster():
    cluster = subprocess.Popen(["sh", "-c", "sleep 120 & sleep 120 & wait"])  # a "cluster"
    # a process whose parent ends at once (as Ray's agents when the raylet dies): never in the driver's tree
    orphan = int(subprocess.run(["sh", "-c", "sleep 120 >/dev/null 2>&1 & echo $!"], capture_output=True,
                                text=True).stdout)
    time.sleep(1.0)
later = subprocess.Popen(["sleep", "120"])                            # the driver's own, after the cluster
print(bystander.pid, cluster.pid, later.pid, orphan, flush=True)
time.sleep(120)
"""


def test_watchdog_ends_only_what_started_with_the_cluster(tmp_path):
    """Without Ray: what the driver started around ``guard_local_cluster`` dies with it, its other children
    (started before or after) do not."""
    (tmp_path / "driver.py").write_text(textwrap.dedent(DRIVER))
    driver = subprocess.Popen(
        [sys.executable, str(tmp_path / "driver.py")],
        env=_env(),
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    seen: dict[int, tuple[float, str]] = {}
    try:
        bystander, cluster, later, orphan = map(int, driver.stdout.readline().split())
        time.sleep(1.0)  # the watchdog's next look adopts the cluster's child
        seen = _tree(driver.pid)
        orphaned = {orphan: (psutil.Process(orphan).create_time(), "sleep")}
        assert orphan not in seen
        watchdogs = [p for p, (_, name) in seen.items() if name.startswith("python")]
        started = {cluster, *_tree(cluster), *watchdogs}
        assert len(watchdogs) == 1 and len(started) == 4 and set(seen) == started | {bystander, later}, seen
        driver.kill()
        driver.wait()
        assert _wait_until_gone({**{p: seen[p] for p in started}, **orphaned}) == {}
        assert set(_running(seen)) == {bystander, later}
    finally:
        if driver.poll() is None:
            driver.kill()
        _kill_all({**seen, **orphaned})
