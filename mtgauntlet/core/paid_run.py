"""The one scope every command that can reach a paid backend runs in: `paid_run`.

It opens, in this order, the command's budget (``--max-cost`` / ``--max-requests``: :mod:`.budget`, the rules in
:mod:`.usage`), its usage journal beside its output (``OUT/usage.jsonl``: :mod:`.usage_journal`) and the graceful
stop on signals (`drain_on_signals`); the `PaidRun` it yields sums what the run (and the killed runs before it, from
the journal) used: `PaidRun.usage`.

**A graceful stop drains.** On the first SIGTERM or SIGINT (Ctrl-C) no request leaves any more; the requests in
flight are waited for, at most `DRAIN_SECONDS`, and their answers and usage are stored (each answer is cached the
moment it arrives); then the command ends as interrupted (`Interrupted`: exit 130 for SIGINT, 143 for SIGTERM), its
manifest written with the usage so far. A second signal, or the end of the wait, aborts at once: the requests still
in flight stay in the journal as ``unanswered``, with what they may cost at most. With nothing in flight, the first
signal ends the command at once.
"""

from __future__ import annotations

import _thread
import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.core import usage_journal
from mtgauntlet.core.budget import budget
from mtgauntlet.core.usage import LEDGER
from mtgauntlet.core.usage_report import report, since

DRAIN_SECONDS = 60.0  # how long a graceful stop waits for the requests in flight (stated in --help)
SIGNALS = (signal.SIGINT, signal.SIGTERM)
log = logging.getLogger(__name__)


class Interrupted(KeyboardInterrupt):
    """The command was stopped by a signal once its requests in flight were recorded (see the module)."""

    last: Interrupted | None = None  # the latest one raised in this process (the CLI's exit code names its signal)

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.exit_code = 128 + signum
        Interrupted.last = self


def last_interrupt() -> Interrupted | None:
    """The `Interrupted` raised by the latest graceful stop, taken (None: none since the last call)."""
    found, Interrupted.last = Interrupted.last, None
    return found


class _Drain:
    """The state of the graceful stop of this process: 0 running, 1 draining, 2 drained (the main thread is to
    stop), 3 stopped (`Interrupted` raised)."""

    def __init__(self) -> None:
        self.depth = 0
        self.phase = 0
        self.signum: int = signal.SIGINT.value
        self.seconds = DRAIN_SECONDS
        self.saved: dict[int, Any] = {}


_DRAIN = _Drain()


def stop_if_draining() -> None:
    """Raise `Interrupted` where a graceful stop began and the requests of this call ended (called when a paid
    call returns to the main thread: :meth:`mtgauntlet.models.openai_http.LoopThread.run`)."""
    if LEDGER.draining and _DRAIN.phase in (1, 2) and threading.current_thread() is threading.main_thread():
        _DRAIN.phase = 3
        raise Interrupted(_DRAIN.signum)


def _abort(signum: int) -> None:
    """Die of the signal now (its default action): what is in flight stays unanswered in the journal."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _handler(signum: int, frame: Any) -> None:
    if _DRAIN.phase == 0:
        _DRAIN.signum = signum
        with LEDGER._lock:
            LEDGER.draining = signal.Signals(signum).name
            in_flight = LEDGER.in_flight
        if not in_flight:
            _DRAIN.phase = 3
            raise Interrupted(signum)
        _DRAIN.phase = 1
        log.warning(
            "stopping: waiting up to %g s for %d request(s) in flight to be recorded (a second signal aborts at once)",
            _DRAIN.seconds,
            in_flight,
        )
        threading.Thread(target=_watch, args=(signum,), name="mtgauntlet-drain", daemon=True).start()
    elif _DRAIN.phase == 2:
        _DRAIN.phase = 3
        raise Interrupted(_DRAIN.signum)
    else:
        _abort(signum)


def _watch(signum: int) -> None:
    """Wait for the requests in flight; past `DRAIN_SECONDS`, abort. Once they ended, stop the main thread
    where it did not stop by itself (it was not waiting on a request)."""
    deadline = time.monotonic() + _DRAIN.seconds
    with LEDGER._lock:
        while LEDGER.in_flight and time.monotonic() < deadline:
            LEDGER._lock.wait(0.2)
        left = LEDGER.in_flight
    if left:
        log.warning("stopping: %d request(s) still in flight after %g s; aborting", left, _DRAIN.seconds)
        _abort(signum)
        return
    time.sleep(0.5)  # the main thread, waiting on those requests, stops by itself (stop_if_draining)
    if _DRAIN.phase == 1:
        _DRAIN.phase = 2
        _thread.interrupt_main(signal.Signals(signum))


@contextlib.contextmanager
def drain_on_signals(seconds: float = DRAIN_SECONDS) -> Iterator[None]:
    """SIGINT and SIGTERM stop the run gracefully inside (see the module); outside the main thread, or inside
    another such scope, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _DRAIN.depth:
        _DRAIN.depth += 1
        try:
            yield
        finally:
            _DRAIN.depth -= 1
        return
    _DRAIN.depth, _DRAIN.phase, _DRAIN.seconds = 1, 0, seconds
    _DRAIN.saved = {s: signal.signal(s, _handler) for s in SIGNALS}
    try:
        yield
    finally:
        for s, old in _DRAIN.saved.items():
            signal.signal(s, old)
        _DRAIN.depth, _DRAIN.phase = 0, 0
        with LEDGER._lock:
            LEDGER.draining = None


@dataclass
class PaidRun:
    """What `paid_run` yields: the run's journal (None without an output folder) and the ledger before it."""

    journal: Path | None
    before: dict[str, dict[str, Any]] = field(default_factory=dict)

    def usage(self) -> dict[str, dict]:
        """Usage per spec (:func:`.usage_report.report`): the whole journal's (this run and every earlier run into
        the same folder, killed ones included), else this run's."""
        if self.journal is not None:
            return report(usage_journal.journal_totals(self.journal))
        return report(since(self.before))

    def this_run(self) -> dict[str, dict]:
        """Usage per spec of this run only (in this process)."""
        return report(since(self.before))


@contextlib.contextmanager
def paid_run(
    out: str | Path | None = None,
    *,
    max_cost: float | None = None,
    max_requests: int | None = None,
    carried: dict[str, dict] | None = None,
    journal: str | Path | None = None,
) -> Iterator[PaidRun]:
    """The scope of a command that can reach a paid backend (see the module): its budget, its usage journal
    (``journal``, else ``out/usage.jsonl`` when ``out`` is a folder; ``carried``: the usage of runs made before the
    folder kept a journal) and the graceful stop on signals."""
    path = Path(journal) if journal is not None else (Path(out) / usage_journal.JOURNAL if out is not None else None)
    with contextlib.ExitStack() as stack:
        stack.enter_context(budget(max_cost, max_requests))
        if path is not None:
            stack.enter_context(usage_journal.journal(path, carried=carried))
        stack.enter_context(drain_on_signals())
        yield PaidRun(path, LEDGER.snapshot())
