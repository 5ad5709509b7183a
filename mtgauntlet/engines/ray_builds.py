"""Shards on Ray: the ``map_shards`` hook (:mod:`mtgauntlet.shards`) of the Ray engine, for a build's items and the
validators' per-record checks alike.

Every actor of a pool makes its own worker (a builder) from the constructor's arguments
(:class:`~mtgauntlet.shards.WorkerFactory`: never pickled with loaded models), loads its models and, when the
caller passes the items (a builder with corpus-level state), runs ``prepare`` over every item once (SMAUG's pools
are deterministic, so every actor holds the same ones); then it works through whole shards: the items and the
per-item rngs the caller made. The results come back in shard order, so the runner writes, numbers and deduplicates
exactly as with the local engine, and a killed driver leaves the shards it wrote (the actors end with it,
:mod:`mtgauntlet.engines.ray_watchdog`). A user error in an actor (a model that cannot load, a spent budget) comes
back as one line, never as a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from mtgauntlet.core import usage, usage_report
from mtgauntlet.errors import GauntletError
from mtgauntlet.shards import Shard, Worker, WorkerFactory


class ShardActor:
    """One actor of the pool: a worker made from its factory (prepared over every item when they are given), then
    shard after shard."""

    def __init__(self, factory: WorkerFactory, items: Sequence[Any] | None, env: dict[str, str]):
        os.environ.update(env)
        self.worker: Worker | None = None
        self.error, self.budget_spent = "", False
        try:
            worker = factory()
            worker.load_backends()
            if items is not None:
                worker.prepare(items)  # type: ignore[attr-defined]
            self.worker = worker
        except GauntletError as exc:
            self.error, self.budget_spent = str(exc), isinstance(exc, usage.BudgetSpent)

    def run(self, start: int, end: int, items: Sequence[Any], rngs) -> dict[str, Any]:
        before = usage.LEDGER.snapshot()
        out: dict[str, Any] = {
            "start": start,
            "end": end,
            "pid": os.getpid(),
            "error": self.error,
            "budget_spent": self.budget_spent,
            "results": None,
        }
        if self.worker is not None:
            try:
                out["results"] = list(self.worker.process_batch(items, rngs))
            except GauntletError as exc:
                out["error"], out["budget_spent"] = str(exc), isinstance(exc, usage.BudgetSpent)
        out["usage"] = usage_report.to_json(
            usage_report.since(before)
        )  # this shard's API usage, for the driver's ledger
        return out


def map_shards(
    engine, worker: Worker, items: Sequence[Any] | None, shards: Iterable[Shard], progress: Any
) -> Iterator[tuple[Shard, list[Any]]]:
    """``(shard, results)`` in shard order, made by a pool of ``engine.actors`` actors (default: one per
    ``cpus_per_actor`` CPUs of the cluster, at most one per shard); ``items``: what every actor's worker
    ``prepare``s over once (``None``: no ``prepare``)."""
    from mtgauntlet.engines.ray_cluster import _actor_env, budget_shares, pool_size, start_ray

    todo = list(shards)
    if not todo:
        return
    ray = start_ray()
    from ray.util import ActorPool

    capacity = ray.cluster_resources().get("CPU", 1.0)
    size = pool_size(max(1, min(len(todo), engine.actors or int(capacity // engine.cpus_per_actor) or 1)))
    remote = ray.remote(num_cpus=engine.cpus_per_actor, max_restarts=0)(ShardActor)
    items_ref = None if items is None else ray.put(list(items))  # once in the object store, read by every actor
    env = {**_actor_env({}), **budget_shares(size)}  # together the actors never pass the budget
    actors = [remote.remote(WorkerFactory.of(worker), items_ref, env) for _ in range(size)]
    engine.last_pids = set()
    by_start = {shard.start: shard for shard in todo}
    try:
        pool = ActorPool(actors)
        done = pool.map(
            lambda actor, shard: actor.run.remote(shard.start, shard.end, list(shard.items), list(shard.rngs)), todo
        )
        for row in done:  # ActorPool.map keeps the order of the shards
            usage_report.absorb(row["usage"])  # the actors' API usage, counted as this process's
            if row["error"]:
                raise (usage.BudgetSpent if row["budget_spent"] else GauntletError)(row["error"])
            engine.last_pids.add(int(row["pid"]))
            yield by_start[row["start"]], row["results"]
    finally:
        for actor in actors:
            ray.kill(actor)
