"""Typer options made from an options dataclass (:mod:`mtgauntlet.options`): a command declares nothing of its
own; its ``--help``, arguments, flags, defaults, ranges and choices are the declaration's. What only the command
line has (how a result is printed: ``--json``, ``query --format``) is declared here the same way
(:func:`printing`), never as a hand-written ``typer.Option``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import typer

from mtgauntlet.options import REQUIRED, Declared, OptionInfo, bare_type, declared

JSON_HELP = "Print {what} as one JSON object on stdout (nothing else goes to stdout; notes and progress go to stderr)."


def printing(
    name: str,
    default: Any,
    *,
    help: str,
    flags: tuple[str, ...] = (),
    type: Any = bool,
    choices: Callable[[], tuple[str, ...]] | None = None,
) -> Declared:
    """A CLI-only option (how the result is printed; no keyword of the API, which returns objects)."""
    return Declared(name, type, default, OptionInfo(help=help, flags=flags, choices=choices, builds=False))


def json_flag(what: str = "the result", help: str | None = None) -> Declared:
    """``--json``: print the result as one JSON object (``what``: 'the release summary'; ``help``: other words)."""
    return printing("json_out", False, flags=("--json",), help=help or JSON_HELP.format(what=what))


def checked(choices: tuple[str, ...], what: str = "format"):
    """An option callback that refuses a value outside ``choices`` (a usage error, exit 2, before any work)."""

    def check(value):
        if value is not None and value not in choices:
            raise typer.BadParameter(f"unknown {what} {value!r} (one of {', '.join(choices)})")
        return value

    check.choices = choices  # type: ignore[attr-defined]  # what the command reference lists
    return check


def typer_option(o: Declared) -> Any:
    """The ``typer.Option`` (``typer.Argument`` for an argument) of one declared option (a required one defaults
    to ``...``; choices are checked by :func:`checked`). An option declared without flags is ``--`` + its name with
    dashes; a bool one is then a switch that turns it on (``--dry-run``), as typer makes it from that one flag (a
    ``--x/--no-x`` pair is declared as such)."""
    extra: dict[str, Any] = {}
    if o.info.min is not None:
        extra["min"] = o.info.min
    if o.info.max is not None:
        extra["max"] = o.info.max
    if o.info.choices is not None:
        extra["callback"] = checked(tuple(o.info.choices()), what=o.name.replace("_", " "))
    default = list(o.default) if isinstance(o.default, tuple) else o.default  # typer's several values: a list
    if o.required or o.info.cli_required:
        default = ...
    if o.info.argument:
        return typer.Argument(default, help=o.info.help, metavar=o.info.metavar, **extra)
    return typer.Option(default, *(o.info.flags or (o.flag,)), help=o.info.help, **extra)


def annotation(o: Declared) -> Any:
    """The type typer parses the option as: ``list[str]`` for several values, ``int | None`` for an optional one."""
    kind = bare_type(o.type)
    if isinstance(o.default, tuple) or o.info.many:  # several values: --metric A --metric B; BUILD...
        return list[kind]  # type: ignore[valid-type]
    if o.required or o.info.cli_required or o.default is not None:
        return kind
    return kind | None


Extra = dict[str, tuple[Any, ...]]  # keyword -> (the option it follows, or None: the end; its Declared)


def parameters(cls: type, extra: Extra | None = None) -> list[inspect.Parameter]:
    """The parameters of a typer command taking the options of ``cls``; ``extra``: CLI-only ones (:func:`printing`),
    keyword -> (the option they follow, or None for the end; the declaration) (``--json`` after ``--dry-run``).
    (The form ``(after, type, typer option)`` is still read: ``cli/build.py`` passes ``--json`` so, made by
    `mtgauntlet.cli.common.json_option` from :func:`json_flag`.)"""
    params: list[inspect.Parameter] = []

    def add(name: str, entry: tuple[Any, ...]) -> None:
        kind: inspect._ParameterKind = inspect.Parameter.KEYWORD_ONLY
        if len(entry) == 3:  # (after, type, typer option made from a declaration)
            made, hint = entry[2], entry[1]
        else:
            o = entry[1]
            if o.info.argument:
                kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
            made, hint = typer_option(o), annotation(o)
        params.append(inspect.Parameter(name, kind, default=made, annotation=hint))

    for o in declared(cls):
        add(o.name, (None, o))
        for name, entry in (extra or {}).items():
            if entry[0] == o.name:
                add(name, entry)
    for name, entry in (extra or {}).items():
        if entry[0] is None:
            add(name, entry)
    return params


def command(
    app: typer.Typer,
    name: str,
    cls: type,
    run: Callable[[dict[str, Any]], Any],
    extra: Extra | None = None,
    hidden: bool = False,
) -> Callable[..., Any]:
    """Register ``gauntlet ... NAME`` on ``app``: its arguments and options are those of ``cls`` (plus ``extra``),
    its help the class's docstring; ``run`` gets the parsed values as a dict (keyword -> value; an argument
    with several values and an option with several values as a list)."""

    def handler(**values: Any) -> Any:
        return run(values)

    handler.__name__ = name.replace("-", "_")
    handler.__doc__ = inspect.cleandoc(cls.__doc__ or "")
    handler.options = cls  # type: ignore[attr-defined]  # what the command is made of (cli.introspect.declared)
    handler.printing = tuple(extra or ())  # type: ignore[attr-defined]  # its CLI-only options (--json, ...)
    handler.__signature__ = inspect.Signature(parameters(cls, extra))  # type: ignore[attr-defined]
    handler.__annotations__ = {}
    return app.command(name, hidden=hidden)(handler)


__all__ = ["REQUIRED", "command", "json_flag", "parameters", "printing", "typer_option"]
