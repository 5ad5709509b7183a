"""What every builder implements, plus the TextAttack/CheckList-style building blocks.

A *builder* turns input items into records of one kind. Perturbations (``Transformation``) and
their validation (``Constraint``) are separate small objects; ``apply()`` returns ``None`` where a
transformation does not apply, and every produced variant records which transformation and which
constraints it passed (provenance).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mtgauntlet.corpora.readers import RowSet
from mtgauntlet.models.estimate import Plan
from mtgauntlet.shards import ArgsRecorded


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


class Builder(ArgsRecorded):
    """The contract between a method and the runner: every hook the runner calls is declared here, with its
    default, so a new builder overrides what it needs and nothing is probed for (datatrove's ``PipelineStep``
    in spirit). The runner calls, in order:

    1. ``load_backends()`` — load every model now, so a bad spec fails before anything is written;
    2. ``signature_fields()``, ``config()``, ``model_specs()``, ``runtime_info()`` — the build's signature and
       manifest (``build.json``);
    3. on a resume of a ``stateful`` builder, ``restore(records)`` with the records of the finished shards;
    4. ``prepare(items, progress)`` — corpus-level state (pools, indexes), deterministic so safe on resume;
    5. per shard: ``process_batch(items, rngs)`` (default: ``process`` per item), each item's rng keyed by
       ``item_key(item)`` (default: the item's position);
    6. for a ``finalizing`` builder, ``finalize(records)`` over every record before the final shard is written.

    The constructor's arguments are recorded (``init_args``): an engine's actor makes its own builder from them
    (:mod:`mtgauntlet.shards`), never a copy pickled with loaded models.

    ``plan(items)`` is the dry run: the API calls the build would send, estimated from its own prompts, without
    sending any (``--dry-run``)."""

    name: ClassVar[str]
    version: ClassVar[str]
    kind: ClassVar[str]
    #: ``process_batch`` handles a whole shard at once (and reports its own progress steps inside it)
    batched: ClassVar[bool] = False
    #: the builder carries state across items (e.g. zero-shot's history): ``restore`` rebuilds it on a resume
    stateful: ClassVar[bool] = False
    #: the output needs every item first (e.g. the B hardest texts): ``finalize`` sees all records
    finalizing: ClassVar[bool] = False
    #: build.json lists the seeds drawn (source id, sha256 of the text) as soon as the build is planned
    records_seeds: ClassVar[bool] = False
    #: per-record failure counters summed into build.json ``counts.failures``
    failure_columns: ClassVar[tuple[str, ...]] = ()
    #: what to say when a build produced no record
    empty_hint: ClassVar[str] = ""
    #: items per shard where the options leave it open (``shard_size=None``) and no build in the folder says
    default_shard_size: ClassVar[int] = 100

    @classmethod
    def read(cls, options: Any) -> tuple[Any, RowSet]:
        """The method's input, read as its options say (``mtgauntlet.builders.inputs.read_corpus``: which columns,
        how many rows), and the options with their languages normalised: what the builder is then made from."""
        raise NotImplementedError

    def notes(self) -> list[str]:
        """What the build says of its setup before it runs (``Build.notes``; SMAUG: how each phenomenon is made)."""
        return []

    def shards_engine(self) -> tuple[str, int | None]:
        """Where the runner builds the shards: ``("local", None)`` or ``("ray", actors)``."""
        return "local", None

    def signature_fields(self) -> dict[str, Any]:
        """Ordered fields of the build signature (builder, langs, n, seed, models, ...)."""
        raise NotImplementedError

    def config(self) -> dict[str, Any]:
        """JSON-able configuration stored in the manifest."""
        raise NotImplementedError

    def model_specs(self) -> dict[str, str]:
        """Model role -> spec string, stored in the manifest."""
        raise NotImplementedError

    def process(self, item: Item, rng: random.Random) -> ItemResult:
        """Produce records for one item; must depend only on the item, the rng and the config."""
        raise NotImplementedError

    def process_batch(self, items: Sequence[Item], rngs: Sequence[random.Random]) -> Iterable[ItemResult]:
        """Records for a shard's items (one result each, in order); lazily item by item unless ``batched``."""
        return (self.process(item, rng) for item, rng in zip(items, rngs))

    def load_backends(self) -> None:
        """Load every model the build needs (a bad spec fails before anything is written)."""

    def prepare(self, items: Sequence[Item], progress: Any = None) -> None:
        """Corpus-level state computed before the first shard; ``progress`` is a display to advance (or None)."""

    def restore(self, records: list[dict[str, Any]]) -> None:
        """A ``stateful`` builder's state rebuilt from the records of the shards a resumed build kept."""

    def finalize(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A ``finalizing`` builder's final records from every record of the build."""
        return records

    def item_key(self, item: Item) -> tuple[str, ...] | None:
        """What an item is (source id, text): its rng is keyed by it, so a record does not change when other rows
        are added, removed or edited. ``None``: keyed by the item's position."""
        return None

    def runtime_info(self) -> dict[str, Any] | None:
        """Where the builder's models run (device, dtype, batch, an API's concurrency), for build.json."""
        return None

    def plan(self, items: Sequence[Item]) -> Plan:
        """The dry run: the API calls this build would send for ``items`` (none by default: local models)."""
        return Plan()


def overrides(builder: Builder, hook: str) -> bool:
    """Whether ``builder``'s class implements ``hook`` itself (the runner reports a ``prepare`` only then)."""
    return getattr(type(builder), hook) is not getattr(Builder, hook)


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

    def check(
        self, original: str, edit: Edit, context: Mapping[str, Any] | None = None
    ) -> tuple[bool | None, float | None]:
        raise NotImplementedError


def run_constraints(
    constraints: Sequence[Constraint], original: str, edit: Edit, context: Mapping[str, Any] | None = None
) -> tuple[bool, dict[str, float | None], str | None]:
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
