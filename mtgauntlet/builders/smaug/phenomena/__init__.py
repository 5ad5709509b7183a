"""The SMAUG phenomena, one :class:`Phenomenon` object each, loaded from the modules :mod:`mtgauntlet.phenomena`
registers (``PHENOMENON`` in ``mtgauntlet.builders.smaug.phenomena.<module>``).

``python -m mtgauntlet.builders.smaug.phenomena --write docs/methods/smaug.md`` regenerates the phenomenon table
of the method's page from the objects (``tests/builders/smaug/test_phenomena.py`` checks it is current)."""

from __future__ import annotations

import importlib
import re
from functools import cache

from mtgauntlet.builders.smaug.phenomena.base import Phenomenon
from mtgauntlet.errors import GauntletError
from mtgauntlet.phenomena import REGISTERED

NAME = re.compile(r"[a-z][a-z0-9_]{0,31}\Z")  # a record value, a file name in releases, part of metric names
TABLE_START = "<!-- phenomenon table: generated from builders/smaug/phenomena (see its docstring) -->"
TABLE_END = "<!-- end of the phenomenon table -->"

__all__ = ["Phenomenon", "all_phenomena", "docs_table"]


@cache
def all_phenomena() -> dict[str, Phenomenon]:
    """{name: phenomenon} of every registered phenomenon, in registration order (the build order)."""
    out: dict[str, Phenomenon] = {}
    for reg in REGISTERED:
        if not NAME.match(reg.name) or reg.name in out:
            raise GauntletError(
                f"mtgauntlet/phenomena.py: phenomenon name {reg.name!r} is not a new lower-case "
                "name of letters, digits and underscores"
            )
        module = importlib.import_module(f"{__name__}.{reg.module}")
        phenomenon = getattr(module, "PHENOMENON", None)
        if not isinstance(phenomenon, Phenomenon) or phenomenon.name != reg.name:
            raise GauntletError(f"{module.__name__}: PHENOMENON must be a Phenomenon named {reg.name!r}")
        out[reg.name] = phenomenon
    return out


def docs_table() -> str:
    """The Markdown table of docs/methods/smaug.md: one row per registered phenomenon."""
    rows = [
        "| phenomenon | with models (paper) | embedded default (no model download) | validation |",
        "|---|---|---|---|",
    ]
    rows += [f"| `{p.name}` | {p.paper} | {p.model_free} | {p.validation} |" for p in all_phenomena().values()]
    return "\n".join([TABLE_START, *rows, TABLE_END])


def with_docs_table(page: str) -> str:
    """``page`` with its generated table replaced by the current one."""
    start, end = page.index(TABLE_START), page.index(TABLE_END) + len(TABLE_END)
    return page[:start] + docs_table() + page[end:]
