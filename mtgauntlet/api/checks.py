"""The checks typer makes on the command line (``min=``, choices), made again for an API call: the same refusal,
as a `mtgauntlet.UsageError` naming the option as the CLI names it, before any work is done. (A command whose
options are declared in a dataclass gets them from `mtgauntlet.options.check`; these are for the others.)"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mtgauntlet.errors import UsageError
from mtgauntlet.options import listed, not_one_of, out_of_range  # noqa: F401 (listed: the API's too)
from mtgauntlet.shared_options import input_formats  # noqa: F401 (what --format of a corpus takes; CLI and API)


def at_least(name: str, value: Any, minimum: float) -> None:
    """Refuse ``value`` below ``minimum`` (``None``, an option not given, passes): ``--budget: must be >= 1``."""
    if (why := out_of_range(name, value, minimum, None)) is not None:
        raise UsageError(why)


def one_of(name: str, value: Any, choices: Iterable[Any]) -> None:
    """Refuse ``value`` outside ``choices`` (``None`` passes): ``--format: 'xml' is not one of table, csv, json``."""
    if (why := not_one_of(name, value, choices)) is not None:
        raise UsageError(why)


def at_most(name: str, value: Any, maximum: float) -> None:
    """Refuse ``value`` above ``maximum`` (``None`` passes): ``--epsilon: must be <= 1.0``."""
    if (why := out_of_range(name, value, None, maximum)) is not None:
        raise UsageError(why)


def option_name(keyword: str) -> str:
    """A keyword as the CLI names its option: ``max_chars`` -> ``--max-chars``."""
    return "--" + keyword.replace("_", "-")


def in_ranges(values: dict[str, Any], minimum: Mapping[str, float], maximum: Mapping[str, float] | None = None) -> None:
    """Refuse any of ``values`` (keyword -> value) outside the ranges ``minimum`` / ``maximum`` state (keyword ->
    bound: the ``min=``/``max=`` of the CLI option; recipes read the same tables)."""
    for name, value in values.items():
        if name in minimum:
            at_least(option_name(name), value, minimum[name])
        if maximum and name in maximum:
            at_most(option_name(name), value, maximum[name])


def judgment_formats() -> tuple[str, ...]:
    """What ``--format`` of a judgment table takes: a named judgment layout or a plain table format."""
    from mtgauntlet.corpora.readers import FORMATS

    return ("google-mqm", "wmt23-mtme", "wmt23-esa", *FORMATS)


def engine_names() -> tuple[str, ...]:
    """What ``--engine`` takes: where per-row work runs (local, ray)."""
    from mtgauntlet.engines import ENGINES

    return tuple(ENGINES)


def unknown_keywords(what: str, given: Iterable[str], known: Iterable[str]) -> None:
    """Refuse a keyword ``what`` does not take, naming it and the close matches among ``known``."""
    import difflib

    known = sorted(known)
    for name in given:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
            hint = f"did you mean {' or '.join(close)}?" if close else f"known: {', '.join(known)}"
            raise UsageError(f"{what}: unknown option {name!r} ({hint})")


def dispatch(verb: str, kinds: dict, kind: str, options: dict):
    """Call ``kinds[kind](**options)`` in the caller's output mode; an unknown kind or option is a UsageError."""
    import inspect

    fn = kinds.get(kind)
    if fn is None:
        raise UsageError(f"{verb}: unknown kind {kind!r} (one of {', '.join(kinds)})")
    known = set(inspect.signature(fn).parameters) - {"progress"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise UsageError(f"{verb} {kind}: unknown option(s) {', '.join(unknown)} (takes: {', '.join(sorted(known))})")
    return fn(progress=None, **options)
