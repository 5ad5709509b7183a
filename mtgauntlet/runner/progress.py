"""Progress display shared by every long-running command: a rich bar on a terminal, otherwise plain lines."""

from __future__ import annotations

import sys
import time


class Progress:
    """A rich progress bar on a terminal; otherwise (a log file, a pipe) a plain line on stderr at most every
    ``every`` seconds and at the end, with the rate and the estimated time left."""

    def __init__(self, enabled: bool, total: int, done: int, label: str, every: float = 30.0):
        self.total, self.done, self.label = total, done, label
        self.every, self._start_done = every, done
        self._t0 = self._last = time.monotonic()
        self._bar = None
        if enabled:
            from rich import progress as rp

            self._bar = rp.Progress("[progress.description]{task.description}", rp.BarColumn(), rp.MofNCompleteColumn(),
                                    rp.TimeRemainingColumn(), transient=False)
            self._bar.start()
            self._task = self._bar.add_task(label, total=total, completed=done)

    def advance(self) -> None:
        self.done += 1
        if self._bar is not None:
            from mtgauntlet.models.usage import progress_note

            self._bar.update(self._task, advance=1, description=self.label + progress_note())
            return
        now = time.monotonic()
        if now - self._last >= self.every or self.done >= self.total:
            self._last = now
            self._line(now)

    def _line(self, now: float) -> None:
        new, elapsed = self.done - self._start_done, now - self._t0
        rate = new / elapsed if elapsed > 0 else 0.0
        left = f", ~{(self.total - self.done) / rate:.0f} s left" if rate > 0 and self.done < self.total else ""
        from mtgauntlet.models.usage import progress_note

        print(f"{self.label}: {self.done}/{self.total} items ({rate:.2f} items/s{left}{progress_note()})",
              file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
