"""The Ray engine: the shards of a scoring task run on a Ray cluster, in a pool of actors that load the model once.

``RAY_ADDRESS`` names the cluster (``ray start --head`` on one node, ``ray start --address HEAD:6379`` on the
others); without it a local cluster is started with this machine's CPUs (``MTGAUNTLET_RAY_CPUS`` to change),
whose processes end with this one, also when it is killed (:mod:`mtgauntlet.engines.ray_watchdog`).
The driver stages the rows of each unfinished shard as Parquet under the work directory, a Ray Data
pipeline hands the shards to an actor pool (one GPU per actor when the model runs on CUDA), and every
actor reads its shard's Parquet file, scores it with the same :class:`ShardScorer` as the local engine
and writes the score shard atomically. Shards are fixed row ranges, so the scores do not depend on how
many actors ran or in which order. The work directory must be on storage every node can reach.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtgauntlet.core import usage, usage_report
from mtgauntlet.engines.ray_cluster import PASSED_ENV_PREFIXES, _actor_env, budget_shares, pool_size, start_ray  # noqa: F401
from mtgauntlet.engines.scoring import (
    ScoreTask,
    ShardCallback,
    ShardScorer,
    WorkDir,
    is_neural,
    placement_options,
    write_score_shard,
)
from mtgauntlet.errors import BackendUnavailable, GauntletError

log = logging.getLogger(__name__)


def _resolve_placement(role: str, spec: str, env: dict[str, str]) -> dict[str, Any]:
    os.environ.update(env)
    from mtgauntlet.models.runtime import resolve_runtime

    return resolve_runtime(placement_options(role, spec)).info()


class _ShardActor:
    """A Ray Data actor: loads the backend once, then scores whole shards (Parquet in, Parquet out). A user
    error (a model that cannot load, a language a backend lacks) comes back as a row's ``error`` text, so the
    driver stops with that one line instead of Ray restarting the actor or printing its traceback."""

    def __init__(self, task: dict[str, Any], env: dict[str, str]):
        os.environ.update(env)
        self.scorer: ShardScorer | None = None
        self.error = ""
        try:
            self.scorer = ShardScorer(ScoreTask(**task))
        except GauntletError as exc:
            self.error = str(exc)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, list]:
        import pyarrow.parquet as pq

        errors, spent, stopped = [], [], []
        for start, end, source, target in zip(batch["start"], batch["end"], batch["input"], batch["output"]):
            before = usage.LEDGER.snapshot()
            stopped.append(False)
            if self.error:
                errors.append(self.error)
            else:
                scorer = self.scorer
                assert scorer is not None  # loaded: no error
                try:
                    table = pq.read_table(str(source))
                    scores = scorer.score({c: table.column(c).to_pylist() for c in scorer.task.columns})
                except GauntletError as exc:
                    errors.append(str(exc))
                    stopped[-1] = isinstance(exc, usage.BudgetSpent)
                else:
                    write_score_shard(Path(str(target)), scores, int(end) - int(start))
                    errors.append("")
            spent.append(
                usage_report.to_json(usage_report.since(before))
            )  # this shard's API usage, for the driver's ledger
        return {
            "start": [int(s) for s in batch["start"]],
            "end": [int(e) for e in batch["end"]],
            "pid": [os.getpid()] * len(errors),
            "error": errors,
            "usage": spent,
            "budget_spent": stopped,
        }


class RayEngine:
    name = "ray"
    runs_here = False  # shards run in actors that make their own worker (builder) (engines/ray_builds.py)

    def __init__(self, actors: int | None = None, cpus_per_actor: float = 1.0, gpus_per_actor: float = 1.0):
        if actors is not None and actors < 1:
            raise GauntletError("--actors must be >= 1")
        self.actors, self.cpus_per_actor, self.gpus_per_actor = actors, cpus_per_actor, gpus_per_actor
        self.last_pids: set[int] = set()
        self._placements: dict[ScoreTask, dict[str, Any]] = {}

    def _gpus(self, ray, task: ScoreTask) -> float:
        """GPUs per actor: for a torch model whose device is cuda, or auto on a cluster that has GPUs."""
        if not is_neural(task.role, task.spec):
            return 0.0
        from mtgauntlet.models.runtime import defaults

        want = placement_options(task.role, task.spec).get("device") or defaults().get("device") or "auto"
        available = ray.cluster_resources().get("GPU", 0.0)
        if want.startswith("cuda"):
            if available < self.gpus_per_actor:
                raise BackendUnavailable(f"device {want!r} requested but the Ray cluster has {available:g} GPU(s)")
            return self.gpus_per_actor
        return self.gpus_per_actor if want == "auto" and available >= self.gpus_per_actor else 0.0

    def placement(self, task: ScoreTask) -> dict[str, Any]:
        """Device, dtype and batch as an actor of this cluster resolves them (``{}`` without a model)."""
        if not is_neural(task.role, task.spec):
            return {}
        if task not in self._placements:
            ray = start_ray()
            probe = ray.remote(num_cpus=self.cpus_per_actor, num_gpus=self._gpus(ray, task))(_resolve_placement)
            self._placements[task] = ray.get(probe.remote(task.role, task.spec, _actor_env({})))
        return self._placements[task]

    def map_shards(self, worker, items, shards, progress):
        """Shards in a pool of actors, results in shard order (see :mod:`mtgauntlet.engines.ray_builds`)."""
        from mtgauntlet.engines.ray_builds import map_shards

        return map_shards(self, worker, items, shards, progress)

    def score(
        self, task: ScoreTask, columns: dict[str, Sequence], work_dir: str | Path, on_shard: ShardCallback | None = None
    ) -> np.ndarray:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from mtgauntlet.atomic import atomic_path
        from mtgauntlet.models.registry import resolve_class

        resolve_class(task.role, task.spec)  # unknown backend or role: fail here, before starting anything
        work = WorkDir(Path(work_dir).resolve(), task, columns)
        todo = work.todo()
        if todo:
            ray = start_ray()
            gpus = self._gpus(ray, task)
            env = _actor_env(self.placement(task))
            for start, end in todo:
                path = work.input_path(start, end)
                if not path.exists():
                    with atomic_path(path) as tmp:
                        pq.write_table(pa.table({c: list(columns[c][start:end]) for c in task.columns}), tmp)
            per_actor = gpus if gpus else self.cpus_per_actor
            capacity = ray.cluster_resources().get("GPU" if gpus else "CPU", 1.0)
            size = pool_size(max(1, min(len(todo), self.actors or int(capacity // per_actor) or 1)))
            env.update(budget_shares(size))  # together the actors never pass the budget
            shards = [
                {"start": s, "end": e, "input": str(work.input_path(s, e)), "output": str(work.score_path(s, e))}
                for s, e in todo
            ]
            ds = ray.data.from_items(shards).map_batches(
                _ShardActor,
                fn_constructor_kwargs={"task": task.to_dict(), "env": env},
                batch_size=1,
                compute=ray.data.ActorPoolStrategy(size=size),
                num_cpus=self.cpus_per_actor,
                num_gpus=gpus or None,
            )
            self.last_pids = set()
            for row in ds.iter_rows():
                usage_report.absorb(row["usage"])  # the actors' API usage, counted as this process's
                if row["error"]:
                    raise (usage.BudgetSpent if row["budget_spent"] else GauntletError)(row["error"])
                self.last_pids.add(int(row["pid"]))
                if on_shard is not None:
                    on_shard(int(row["start"]), int(row["end"]))
        scores = work.read_scores()
        work.remove_inputs()
        return scores
