"""The checks typer makes on the command line (``min=``, choices), made again for an API call: the same refusal,
as a :class:`mtgauntlet.UsageError` naming the option as the CLI names it, before any work is done."""

from __future__ import annotations

from typing import Any, Iterable

from mtgauntlet.errors import UsageError


def at_least(name: str, value: Any, minimum: float) -> None:
    """Refuse ``value`` below ``minimum`` (``None``, an option not given, passes): ``--budget: must be >= 1``."""
    if value is not None and value < minimum:
        raise UsageError(f"{name}: must be >= {minimum} (got {value!r})")


def one_of(name: str, value: Any, choices: Iterable[Any]) -> None:
    """Refuse ``value`` outside ``choices`` (``None`` passes): ``--format: 'xml' is not one of table, csv, json``."""
    choices = tuple(choices)
    if value is not None and value not in choices:
        raise UsageError(f"{name}: {value!r} is not one of {', '.join(map(str, choices))}")


def at_most(name: str, value: Any, maximum: float) -> None:
    """Refuse ``value`` above ``maximum`` (``None`` passes): ``--epsilon: must be <= 1.0``."""
    if value is not None and value > maximum:
        raise UsageError(f"{name}: must be <= {maximum} (got {value!r})")


def unknown_keywords(what: str, given: Iterable[str], known: Iterable[str]) -> None:
    """Refuse a keyword ``what`` does not take, naming it and the close matches among ``known``."""
    import difflib

    known = sorted(known)
    for name in given:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
            hint = f"did you mean {' or '.join(close)}?" if close else f"known: {', '.join(known)}"
            raise UsageError(f"{what}: unknown option {name!r} ({hint})")
