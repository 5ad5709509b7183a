"""The local Ray cluster this process starts does not outlive it (issue #25, 16).

``ray.init()`` without an address starts a GCS server, a raylet, agents and workers as processes of their own.
Ray shuts them down at exit, also on SIGTERM (its handler exits) and Ctrl-C, but not when the driver is
SIGKILLed or dies while ``ray.init`` is still starting them: some then stay alive. :func:`guard_local_cluster`,
around ``ray.init``, first starts a watchdog (``python -m mtgauntlet.engines.ray_watchdog``): a child of the
driver in a session of its own, so a Ctrl-C or a kill of the driver's process group leaves it running.
Until ``ray.init`` returns, the watchdog adopts every new descendant of the driver; then the driver tells it
exactly which of its new children Ray started, and from there on it adopts only their descendants (workers
start later, under the raylet). Every :data:`POLL_S` it looks; once its parent, the driver, is gone, it
terminates every adopted process still alive (SIGKILL after :data:`GRACE_S`) and exits; it also exits when all
of them have ended (``ray.shutdown()`` ran). A process is known by pid *and* start time, so a reused pid is
never touched, and a cluster at ``RAY_ADDRESS`` is never guarded: only what this process started.

A process whose parent dies between two looks is reparented and leaves the tree (the raylet starts its agents
while ``ray.init`` runs; if the driver is killed then, the raylet dies at once and the agents it just started are
orphans the tree never showed). So while ``ray.init`` runs the driver's environment carries a token of its own
(:data:`TOKEN_ENV`), which every process of the cluster inherits, and before it ends the watchdog also adopts
every process of this user that carries the token — only these can: the driver's children before and after
``ray.init`` do not.
"""

from __future__ import annotations

import logging
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

POLL_S = 0.5
GRACE_S = 2.0
READY_TIMEOUT_S = 20.0
TOKEN_ENV = "MTGAUNTLET_RAY_GUARD"
log = logging.getLogger(__name__)
_RUNNING: list[subprocess.Popen] = []  # held for the life of the driver: the pipe stays open, no early reaping

Known = dict  # pid -> create_time


def _descendants(pid: int) -> Known:
    import psutil

    found = {}
    try:
        for child in psutil.Process(pid).children(recursive=True):
            try:
                found[child.pid] = child.create_time()
            except psutil.Error:
                pass
    except psutil.Error:
        pass
    return found


def _alive(known: Known) -> list:
    """The known processes still running as themselves (same pid and start time), zombies left out."""
    import psutil

    procs = []
    for pid, created in known.items():
        try:
            proc = psutil.Process(pid)
            if proc.create_time() == created and proc.status() != psutil.STATUS_ZOMBIE:
                procs.append(proc)
        except psutil.Error:
            pass
    return procs


def _carriers(token: str, driver: int) -> Known:
    """This user's processes whose environment carries ``token`` (what the driver started during ``ray.init``;
    the driver itself never: its own environment block is the one it started with)."""
    import psutil

    found: Known = {}
    for proc in psutil.process_iter(["uids", "create_time"]):
        try:
            if (
                proc.pid not in (os.getpid(), driver)
                and proc.info["uids"].real == os.getuid()
                and proc.environ().get(TOKEN_ENV) == token
            ):
                found[proc.pid] = proc.info["create_time"]
        except (psutil.Error, OSError, TypeError, AttributeError):
            pass
    return found


def _freeze(procs: list) -> list:
    """Stop ``procs`` and then, until no new one appears, their descendants; all of them. A stopped process
    cannot start another, so a process the cluster is starting at this moment (the raylet starts its agents
    while the driver's ``ray.init`` runs) is a descendant here, never an orphan that escapes the termination."""
    import psutil

    frozen: dict[int, psutil.Process] = {}
    todo = list(procs)
    while todo:
        for proc in todo:
            try:
                proc.suspend()
            except psutil.Error:
                pass
            frozen[proc.pid] = proc
        found: dict[int, psutil.Process] = {}
        for proc in todo:
            try:
                found.update({c.pid: c for c in proc.children(recursive=True) if c.pid not in frozen})
            except psutil.Error:
                pass
        todo = list(found.values())
    return list(frozen.values())


def _terminate(procs: list) -> None:
    """SIGTERM every process of the frozen trees (delivered as they continue), SIGKILL what is left after
    :data:`GRACE_S`, with whatever those started meanwhile."""
    import psutil

    procs = _freeze(procs)
    for proc in procs:
        try:
            proc.terminate()
            proc.resume()
        except psutil.Error:
            pass
    _, left = psutil.wait_procs(procs, timeout=GRACE_S)
    for proc in _freeze(left):
        try:
            proc.kill()
        except psutil.Error:
            pass


