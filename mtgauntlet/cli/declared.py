"""Typer options made from an options dataclass (:mod:`mtgauntlet.options`): a command declares nothing of its
own; its ``--help``, flags, defaults, ranges and choices are the declaration's."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import typer

from mtgauntlet.options import Declared, bare_type, declared


def typer_option(o: Declared) -> Any:
    """The ``typer.Option`` of one declared option (a required one defaults to ``...``; choices are checked by
    `mtgauntlet.cli.common.checked`)."""
    from mtgauntlet.cli.common import checked

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
    return typer.Option(default, *o.info.flags, help=o.info.help, **extra)


def parameters(cls: type, extra: dict[str, tuple[str, Any, Any]] | None = None) -> list[inspect.Parameter]:
    """The parameters of a typer command taking the options of ``cls``; ``extra``: CLI-only ones, keyword ->
    (the option they follow, type, typer.Option) (``--json`` after ``--dry-run``)."""
    params = []
    for o in declared(cls):
        kind = bare_type(o.type)
        if isinstance(o.default, tuple):  # several values: --metric A --metric B
            annotation: Any = list[kind]  # type: ignore[valid-type]
        elif o.required or o.info.cli_required or o.default is not None:
            annotation = kind
        else:
            annotation = kind | None
        params.append(
            inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=typer_option(o), annotation=annotation)
        )
        for name, (after, hint, made) in (extra or {}).items():
            if after == o.name:
                params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=made, annotation=hint))
    return params


def command(
    app: typer.Typer,
    name: str,
    cls: type,
    run: Callable[[dict[str, Any]], Any],
    extra: dict[str, tuple[str, Any, Any]] | None = None,
) -> Callable[..., Any]:
    """Register ``gauntlet ... NAME`` on ``app``: its options are those of ``cls`` (plus ``extra``), its help the
    class's docstring; ``run`` gets the parsed options as a dict (keyword -> value)."""

    def handler(**values: Any) -> Any:
        return run(values)

    handler.__name__ = name.replace("-", "_")
    handler.__doc__ = inspect.cleandoc(cls.__doc__ or "")
    handler.__signature__ = inspect.Signature(parameters(cls, extra))  # type: ignore[attr-defined]
    handler.__annotations__ = {}
    return app.command(name)(handler)
