"""One engine interface for work cut into shards: a build's items (:mod:`mtgauntlet.runner.build_runner`) and the
validators' per-record checks (:mod:`mtgauntlet.validators.record_engine`) alike.

``engine.map_shards(worker, items, shards, progress)`` runs ``worker.process_batch(shard.items, shard.rngs)`` for
every shard and yields ``(shard, results)`` in shard order. The caller writes or sums each shard's results as they
come (the build runner writes a shard at a time, so a killed build keeps what it wrote), so an engine changes where
the work runs, never what it gives. :func:`map_here` is the local engine: the shards in this process, with the worker
as it is. The Ray engine (:mod:`mtgauntlet.engines.ray_builds`) runs them in actors, each of which makes its own
worker with :class:`WorkerFactory` (the class and its constructor's arguments: a worker is never pickled with its
loaded models), calls ``load_backends()`` and, for a worker with corpus-level state, ``prepare(items)`` once.

A worker is a :class:`mtgauntlet.builders.base.Builder` or anything with the same shard hooks (:class:`Worker`).
This module sits at the bottom: it imports nothing of the package.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol


class Worker(Protocol):
    """What an engine calls on the thing that does a shard's work."""

    #: ``process_batch`` handles a whole shard at once (its progress steps move the display inside the shard)
    batched: ClassVar[bool]
    #: ``(args, kwargs)`` of the constructor, recorded when the worker was made
    init_args: tuple[tuple, dict[str, Any]]

    def load_backends(self) -> None: ...

    # ``rngs``: what the shards carry (a builder's ``random.Random`` per item; ``None`` for a scorer, which draws none)
    def process_batch(self, items: Sequence[Any], rngs: Sequence[Any]) -> Iterable[Any]: ...


class ArgsRecorded:
    """A base that records the constructor's arguments (``init_args``) so that an engine can make the same worker in
    another process."""

    init_args: tuple[tuple, dict[str, Any]]

    def __new__(cls, *args: Any, **kwargs: Any):
        self = super().__new__(cls)
        self.init_args = (args, kwargs)
        return self


@dataclass
class Shard:
    """Items ``start``..``end - 1`` of the work and their rngs (a build's are seeded per item; ``None`` where unused)."""

    start: int
    end: int
    items: Sequence[Any]
    rngs: Sequence[random.Random | None]


def cut(items: Sequence[Any], size: int) -> list[Shard]:
    """``items`` in fixed shards of ``size`` (the last one shorter), without rngs."""
    return [
        Shard(s, min(s + size, len(items)), items[s : s + size], [None] * len(items[s : s + size]))
        for s in range(0, len(items), size)
    ]


@dataclass(frozen=True)
class WorkerFactory:
    """A worker's class and constructor arguments: calling it makes an equal worker (in another process)."""

    cls: type
    args: tuple
    kwargs: dict[str, Any]

    @classmethod
    def of(cls, worker: Worker) -> WorkerFactory:
        args, kwargs = worker.init_args
        return cls(type(worker), tuple(args), dict(kwargs))

    def __call__(self) -> Worker:
        return self.cls(*self.args, **self.kwargs)


def map_here(worker: Worker, shards: Iterable[Shard], progress: Any) -> Iterator[tuple[Shard, Iterable[Any]]]:
    """The local engine: each shard in this process, with ``worker`` as it is (``prepare`` already ran). A batched
    worker's steps move ``progress`` (a :class:`mtgauntlet.core.progress.Progress`, or ``None``) inside its shard;
    other workers' results come lazily, item by item."""
    for shard in shards:
        if worker.batched and progress is not None:
            with progress.unit(len(shard.items)):  # the worker's step() calls move the display inside a shard
                results: Iterable[Any] = worker.process_batch(shard.items, shard.rngs)
        else:
            results = worker.process_batch(shard.items, shard.rngs)
        yield shard, results
