"""The SMAUG phenomena this package builds: the one list where a phenomenon is registered.

Each :class:`Registration` names a phenomenon (the ``phenomenon`` value of its records), says in words which
critical error its bad hypothesis carries (cards and help), names the module that makes it
(``mtgauntlet/builders/smaug/phenomena/<module>.py``, whose ``PHENOMENON`` object holds the transformation,
constraints, language support and card flags) and whether ``--phenomena`` builds it when not given.

This module imports nothing of the package: the record schema's allowed values (``schema.py``), the validation
metric names (``validators/metric_names.py``), the API and CLI help and the cards read the names here, from the
bottom layer, and only the SMAUG builder imports the modules that make them. Adding a phenomenon is one new module
there and one line in :data:`REGISTERED` (docs/contributing.md). A phenomenon registered with ``default=True``
changes the default ``--phenomena``, hence the signature of every SMAUG build made without ``--phenomena``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Registration:
    name: str  # the records' `phenomenon` value: lower-case letters, digits and underscores
    error: str  # the critical error of the bad hypothesis, as a card says it ("a named entity")
    module: str  # mtgauntlet.builders.smaug.phenomena.<module> defines PHENOMENON
    default: bool = True  # built when --phenomena is not given (True changes every default build's signature)


REGISTERED: tuple[Registration, ...] = (
    Registration("ne", "a named entity", "named_entity"),
    Registration("num", "a number", "number"),
    Registration("neg", "a negation", "negation"),
    Registration("ins", "inserted content", "insertion"),
    Registration("del", "a deleted span", "deletion"),
)

NAMES: tuple[str, ...] = tuple(r.name for r in REGISTERED)  # every phenomenon a record may hold (schema)
DEFAULT: tuple[str, ...] = tuple(r.name for r in REGISTERED if r.default)  # what --phenomena builds by default
DEFAULT_OPTION = ",".join(DEFAULT)
HELP = f"Comma-separated subset of {','.join(NAMES)}."


def registration(name: str) -> Registration:
    for r in REGISTERED:
        if r.name == name:
            return r
    raise KeyError(name)


def errors_in_words() -> str:
    """ "a named entity (`ne`), a number (`num`) ... or a deleted span (`del`)": the method text of a card."""
    parts = [f"{r.error} (`{r.name}`)" for r in REGISTERED]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]
