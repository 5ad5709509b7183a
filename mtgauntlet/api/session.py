"""How an API call talks to its caller: silent by default, a progress bar when asked, warnings as warnings.

Every public function runs inside `call`: nothing is written to stdout or stderr unless ``progress=True``
(a bar that works in a terminal and in Jupyter); informational lines go to the ``mtgauntlet`` logger; warnings
are `mtgauntlet.GauntletWarning` (the CLI prints them as ``warning: ...`` lines).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import warnings
from typing import Any, Callable, TypeVar

from mtgauntlet.errors import GauntletWarning

F = TypeVar("F", bound=Callable[..., Any])


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn(message: str) -> None:
    """A warning for the user (``warning: ...`` on the CLI, a `warnings` warning from Python), shown at the
    caller's line that called into mtgauntlet (not at a line inside the package)."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, GauntletWarning, stacklevel=level)


def public(fn: F) -> F:
    """Make ``fn`` an API function: it takes ``progress: bool = False`` and runs silently unless it is True.

    ``progress=None`` is for the CLI, which calls the same functions: its own display then decides (``-q``, and a
    bar only when stderr is a terminal)."""
    from mtgauntlet.runner.progress import output_mode

    @functools.wraps(fn)
    def wrapper(*args, progress: bool | None = False, **kwargs):
        with output_mode(bool(progress)) if progress is not None else contextlib.nullcontext():
            return fn(*args, **kwargs)

    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    extra = inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=False, annotation="bool")
    at = next((i for i, p in enumerate(params) if p.kind is inspect.Parameter.VAR_KEYWORD), len(params))
    wrapper.__signature__ = sig.replace(parameters=[*params[:at], extra, *params[at:]])  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


@contextlib.contextmanager
def cli_warnings(echo: Callable[[str], None]):
    """Inside (the CLI): every `GauntletWarning` is shown, when raised, as one ``warning: ...`` line through
    ``echo``; other warnings are shown as Python shows them."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", GauntletWarning)
        plain = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, GauntletWarning):
                echo(f"warning: {message}")
            else:
                plain(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield
