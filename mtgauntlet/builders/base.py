"""What every builder implements, plus the TextAttack/CheckList-style building blocks.

A *builder* turns input items into records of one kind. Perturbations (``Transformation``) and
their validation (``Constraint``) are separate small objects; ``apply()`` returns ``None`` where a
transformation does not apply, and every produced variant records which transformation and which
constraints it passed (provenance).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Mapping, Protocol, Sequence


@dataclass
class Item:
    """One input unit of a build: ``index`` is its stable position in the input order."""

    index: int
    data: dict[str, Any]


@dataclass
class ItemResult:
    records: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # reasons, counted in the manifest
    skipped: list[str] = field(default_factory=list)


class Builder(Protocol):
    name: ClassVar[str]
    version: ClassVar[str]
    kind: ClassVar[str]

    def signature_fields(self) -> dict[str, Any]:
        """Ordered fields of the build signature (builder, langs, n, seed, models, ...)."""

    def process(self, item: Item, rng: random.Random) -> ItemResult:
        """Produce records for one item; must depend only on the item, the rng and the config."""

    def config(self) -> dict[str, Any]:
        """JSON-able configuration stored in the manifest."""

    def model_specs(self) -> dict[str, str]:
        """Model role -> spec string, stored in the manifest."""


@dataclass
class Edit:
    """A proposed change of a text: the new text plus where and what changed."""

    text: str
    span_original: str | None = None
    span_replacement: str | None = None
    start: int | None = None
    end: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class Transformation:
    """A small perturbation class: ``apply`` returns an :class:`Edit` or ``None`` where it does not apply."""

    name: ClassVar[str] = "transformation"

    def apply(self, text: str, rng: random.Random, context: Mapping[str, Any] | None = None) -> Edit | None:
        raise NotImplementedError


class Constraint:
    """A separate validation object: ``check`` returns (passed, value) for an original/edited pair.

    ``value`` is what is stored in the record's ``checks`` map (a bool as 1.0/0.0, or a measured
    number such as an edit distance). A constraint that could not run returns ``(None, None)``
    and the caller records it as not checked, never as passed.
    """

    name: str = "constraint"  # a class constant, or per instance (SameCount)

    def check(self, original: str, edit: Edit, context: Mapping[str, Any] | None = None) -> tuple[bool | None, float | None]:
        raise NotImplementedError


def run_constraints(constraints: Sequence[Constraint], original: str, edit: Edit,
                    context: Mapping[str, Any] | None = None) -> tuple[bool, dict[str, float | None], str | None]:
    """Run constraints in order; stop at the first failure. Returns (ok, checks, failed_name)."""
    checks: dict[str, float | None] = {}
    for c in constraints:
        ok, value = c.check(original, edit, context)
        checks[c.name] = value if value is not None else (None if ok is None else float(ok))
        if ok is False:
            return False, checks, c.name
    return True, checks, None


def iter_items(rows: Iterable[Mapping[str, Any]]) -> list[Item]:
    return [Item(index=i, data=dict(r)) for i, r in enumerate(rows)]
