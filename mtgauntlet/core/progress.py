"""Progress display shared by every long-running command: a rich bar on a terminal, otherwise plain lines.

Everything goes to stderr (stdout carries a command's result: a table, a JSON object). ``gauntlet -q`` turns
it off. Code that works inside one unit of a runner (a builder's shard, an evaluation's metric) reports how far
it got with :func:`step` (``step(3, 11)``: 3 of the unit's 11 steps are done) and can split a unit with
:func:`unit`; both are no-ops where no progress display is active, so library code may call them freely.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import sys
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress

QUIET_ENV = "MTGAUNTLET_QUIET"
EVERY_ENV = "MTGAUNTLET_PROGRESS_EVERY"  # seconds between two plain progress lines (a log, a pipe)

_ACTIVE: contextvars.ContextVar[Progress | None] = contextvars.ContextVar("mtgauntlet_progress", default=None)
# Set by the Python API (``mg.build(..., progress=True)``): "bar" shows a progress bar (a terminal or Jupyter),
# "quiet" prints nothing at all; None (the CLI) follows -q and whether stderr is a terminal.
_MODE: contextvars.ContextVar[str | None] = contextvars.ContextVar("mtgauntlet_output_mode", default=None)
log = logging.getLogger("mtgauntlet")


def quiet() -> bool:
    """``gauntlet -q`` or a silent API call: no progress and no informational lines."""
    mode = _MODE.get()
    if mode is not None:
        return mode == "quiet"
    return os.environ.get(QUIET_ENV) == "1"


def info(message: str) -> None:
    """An informational line on stderr (a start/end note, a count); under ``-q`` and in a silent API call it goes
    to the ``mtgauntlet`` logger instead."""
    if quiet():
        log.info(message)
    else:
        print(message, file=sys.stderr, flush=True)


def want_bar(progress: bool | None) -> bool:
    """A rich bar (True) or plain lines (False): as asked, else as the API call asked, else a bar when stderr is
    a terminal."""
    if progress is not None:
        return progress
    return _MODE.get() == "bar" or sys.stderr.isatty()


@contextlib.contextmanager
def output_mode(progress: bool):
    """Inside: a progress bar (``progress``) or nothing at all on stdout/stderr (the Python API's default)."""
    token = _MODE.set("bar" if progress else "quiet")
    try:
        yield
    finally:
        _MODE.reset(token)


@contextlib.contextmanager
def datasets_quiet():
    """Inside, in a quiet run (``-q``, a silent API call): no progress bars from ``datasets`` ("Flattening the
    indices", "Map"); their setting is restored afterwards."""
    import datasets

    was = datasets.is_progress_bar_enabled()
    if was and quiet():
        datasets.disable_progress_bars()
    try:
        yield
    finally:
        if was and not datasets.is_progress_bar_enabled():
            datasets.enable_progress_bars()


def in_notebook() -> bool:
    """True inside a Jupyter kernel (IPython with a kernel), where a terminal bar cannot draw itself."""
    ipython = sys.modules.get("IPython")
    try:
        shell = ipython.get_ipython() if ipython is not None else None
    except Exception:  # an IPython without a running shell
        return False
    return getattr(shell, "kernel", None) is not None


class NotebookBar:
    """A progress bar for Jupyter that needs nothing but IPython (no ipywidgets): one output that is replaced in
    place (``display(..., display_id=True)``), at most every ``every`` seconds and always at the end, so that it
    ends at what was done (``N/N``) however fast the run was."""

    WIDTH = 30

    def __init__(self, label: str, total: float, done: float, every: float = 0.2):
        from IPython.display import display

        self.label, self.total, self.done, self.eta, self.every = label, total, done, "", every
        self._shown = 0.0
        self._handle = display(self._bundle(), raw=True, display_id=True)

    def _text(self) -> str:
        filled = int(self.WIDTH * min(self.done / self.total, 1.0)) if self.total else self.WIDTH
        return (
            f"{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {_count(self.done)}/{_count(self.total)}"
            + (f" {self.eta}" if self.eta else "")
        )

    def _bundle(self) -> dict:
        import html

        return {"text/plain": self._text(), "text/html": f"<pre>{html.escape(self._text())}</pre>"}

    def update(self, _task=None, *, completed: float, description: str, eta: str = "") -> None:
        self.done, self.label, self.eta = completed, description, eta
        now = time.monotonic()
        if now - self._shown >= self.every:
            self._shown = now
            self._handle.update(self._bundle(), raw=True)

    def stop(self) -> None:
        self._handle.update(self._bundle(), raw=True)


def step(done: float, total: float) -> None:
    """``done`` of the current unit's ``total`` steps are finished (a no-op outside a progress display)."""
    p = _ACTIVE.get()
    if p is not None and total > 0:
        p._step(done / total)


@contextlib.contextmanager
def unit(items: float):
    """The work inside is ``items`` items' worth of the current unit (a no-op outside a progress display)."""
    p = _ACTIVE.get()
    if p is None:
        yield
        return
    with p.unit(items):
        yield


class Eta:
    """Time left from the rate over a sliding window of recent progress, starting at the first progress seen
    (the first item's warm-up, a model load, does not count), and only once ``min_items`` items and
    ``min_seconds`` seconds are behind it: an estimate from one item was off by 10-100x."""

    def __init__(self, window: float = 60.0, min_items: float = 2.0, min_seconds: float = 3.0):
        self.window, self.min_items, self.min_seconds = window, min_items, min_seconds
        self.samples: deque[tuple[float, float]] = deque()
        self.start: float | None = None  # the position when the clock started; samples begin at the first move

    def add(self, now: float, done: float) -> None:
        if self.start is None:
            self.start = done
        if done <= self.start:  # nothing finished yet: the warm-up is no evidence of the rate
            return
        self.samples.append((now, done))
        while len(self.samples) > 3 and self.samples[1][0] < now - self.window:
            self.samples.popleft()

    def rate(self) -> float | None:
        """Items per second over the window, or None while the estimate cannot be trusted yet."""
        if len(self.samples) < 2:
            return None
        (t0, d0), (t1, d1) = self.samples[0], self.samples[-1]
        if d1 - d0 < self.min_items or t1 - t0 < self.min_seconds:
            return None
        return (d1 - d0) / (t1 - t0)

    def left(self, done: float, total: float) -> float | None:
        r = self.rate()
        return (total - done) / r if r and done < total else None


def _count(x: float) -> str:
    return f"{x:.0f}" if abs(x - round(x)) < 1e-9 else f"{x:.1f}"


class Progress:
    """A rich progress bar on stderr when ``enabled`` (a terminal); otherwise (a log file, a pipe) a plain line
    on stderr at most every ``every`` seconds and at the end, with the rate and the estimated time left.
    Nothing at all under ``gauntlet -q``. While it is open, :func:`step` and :func:`unit` report into it."""

    def __init__(self, enabled: bool, total: int, done: int, label: str, every: float = 30.0):
        self.total, self.label = total, label
        self.every = float(os.environ.get(EVERY_ENV) or every)  # seconds between plain lines (logs)
        self.count = float(done)  # finished items (the runner's advance())
        self.pos = float(done)  # finer position inside the current unit (step())
        self._units: list[tuple[float, float]] = []  # (base, size) of the units entered
        self._t0 = self._last = time.monotonic()
        self._eta = Eta()
        self._eta.add(self._t0, float(done))
        self._bar: NotebookBar | RichProgress | None = None
        self._task: Any = None  # rich's task id (0 for the notebook bar)
        self._silent = quiet()
        self._token: contextvars.Token[Progress | None] | None = _ACTIVE.set(self)
        if (enabled or _MODE.get() == "bar") and not self._silent and in_notebook():
            self._bar, self._task = NotebookBar(label, total, done), 0  # rich's Jupyter bar needs ipywidgets
        elif (enabled or _MODE.get() == "bar") and not self._silent:
            from rich import progress as rp
            from rich.console import Console

            bar = rp.Progress(
                "[progress.description]{task.description}",
                rp.BarColumn(),
                rp.MofNCompleteColumn(),
                rp.TextColumn("{task.fields[eta]}"),
                console=Console(stderr=True),
                transient=False,
            )
            bar.start()
            self._task = bar.add_task(label, total=total, completed=done, eta="")
            self._bar = bar

    @property
    def done(self) -> float:
        return max(self.count, self.pos)

    def advance(self, n: int = 1) -> None:
        """``n`` more items are finished."""
        self.count += n
        self._update(final=self.count >= self.total)

    @contextlib.contextmanager
    def unit(self, items: float):
        """The work inside is ``items`` items' worth: steps reported inside move the display by parts of it."""
        base = self.done
        self._units.append((base, items))
        try:
            yield
        finally:
            self._units.pop()
            self.pos = max(self.pos, base + items)
            self._update(final=not self._units and self.pos >= self.total)

    def _step(self, fraction: float) -> None:
        if not self._units:  # a step outside any unit: a fraction of the whole
            self.pos = max(self.pos, self.total * min(fraction, 1.0))
        else:
            base, size = self._units[-1]
            self.pos = max(self.pos, base + size * min(fraction, 1.0))
        self._update(final=False)

    def _update(self, final: bool) -> None:
        now = time.monotonic()
        done = self.done
        self._eta.add(now, done)
        if self._silent:
            return
        if self._bar is not None:
            left = self._eta.left(done, self.total)
            from mtgauntlet.core.usage_report import progress_note

            self._bar.update(
                self._task,
                completed=done,
                description=self.label + progress_note(),
                eta=f"~{_duration(left)} left" if left is not None else "",
            )
            return
        if now - self._last >= self.every or final:
            self._last = now
            self._line(now)

    def _line(self, now: float) -> None:
        done = self.done
        rate = self._eta.rate()
        left = self._eta.left(done, self.total)
        speed = f"{rate:.2f} items/s" if rate is not None else "rate not known yet"
        tail = f", ~{_duration(left)} left" if left is not None else ""
        from mtgauntlet.core.usage_report import progress_note

        print(
            f"{self.label}: {_count(done)}/{self.total} items ({speed}{tail}; {_duration(now - self._t0)} so far"
            f"{progress_note()})",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        if self._token is not None:
            try:
                _ACTIVE.reset(self._token)
            except ValueError:  # closed in another context than it was opened in
                _ACTIVE.set(None)
            self._token = None
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class OnDemandProgress:
    """A `Progress` opened only when first advanced: ``make()`` builds it then; ``close`` closes it if it was."""

    def __init__(self, make: Callable[[], Progress]):
        self._make = make
        self._progress: Progress | None = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._progress is None:
            self._progress = self._make()
        return getattr(self._progress, name)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.close()


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 120:
        return f"{s} s"
    if s < 7200:
        return f"{s // 60} min"
    return f"{s / 3600:.1f} h"
