"""The build methods, one record each: a `Method` says what ``gauntlet build NAME`` / ``mg.build("NAME")`` is — its
options dataclass (declared once: the command's options, the API's keywords, the recipe table), its builder class
(made from one options object), which option names its input, and the text its dataset card tells about it.

A method is registered by one line in `REGISTERED` naming where its record is (``module:NAME``); the
command, the API function's keywords, the recipe table and the card's method text are all read from the record.
The builder class is named by a ``module:Class`` string and imported only when a build runs, so that ``--help``
does not load what a builder loads (as the backend registry names its classes).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from typing import Any

from mtgauntlet.errors import UsageError
from mtgauntlet.options import not_one_of


@dataclasses.dataclass(frozen=True)
class MethodText:
    """What a dataset card says of a method: its title, what its records are, how to cite it, what it cannot do."""

    title: str
    description: str
    citation: str = ""
    limitations: str = ""


@dataclasses.dataclass(frozen=True)
class Method:
    """One build method. ``builder`` names its builder class (``module:Class``): a `Builder` run over the input's
    shards by the build runner, or a class with the same ``read``/``plan`` hooks and a ``run(out, rows, overwrite)``
    of its own (the bandit search); either is made from the options object alone (``Builder(options)``)."""

    name: str
    options: type
    builder: str
    input: str  # the keyword of the option that names the input (``input``, ``seeds``, ``corpus``)
    text: MethodText
    #: the test example of the registry-wide tests (tests/builders/test_methods.py): options of a small build, in
    #: which ``{sample}`` stands for the package's sample corpus (mtgauntlet/data/sample_es_en.tsv: columns id,
    #: domain, es, en) and ``{llm}``, ``{mt}``, ``{qe}`` for scripted model servers on 127.0.0.1
    example: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def builder_class(self) -> type[Any]:
        """The builder class, imported now."""
        cls: type[Any] = _load(self.builder)
        return cls


# name -> its record (``module:NAME``), in the order of ``gauntlet build --help`` and of the error listing them
REGISTERED: dict[str, str] = {
    "subset": "mtgauntlet.builders.options.subset:METHOD",
    "smaug": "mtgauntlet.builders.options.smaug:METHOD",
    "mtbreaker": "mtgauntlet.builders.options.breaker:MTBREAKER",
    "zeroshot": "mtgauntlet.builders.options.breaker:ZEROSHOT",
    "bandit": "mtgauntlet.builders.options.bandit:METHOD",
}


def _load(where: str) -> Any:
    module, _, attr = where.partition(":")
    return getattr(importlib.import_module(module), attr)


@functools.cache
def methods() -> dict[str, Method]:
    """Every registered method by name (their modules imported)."""
    out = {}
    for name, where in REGISTERED.items():
        record = _load(where)
        if not isinstance(record, Method) or record.name != name:
            raise TypeError(f"{where}: not the Method record of {name!r}")
        out[name] = record
    return out


def method_record(name: str) -> Method:
    """The record of ``name``; a `UsageError` listing the methods for any other name."""
    if (why := not_one_of("method", name, REGISTERED)) is not None:
        raise UsageError(why)
    return methods()[name]


def method_of_options(options: Any) -> Method:
    """The method whose options ``options`` is an instance of."""
    return next(m for m in methods().values() if isinstance(options, m.options))
