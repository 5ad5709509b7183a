"""Chunks scored on Ray workers (``--engine ray``): one scorer per worker process, the same chunks as the local
engine, so the stored scores are the same; the workers of a metric are started once and kept for the run's sets."""

from __future__ import annotations

import contextlib
from typing import Any

from mtgauntlet.workbench.chunks import Chunk, score_chunk
from mtgauntlet.workbench.metrics import make_scorer
from mtgauntlet.workbench.sets import Items


class _RayScorer:
    """A Ray worker's scorer: made once per metric spec and run (see :func:`_ray_workers`), then it scores chunks."""

    def __init__(self, spec):
        self.scorer = make_scorer(spec)

    def score(self, items, chunk, limits):
        from mtgauntlet.core.budget import budget
        from mtgauntlet.core.usage import LEDGER, BudgetSpent
        from mtgauntlet.core.usage_report import since, to_json

        before = LEDGER.snapshot()
        try:
            with budget(*limits):
                answers = score_chunk(self.scorer, items, chunk)
        except BudgetSpent as exc:
            return None, to_json(since(before)), str(exc)
        return answers, to_json(since(before)), None


_RAY_WORKERS: dict[str, list[Any]] = {}  # this run's Ray scorers by metric spec: started once, for every set


def _ray_workers(ray: Any, spec: Any, n: int) -> list[Any]:
    """``n`` Ray workers scoring ``spec``, started on first use and kept for the run's other sets (a worker's start
    imports the package and loads the metric: seconds each); those of the metric scored before are ended (a run
    scores one metric over every set, then the next), and the last ones by :func:`stop_ray_workers`."""
    key = repr(spec)
    for other in [k for k in _RAY_WORKERS if k != key]:  # the run has moved on to another metric: end the last one's
        _kill(_RAY_WORKERS.pop(other))
    pool = _RAY_WORKERS.setdefault(key, [])
    remote = ray.remote(_RayScorer)
    while len(pool) < n:
        pool.append(remote.remote(spec))
    return pool[:n]


def stop_ray_workers() -> None:
    """End the run's Ray scorers (a run calls it when it ends, however it ends)."""
    if not _RAY_WORKERS:
        return
    for pool in _RAY_WORKERS.values():
        _kill(pool)
    _RAY_WORKERS.clear()


def _kill(pool: list[Any]) -> None:
    import ray

    for worker in pool:
        with contextlib.suppress(Exception):  # the cluster may be gone already
            ray.kill(worker)


def _ray_map(spec: Any, items: Items, work: list[Chunk]):
    """Chunks scored on Ray workers (one scorer per worker), yielded in order. The workers' API usage counts in
    this run's totals; under a budget (``--max-cost`` / ``--max-requests``) one worker scores one chunk at a time
    with what is left of it, so the budget is never passed."""
    from mtgauntlet.core.usage import BudgetSpent, remaining
    from mtgauntlet.core.usage_report import absorb
    from mtgauntlet.engines.ray_engine import start_ray

    ray = start_ray()
    limited = any(x is not None for x in remaining())
    n = 1 if limited else max(1, min(len(work), int(ray.cluster_resources().get("CPU", 1))))
    workers = _ray_workers(ray, spec, n)
    ref = ray.put(items)
    ahead = [] if limited else [workers[k % n].score.remote(ref, c, (None, None)) for k, c in enumerate(work)]
    cost_left, requests_left = remaining()
    for k, chunk in enumerate(work):
        answers, usage, stopped = ray.get(
            workers[0].score.remote(ref, chunk, (cost_left, requests_left)) if limited else ahead[k]
        )
        absorb(usage)
        spent_cost, spent_requests = _spent(usage)
        cost_left = None if cost_left is None else max(0.0, cost_left - spent_cost)
        requests_left = None if requests_left is None else max(0, requests_left - spent_requests)
        if stopped is not None:
            raise BudgetSpent(stopped)
        yield chunk, answers


def _spent(usage: str) -> tuple[float, int]:
    """(USD, requests) of a worker's usage (`mtgauntlet.core.usage_report.to_json`)."""
    import json

    from mtgauntlet.core.usage import Price

    cost, requests = 0.0, 0
    for u in (json.loads(usage) if usage else {}).values():
        requests += int(u.get("requests", 0))
        if u.get("price"):
            cost += Price(*u["price"]).cost(int(u.get("input_tokens", 0)), int(u.get("output_tokens", 0)))
    return cost, requests
