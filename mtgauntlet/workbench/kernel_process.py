"""chrF, chrF++ and BLEU scored in a second process while this one reads the catalog.

A fresh `gauntlet evaluate metric` process spends about 1.2 s loading the compiler behind the compiled metrics
(numba, and the scipy it loads) and about as long reading the catalog and its items; both hold Python's global
lock, so in one process they take turns. In a command-line run on two or more cores the first compiled metric
therefore starts a child process (the same interpreter, importing the same mtgauntlet) that loads the compiler and
the metric while this process reads; each chunk of items is then scored there (the chunk split over two threads,
as the local engine does here), and this process never loads the compiler. The scores are the kernels' own, the
same as in-process; the child's metric must have the same signature as this process's and come from the same
mtgauntlet, else it is not used.

Anything wrong with the child (it cannot start, dies, answers out of protocol, or its metric has another
signature) and the metric is scored in this process instead, from the chunk that failed on: slower, the same scores.
Only the command line's entry point starts one (:mod:`mtgauntlet.core.one_command`), on two or more usable cores;
a notebook, a program calling the API or the Ray engine scores in its own process.

Protocol (pickle frames over the child's stdin and stdout; the child's own stdout goes to stderr):
``("load", "module:Class")`` -> ``("loaded", signature, the child's mtgauntlet/__init__.py)``;
``("score", "module:Class", hyps, refs)`` -> ``("scores", [float | None, ...])``; anything failing ->
``("error", message)``; end of input: the child exits.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import logging
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_OFFER: dict[str, Any] = {"open": False, "process": None}
_OFFER_LOCK = threading.Lock()


def _usable_cores() -> int:
    """The cores this process may run on (an affinity mask or a container's limit, where the OS says)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


# The child's command: `-P` keeps the working folder off its path; the folder holding the parent's mtgauntlet goes
# first unless it is on the path already (an installed package is), so that the child imports the parent's copy.
_BOOT = (
    "import sys; root = sys.argv[1]; root in sys.path or sys.path.insert(0, root); "
    "from mtgauntlet.workbench.kernel_process import main; main()"
)


def package_file() -> str:
    """Which mtgauntlet this process runs (the child's must be the parent's)."""
    import mtgauntlet

    return str(Path(mtgauntlet.__file__).resolve())


def worthwhile() -> bool:
    """A second process pays off: a one-command process on two or more cores, with numba installed and not loaded
    here yet."""
    from mtgauntlet.core.one_command import active

    return (
        active()
        and _usable_cores() > 1
        and "numba" not in sys.modules
        and importlib.util.find_spec("numba") is not None
    )


@contextlib.contextmanager
def offered(local_engine: bool) -> Iterator[None]:
    """While open, the first compiled metric made (:func:`attach`) starts the child when it is worthwhile; the child
    ends with the block."""
    with _OFFER_LOCK:
        _OFFER["open"] = local_engine and worthwhile()
    try:
        yield
    finally:
        with _OFFER_LOCK:
            process, _OFFER["open"], _OFFER["process"] = _OFFER["process"], False, None
        if process is not None:
            process.close()


def attach(kind: type) -> Any:
    """The child process that will score metrics of class ``kind`` (asked to load one now; the metric's signature
    follows with :meth:`KernelProcess.expect`), or None: score here."""
    with _OFFER_LOCK:
        if not _OFFER["open"]:
            return None
        if _OFFER["process"] is None:
            _OFFER["process"] = KernelProcess()
        process = _OFFER["process"]
    return process if process.load(kind) else None


def class_path(kind: type) -> str:
    return f"{kind.__module__}:{kind.__qualname__}"


class KernelProcess:
    """The parent's end: one request at a time (a lock), answers read in order."""

    def __init__(self) -> None:
        root = str(Path(__file__).resolve().parents[2])  # the folder holding this mtgauntlet
        self.lock = threading.Lock()
        self.expected: dict[str, str] = {}  # class path -> this process's signature, checked when the child loads it
        self.unchecked: list[str] = []  # loads sent, answers not read yet
        self.refused: set[str] = set()
        self.proc: subprocess.Popen[bytes] | None = None
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-P", "-c", _BOOT, root],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as exc:
            log.info("kernel process: not started (%s); scoring in this process", exc)
        else:
            log.info("kernel process: pid %d loads the compiled metrics while this process reads", self.proc.pid)

    def _send(self, message: tuple) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        pickle.dump(message, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        self.proc.stdin.flush()

    def _receive(self) -> tuple:
        assert self.proc is not None and self.proc.stdout is not None
        answer = pickle.load(self.proc.stdout)
        if not isinstance(answer, tuple) or not answer:
            raise EOFError(f"kernel process: an answer out of protocol: {answer!r:.80}")
        return answer

    def _fail(self, why: object) -> None:
        log.info("kernel process: %s; scoring in this process", why)
        self.close()

    def load(self, kind: type) -> bool:
        """Ask the child to load ``kind`` (not waiting); False where the child is gone."""
        path = class_path(kind)
        with self.lock:
            if self.proc is None:
                return False
            try:
                self._send(("load", path))
            except (OSError, ValueError, pickle.PickleError) as exc:
                self._fail(exc)
                return False
            self.unchecked.append(path)
            return True

    def expect(self, kind: type, signature: str) -> None:
        """``kind``'s signature here: the child's must be the same, else the metric is scored here."""
        with self.lock:
            self.expected[class_path(kind)] = signature

    def score(self, kind: type, hyp: list[str], ref: list[str | None]) -> list[float | None] | None:
        """The child's scores of the pairs, or None: score them here (the child is gone or refused the metric)."""
        path = class_path(kind)
        with self.lock:
            if self.proc is None or path in self.refused:
                return None
            try:
                while self.unchecked:  # the answers to the loads come first, in order
                    loaded = self.unchecked.pop(0)
                    answer = self._receive()
                    if answer != ("loaded", self.expected.get(loaded), package_file()):
                        log.info("kernel process: %s answered %r to its load; scoring it here", loaded, answer[:2])
                        self.refused.add(loaded)
                if path in self.refused:
                    return None
                self._send(("score", path, list(hyp), list(ref)))
                answer = self._receive()
            except (OSError, EOFError, ValueError, pickle.PickleError) as exc:
                self._fail(exc)
                return None
            if answer[0] != "scores" or len(answer[1]) != len(hyp):
                self._fail(f"answered {answer[0]!r} to a chunk of {len(hyp)}")
                return None
            return answer[1]

    def close(self) -> None:
        """End of input, then the child exits (killed after 5 s)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError):
            assert proc.stdin is not None
            proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def _metric(path: str) -> Any:
    module, _, name = path.partition(":")
    if not module.startswith("mtgauntlet."):  # only the package's own metrics
        raise ValueError(f"not a metric of mtgauntlet: {path}")
    return getattr(importlib.import_module(module), name)()


def _scores(metric: Any, hyp: list[str], ref: list[str | None]) -> list[float | None]:
    """The kernel on two halves at once (the kernels release the global lock), in order."""
    metric.ready()
    kernel = type(metric).kernel()
    if len(hyp) < 2:
        return list(kernel(metric.metric, hyp, ref))
    half = len(hyp) // 2
    second: list[Any] = []
    thread = threading.Thread(target=lambda: second.extend(kernel(metric.metric, hyp[half:], ref[half:])))
    thread.start()
    first = list(kernel(metric.metric, hyp[:half], ref[:half]))
    thread.join()
    if len(second) != len(hyp) - half:
        raise RuntimeError("the second half was not scored")
    return first + second


def serve(requests: Any, answers: Any) -> None:
    """The child's loop: one answer per request, until the input ends."""
    metrics: dict[str, Any] = {}
    while True:
        try:
            request = pickle.load(requests)
        except EOFError:
            return
        try:
            if request[0] == "load":
                metrics[request[1]] = metric = _metric(request[1])
                answer: tuple = ("loaded", metric.signature(), package_file())
            elif request[0] == "score":
                answer = ("scores", _scores(metrics[request[1]], request[2], request[3]))
            else:
                answer = ("error", f"unknown request {request[0]!r}")
        except Exception as exc:  # the parent scores it itself
            answer = ("error", f"{type(exc).__name__}: {exc}")
        pickle.dump(answer, answers, protocol=pickle.HIGHEST_PROTOCOL)
        answers.flush()


def main() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it closes our input, and we exit
    # this process runs the lexical kernels only, which use no BLAS: numba, looking for one, would import
    # scipy.linalg (about 0.35 s) before the first kernel loads; here it finds none
    sys.modules["scipy"] = None  # type: ignore[assignment]
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a library's print cannot break the protocol
    serve(sys.stdin.buffer, answers)
    # every answer is written and nothing else is held: exit without the interpreter's teardown, which the
    # parent waits for (about 0.5 s once the compiler is loaded)
    answers.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
