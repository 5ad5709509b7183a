"""What a recipe may set, as :class:`~mtgauntlet.recipes.spec.OptionDef` tables, read from the options dataclasses
the commands, the API functions and their checks are made from too (:func:`declared_options`: types, defaults,
ranges, choices): a build entry takes the options of ``builder: NAME`` (``mtgauntlet.builders.options``);
``validate:``, ``audit:`` and ``publish:`` the options of ``mg.validate``, ``mg.audit`` and ``mg.publish``
(`mtgauntlet.api.check_options`, `mtgauntlet.api.release_options`; their arguments are set by the run), by their
CLI names (``src-lang``). :func:`api_options` reads the same from a function's signature (for the log of a call)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any

from mtgauntlet.recipes.spec import OptionDef

# how a command prints (`--json`), no keyword of the API (it returns objects): accepted by a build, audit and
# publish entry as its command accepts it, and ignored (every resolved recipe lists `json: false` for each build)
PRINTING = {"json": OptionDef("json", "bool", False)}
STEP_EXCLUDE = {"validate": ("report", "gx"), "audit": ("out",), "publish": ()}  # set by the run, not the recipe


def _type(annotation: Any) -> str:
    """'int', 'float' or 'bool' for such an annotation (``Optional[int]``, ``float | None``); else 'str' (paths,
    names, specs, ``Any`` inputs)."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    words = set(re.findall(r"\w+", text)) - {"Optional", "None"}
    return words.pop() if len(words) == 1 and words <= {"int", "float", "bool"} else "str"


def api_options(
    fn: Callable[..., Any],
    minimum: Mapping[str, float] | None = None,
    maximum: Mapping[str, float] | None = None,
    exclude: tuple[str, ...] = (),
) -> dict[str, OptionDef]:
    """The option table of an API function: its keyword-only parameters (``progress`` and ``exclude`` left out)
    by CLI name -> OptionDef; a parameter without a default is required, one with a tuple or list default takes
    several values. A bool that defaults to true turns off with ``--no-NAME`` (typer's convention)."""
    minimum, maximum = minimum or {}, maximum or {}
    out = {}
    for p in inspect.signature(fn).parameters.values():
        if p.kind is not p.KEYWORD_ONLY or p.name in ("progress", *exclude):
            continue
        name = p.name.replace("_", "-")
        required = p.default is p.empty
        multiple = isinstance(p.default, (tuple, list))
        kind = "str" if multiple else _type(p.annotation)
        default = None if required else list(p.default) if multiple else p.default
        out[name] = OptionDef(
            name=name,
            type=kind,
            default=default,
            required=required,
            multiple=multiple,
            min=minimum.get(p.name),
            max=maximum.get(p.name),
            off=f"no-{name}" if kind == "bool" and default is True else None,
        )
    return out


def declared_options(cls: type, exclude: tuple[str, ...] = ()) -> dict[str, OptionDef]:
    """The option table of an options dataclass (`mtgauntlet.options`), as :func:`api_options` reads a function:
    a required option has no default, a tuple default takes several values, the bounds and choices are the declared
    ones; arguments (the run sets them) and ``exclude`` are left out."""
    from mtgauntlet.options import bare_type, declared

    out = {}
    for o in declared(cls):
        if o.info.argument or o.name in exclude:
            continue
        name = o.name.replace("_", "-")
        multiple = isinstance(o.default, (tuple, list))
        kind = "str" if multiple else bare_type(o.type).__name__
        default = None if o.required else list(o.default) if multiple else o.default
        out[name] = OptionDef(
            name=name,
            type=kind,
            default=default,
            required=o.required,
            multiple=multiple,
            min=o.info.min,
            max=o.info.max,
            off=f"no-{name}" if kind == "bool" and default is True else None,
            choices=None if o.info.choices is None else tuple(o.info.choices()),
        )
    return out


def builder_options(name: str) -> dict[str, OptionDef] | None:
    """What a build entry of ``builder: NAME`` takes (None: no such builder)."""
    from mtgauntlet.builders.methods import methods

    found = methods().get(name)
    return None if found is None else {**declared_options(found.options), **PRINTING}


def step_options() -> dict[str, dict[str, OptionDef]]:
    """What ``validate:``, ``audit:`` and ``publish:`` take."""
    from mtgauntlet.api.check_options import AuditOptions, ValidateOptions
    from mtgauntlet.api.release_options import PublishOptions

    return {
        "validate": declared_options(ValidateOptions, exclude=STEP_EXCLUDE["validate"]),
        "audit": {**declared_options(AuditOptions, exclude=STEP_EXCLUDE["audit"]), **PRINTING},
        "publish": {**declared_options(PublishOptions, exclude=STEP_EXCLUDE["publish"]), **PRINTING},
    }


def keywords(options: dict[str, Any]) -> dict[str, Any]:
    """A recipe's options (CLI names, ``src-lang``) as the API's keywords (``src_lang``)."""
    return {name.replace("-", "_"): value for name, value in options.items() if name not in PRINTING}
