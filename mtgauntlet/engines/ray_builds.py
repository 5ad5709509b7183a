"""A build's shards on Ray: the runner's ``map_shards`` hook (:mod:`mtgauntlet.runner.shards`) for the Ray engine.

Every actor of a pool builds its own copy of the builder from the constructor's arguments
(:class:`~mtgauntlet.runner.shards.BuilderFactory`: the builder is never pickled with loaded models), loads its
models and runs the builder's ``prepare`` over every item once (corpus-level pools are deterministic, so every
actor holds the same ones), then makes whole shards: the items and the per-item rngs the runner made. The results
come back in shard order, so the runner writes, numbers and deduplicates exactly as with the local engine, and a
killed driver leaves the shards it wrote (the actors end with it, :mod:`mtgauntlet.engines.ray_watchdog`). A user
error in an actor (a model that cannot load, a spent budget) comes back as one line, never as a traceback.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Iterator, Sequence

from mtgauntlet.builders.base import Builder, Item, ItemResult, overrides
from mtgauntlet.errors import GauntletError
from mtgauntlet.models import usage
from mtgauntlet.runner.shards import BuilderFactory, Shard


class BuildActor:
    """One worker of the pool: a builder made from its factory, prepared over every item, then shard after shard."""

    def __init__(self, factory: BuilderFactory, items: Sequence[Item], env: dict[str, str]):
        os.environ.update(env)
        self.builder: Builder | None = None
        self.error = ""
        try:
            builder = factory()
            builder.load_backends()
            if overrides(builder, "prepare"):
                builder.prepare(items)
            self.builder = builder
        except GauntletError as exc:
            self.error, self.budget_spent = str(exc), isinstance(exc, usage.BudgetSpent)

    def run(self, start: int, end: int, items: Sequence[Item], rngs) -> dict[str, Any]:
        before = usage.LEDGER.snapshot()
        out: dict[str, Any] = {"start": start, "end": end, "pid": os.getpid(), "error": self.error,
                               "budget_spent": getattr(self, "budget_spent", False), "results": None}
        if self.builder is not None:
            try:
                out["results"] = list(self.builder.process_batch(items, rngs))
            except GauntletError as exc:
                out["error"], out["budget_spent"] = str(exc), isinstance(exc, usage.BudgetSpent)
        out["usage"] = usage.to_json(usage.since(before))  # this shard's API usage, for the driver's ledger
        return out


def map_shards(engine, builder: Builder, items: Sequence[Item], shards: Iterable[Shard],
               progress: Any) -> Iterator[tuple[Shard, list[ItemResult]]]:
    """``(shard, results)`` in shard order, made by a pool of ``engine.actors`` actors (default: one per
    ``cpus_per_actor`` CPUs of the cluster, at most one per shard)."""
    from mtgauntlet.engines.ray_engine import _actor_env, start_ray

    todo = list(shards)
    if not todo:
        return
    ray = start_ray()
    from ray.util import ActorPool

    capacity = ray.cluster_resources().get("CPU", 1.0)
    size = max(1, min(len(todo), engine.actors or int(capacity // engine.cpus_per_actor) or 1))
    remote = ray.remote(num_cpus=engine.cpus_per_actor, max_restarts=0)(BuildActor)
    items_ref = ray.put(list(items))
    env = _actor_env({})
    actors = [remote.remote(BuilderFactory.of(builder), items_ref, env) for _ in range(size)]
    engine.last_pids = set()
    by_start = {shard.start: shard for shard in todo}
    try:
        pool = ActorPool(actors)
        done = pool.map(lambda actor, shard: actor.run.remote(shard.start, shard.end, list(shard.items),
                                                               list(shard.rngs)), todo)
        for row in done:  # ActorPool.map keeps the order of the shards
            usage.absorb(row["usage"])  # the actors' API usage, counted as this process's
            if row["error"]:
                raise (usage.BudgetSpent if row["budget_spent"] else GauntletError)(row["error"])
            engine.last_pids.add(int(row["pid"]))
            yield by_start[row["start"]], row["results"]
    finally:
        for actor in actors:
            ray.kill(actor)
