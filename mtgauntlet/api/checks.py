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
