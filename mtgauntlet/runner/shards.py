"""The shards of a build as an engine sees them, and the engine that runs them in this process.

An engine runs a builder's shards and hands back each shard's item results in shard order:
``engine.map_shards(builder, items, shards, progress)`` yields ``(shard, results)``. The runner writes each shard
as it comes (so a killed build keeps the shards written before) and numbers, completes and deduplicates the records
itself, so an engine changes where the records are made, never what they are. :func:`map_here` is the local
engine; :class:`mtgauntlet.engines.ray_builds.RayShards` runs the same shards in Ray actors, each of which builds
its own copy of the builder from :class:`BuilderFactory` (the constructor's arguments: a builder is never pickled
with its loaded models), loads its models and runs ``prepare`` over every item once."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from mtgauntlet.builders.base import Builder, Item, ItemResult


@dataclass
class Shard:
    """Items ``start``..``end - 1`` of a build and their rngs (made by the runner: seeded per item)."""

    start: int
    end: int
    items: Sequence[Item]
    rngs: Sequence[random.Random]


@dataclass(frozen=True)
class BuilderFactory:
    """A builder's class and constructor arguments: calling it builds an equal builder (in another process)."""

    cls: type
    args: tuple
    kwargs: dict[str, Any]

    @classmethod
    def of(cls, builder: Builder) -> "BuilderFactory":
        args, kwargs = builder.init_args
        return cls(type(builder), tuple(args), dict(kwargs))

    def __call__(self) -> Builder:
        return self.cls(*self.args, **self.kwargs)


def map_here(builder: Builder, shards: Iterable[Shard], progress: Any) -> Iterator[tuple[Shard, Iterable[ItemResult]]]:
    """The local engine: each shard in this process, with ``builder`` as it is (``prepare`` already ran). A batched
    builder's steps move the display inside its shard; other builders' results come lazily, item by item."""
    for shard in shards:
        if builder.batched:
            with progress.unit(len(shard.items)):  # the builder's step() calls move the display inside a shard
                results: Iterable[ItemResult] = builder.process_batch(shard.items, shard.rngs)
        else:
            results = builder.process_batch(shard.items, shard.rngs)
        yield shard, results
