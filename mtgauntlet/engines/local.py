"""The local engine: scores (or builds) the shards one after another in this process (the model is loaded once)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtgauntlet.core.progress import unit
from mtgauntlet.engines.scoring import ScoreTask, ShardCallback, ShardScorer, WorkDir, placement_options
from mtgauntlet.shards import Shard, Worker, map_here


class LocalEngine:
    name = "local"
    runs_here = True  # shards run in this process, with the caller's worker (builder) as it is

    def map_shards(self, worker: Worker, items: Sequence[Any] | None, shards: Iterable[Shard], progress: Any):
        """Shards one after another in this process (see :mod:`mtgauntlet.shards`); ``items`` are not needed: the
        caller's worker is already prepared."""
        return map_here(worker, shards, progress)

    def placement(self, task: ScoreTask) -> dict[str, Any]:
        """Device, dtype and batch the backend resolves to here (``{}`` for backends without a model)."""
        from mtgauntlet.engines.scoring import is_neural
        from mtgauntlet.models.runtime import resolve_runtime

        if not is_neural(task.role, task.spec):
            return {}
        return resolve_runtime(placement_options(task.role, task.spec)).info()

    def score(
        self, task: ScoreTask, columns: dict[str, Sequence], work_dir: str | Path, on_shard: ShardCallback | None = None
    ) -> np.ndarray:
        """Scores of every row, in input order; finished shards found in ``work_dir`` are not recomputed."""
        work = WorkDir(work_dir, task, columns)
        todo = work.todo()
        if todo:
            scorer = ShardScorer(task)
            for start, end in todo:
                part: dict[str, Sequence] = {c: list(columns[c][start:end]) for c in task.columns}
                with unit(end - start):  # the shard's chunks move the progress display inside it
                    scores = scorer.score(part)
                work.write_scores(start, end, scores)
                if on_shard is not None:
                    on_shard(start, end)
        return work.read_scores()