def _encode(known: Known) -> str:
    return " ".join(f"{pid}:{created!r}" for pid, created in known.items())


def _decode(text: str) -> Known:
    known = {}
    for item in text.split():
        pid, _, created = item.partition(":")
        known[int(pid)] = float(created)
    return known


class Watchdog:
    """The watchdog's side: ``before`` are the driver's children that are not the cluster's."""

    def __init__(self, driver: int, before: Known, token: str = ""):
        self.driver, self.before, self.token, self.sealed = driver, before, token, False
        self.known: Known = {}

    def look(self) -> list:
        """Adopt what started since the last look; return the adopted processes still alive."""
        if not self.sealed:  # ray.init is running: every new descendant of the driver is the cluster's
            new = _descendants(self.driver)
            self.known.update({p: t for p, t in new.items() if p != os.getpid() and self.before.get(p) != t})
        for proc in _alive(self.known):
            self.known.update(_descendants(proc.pid))
        alive = _alive(self.known)
        self.known = {proc.pid: self.known[proc.pid] for proc in alive}  # the ended ones are forgotten
        return alive

    def seal(self, started: Known) -> None:
        """``ray.init`` returned: the cluster is ``started`` (and what they start), nothing else."""
        under: Known = {}
        for root in started:
            under.update(_descendants(root))
        self.known = {**{p: t for p, t in self.known.items() if under.get(p) == t}, **started}
        self.sealed = True

    def end(self, procs: list) -> None:
        """Terminate ``procs`` and every process that carries the token, until none is left (a few rounds: a
        process killed in one round may have orphaned what it was starting)."""
        for _ in range(3):
            if self.token:
                procs = list({p.pid: p for p in [*procs, *_alive(_carriers(self.token, self.driver))]}.values())
            if not procs:
                return
            _terminate(procs)
            procs = []

    def run(self, channel) -> None:
        self.look()
        print("ready", flush=True)
        while True:
            procs = self.look()
            if os.getppid() != self.driver:
                self.end(procs)
                return
            if self.sealed and not procs:
                self.end([])  # ray.shutdown() ran: nothing it left behind outlives it either
                return
            readable, _, _ = select.select([channel], [], [], POLL_S)
            if readable:
                line = channel.readline()
                if line.startswith("started"):
                    self.seal(_decode(line[len("started") :]))
                elif not line:  # the driver closed its end: it is exiting, the next look tells
                    time.sleep(POLL_S)


@contextmanager
def guard_local_cluster() -> Iterator[None]:
    """Around ``ray.init()`` of a local cluster: the processes it starts end with this one (see the module doc)."""
    if os.name == "nt":  # no sessions, no select on pipes: Ray's own shutdown only
        yield
        return
    _RUNNING[:] = [proc for proc in _RUNNING if proc.poll() is None]  # reap the watchdogs of ended clusters
    me = os.getpid()
    before = _descendants(me)
    token = f"{me}-{time.time_ns()}-{os.urandom(8).hex()}"
    watchdog = _start_watchdog(before, token)
    previous = os.environ.get(TOKEN_ENV)
    os.environ[TOKEN_ENV] = token  # inherited by every process ray.init starts, and by theirs
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(TOKEN_ENV, None)
        else:
            os.environ[TOKEN_ENV] = previous
        started = {
            p: t for p, t in _descendants(me).items() if before.get(p) != t and (watchdog is None or p != watchdog.pid)
        }
        if watchdog is not None and watchdog.stdin is not None:  # started with stdin=PIPE: always a pipe
            try:
                watchdog.stdin.write(f"started {_encode(started)}\n")
                watchdog.stdin.flush()
            except OSError:
                log.warning("the Ray watchdog ended early: the local cluster may outlive this process")


def _start_watchdog(before: Known, token: str) -> subprocess.Popen | None:
    root = str(Path(__file__).resolve().parents[2])  # the watchdog imports this module from the same place
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mtgauntlet.engines.ray_watchdog", str(os.getpid()), _encode(before), token],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        close_fds=True,
    )
    stdout = proc.stdout
    assert stdout is not None  # stdout=PIPE
    ready, _, _ = select.select([stdout], [], [], READY_TIMEOUT_S)
    if ready and stdout.readline().strip() == "ready":
        _RUNNING.append(proc)
        return proc
    log.warning("the Ray watchdog did not start: the local cluster may outlive this process if it is killed")
    proc.kill()
    proc.wait()
    return None


def main(argv: list[str]) -> None:
    driver, before, token = argv
    Watchdog(int(driver), _decode(before), token).run(sys.stdin)


if __name__ == "__main__":
    main(sys.argv[1:])
