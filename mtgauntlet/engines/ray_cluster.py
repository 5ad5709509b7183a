"""The Ray cluster every Ray engine runs on (scoring and builds): connecting to it or starting a local one, the
environment actors inherit, and the shares of the budget each actor of a pool may spend."""

from __future__ import annotations

import logging
import os
from typing import Any

from mtgauntlet.core import usage
from mtgauntlet.errors import BackendUnavailable

# environment the actors need to behave like this process (offline flags, caches, global model defaults)
PASSED_ENV_PREFIXES = ("MTGAUNTLET_", "HF_", "TRANSFORMERS_", "TOKENIZERS_")


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ModuleNotFoundError:
        raise BackendUnavailable("--engine ray needs Ray Data (pip install 'ray[data]')") from None
    return ray


def start_ray() -> Any:
    """Connect to ``RAY_ADDRESS`` or start a local cluster (once per process)."""
    ray = _ray()
    if not ray.is_initialized():
        quiet = dict(log_to_driver=False, configure_logging=False, logging_level=logging.WARNING)
        address = os.environ.get("RAY_ADDRESS")
        if address:
            ray.init(address=address, **quiet)
        else:
            from mtgauntlet.engines.ray_watchdog import guard_local_cluster

            cpus = int(os.environ.get("MTGAUNTLET_RAY_CPUS") or os.cpu_count() or 1)
            with guard_local_cluster():  # its processes end with this one, however it ends
                ray.init(num_cpus=cpus, include_dashboard=False, object_store_memory=256 * 2**20, **quiet)
    logging.getLogger("ray.data").setLevel(logging.ERROR)  # our own progress line replaces Ray Data's bars
    ray.data.DataContext.get_current().enable_progress_bars = False
    return ray


def _actor_env(pinned: dict[str, Any]) -> dict[str, str]:
    from mtgauntlet.models.runtime import ENV

    env = {k: v for k, v in os.environ.items() if k.startswith(PASSED_ENV_PREFIXES)}
    for key, left in zip(("max_cost", "max_requests"), usage.remaining()):  # split by budget_shares() per pool
        env[usage.ENV[key]] = "" if left is None else str(left)
    if pinned:  # every actor runs with the placement resolved once, so no actor differs from another
        env[ENV["dtype"]] = pinned["dtype"]
        env[ENV["batch"]] = str(pinned["batch"])
        env[ENV["device"]] = "cuda" if pinned["device"].startswith("cuda") else pinned["device"]
    return env


def budget_shares(size: int) -> dict[str, str]:
    """The environment that gives each of ``size`` actors an equal share of the budget left (``--max-cost`` /
    ``--max-requests``), so that together they never pass it; an actor whose share is spent stops the run
    (``BudgetSpent``) and the same command resumes it."""
    cost, requests = usage.remaining()
    env = {}
    if cost is not None:
        env[usage.ENV["max_cost"]] = repr(cost / size)
    if requests is not None:
        env[usage.ENV["max_requests"]] = str(requests // size)
    return env


def pool_size(wanted: int) -> int:
    """At most one actor per request the budget still allows (each gets a share of at least one)."""
    requests = usage.remaining()[1]
    return max(1, wanted if requests is None else min(wanted, requests))
