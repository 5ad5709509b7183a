"""How an API call talks to its caller: silent by default, a progress bar when asked, warnings as warnings.

Every public function is made one by `public`: its arguments are checked against their annotations first (a bad
one is a one-line `mtgauntlet.UsageError` naming it), and nothing is written to stdout or stderr unless
``progress=True`` (a bar that works in a terminal and in Jupyter); informational lines go to the ``mtgauntlet``
logger; warnings are `mtgauntlet.GauntletWarning` (the CLI prints them as ``warning: ...`` lines).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import warnings
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

from mtgauntlet.errors import GauntletWarning, UsageError

F = TypeVar("F", bound=Callable[..., Any])


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn(message: str) -> None:
    """A warning for the user (``warning: ...`` on the CLI, a `warnings` warning from Python), shown at the
    caller's line that called into mtgauntlet (not at a line inside the package)."""
    frame: FrameType | None = sys._getframe(1)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, GauntletWarning, stacklevel=level)


def _names_a_path(hint: Any) -> bool:
    """The annotation allows a ``Path`` (``str | Path``, ``Path | None``): an empty string there is no path."""
    import typing
    from pathlib import PurePath

    return any(isinstance(h, type) and issubclass(h, PurePath) for h in (typing.get_args(hint) or (hint,)))


def _accepts(hint: Any) -> tuple[Callable[[Any], bool], str] | None:
    """(test, name) of the values an annotation allows, or None where it is not checked (``Any``, a class of
    the package): ``str | Path`` takes text or a path, ``int`` an integer (not a bool), ``float`` any real number,
    ``Sequence[str]`` a list or tuple (or one string)."""
    import collections.abc
    import numbers
    import types
    import typing
    from pathlib import PurePath

    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        accepted = [_accepts(h) for h in typing.get_args(hint)]
        parts = [p for p in accepted if p is not None]
        if len(parts) < len(accepted):
            return None
        names = list(dict.fromkeys(n for _, n in parts))
        return (lambda v: any(test(v) for test, _ in parts)), (
            ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]
        )
    if hint is type(None):
        return (lambda v: v is None), "None"
    if hint is str:
        return (lambda v: isinstance(v, (str, os.PathLike))), "a string"
    if hint is bool:
        return (lambda v: isinstance(v, bool) or type(v).__name__ == "bool_"), "True or False"
    if hint is int:
        return (lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool)), "an integer"
    if hint is float:
        return (lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool)), "a number"
    if isinstance(hint, type) and issubclass(hint, PurePath):  # or a result naming one (Build, Release: .path)
        return (
            lambda v: isinstance(v, (str, os.PathLike)) or isinstance(getattr(v, "path", None), (str, os.PathLike))
        ), "a path"
    if hint is dict or origin is dict:
        return (lambda v: isinstance(v, dict)), "a dict"
    if origin in (list, tuple, collections.abc.Sequence) or hint in (list, tuple):
        return (lambda v: isinstance(v, (list, tuple, str, os.PathLike))), "a list"
    return None


def argument_checks(fn: Callable[..., Any], sig: inspect.Signature) -> dict[str, Callable[[Any], None]]:
    """Per parameter of ``fn``, a check that raises a one-line `UsageError` naming the parameter when a value
    is not of the annotated type (``budget="ten"``, ``out=5``, ``sql=None``), before any work is done; a
    default value always passes."""
    out: dict[str, Callable[[Any], None]] = {}
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.annotation is p.empty:
            continue
        try:
            hint = eval(p.annotation, fn.__globals__, {}) if isinstance(p.annotation, str) else p.annotation
        except Exception:  # an annotation that names what only a type checker sees
            continue
        got = _accepts(hint)
        if got is None:
            continue
        test, expected = got
        pathlike = _names_a_path(hint)

        def check(value, name=p.name, default=p.default, test=test, expected=expected, pathlike=pathlike):
            if pathlike and isinstance(value, str) and value is not default and not value.strip():
                raise UsageError(f"{fn.__name__}: {name}= is an empty path (it would mean the current directory)")
            if value is default or test(value):
                return
            shown = repr(value).replace("\n", " ")
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            raise UsageError(f"{fn.__name__}: {name}= takes {expected}, not {type(value).__name__} {shown}")

        out[p.name] = check
    return out


def public(fn: F) -> F:
    """Make ``fn`` an API function: it takes ``progress: bool = False`` (declared in its signature, so that the
    reference and editors show it; the body never reads it) and runs silently unless it is True. Every argument is
    checked against its annotation first (`argument_checks`).

    ``progress=None`` is for the CLI, which calls the same functions: its own display then decides (``-q``, and a
    bar only when stderr is a terminal); a function the CLI calls that way declares ``progress: bool | None = False``.
    """
    from mtgauntlet.core.progress import output_mode

    sig = inspect.signature(fn)
    checks = argument_checks(fn, sig)

    @functools.wraps(fn)
    def wrapper(*args, progress: bool | None = False, **kwargs):
        if progress is not None and not isinstance(progress, bool):
            raise UsageError(f"{fn.__name__}: progress= takes True or False, not {type(progress).__name__}")
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise UsageError(f"{fn.__name__}: {exc}") from None
        for name, value in bound.arguments.items():
            if name in checks:
                checks[name](value)
        with output_mode(bool(progress)) if progress is not None else contextlib.nullcontext():
            return fn(*args, **kwargs)

    if "progress" not in sig.parameters:
        raise TypeError(f"{fn.__name__}: an API function declares progress: bool = False")
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
