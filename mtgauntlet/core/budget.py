"""The budget of a command: ``--max-cost`` / ``--max-requests`` given on the command line (`set_global_budget`) or
to one API call (`budget`), kept in the ledger (:mod:`.usage`, which says how a budget throttles and stops)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator

from mtgauntlet.core.usage import LEDGER
from mtgauntlet.errors import GauntletError


def set_global_budget(max_cost: float | None, max_requests: int | None) -> None:
    """``gauntlet --max-cost/--max-requests``: the budget of the command (kept in the ledger, not in the
    environment; :func:`mtgauntlet.cli.main.run` resets it when the command ends)."""
    check_budget(max_cost, max_requests)
    LEDGER.global_budget = (max_cost, max_requests)


def check_budget(max_cost: float | None, max_requests: int | None) -> None:
    if (max_cost is not None and not 0 <= max_cost < math.inf) or (max_requests is not None and max_requests < 0):
        raise GauntletError("--max-cost must be a finite number >= 0 and --max-requests an integer >= 0")


@contextlib.contextmanager
def budget(max_cost: float | None = None, max_requests: int | None = None) -> Iterator[None]:
    """Apply ``--max-cost`` / ``--max-requests`` of one command to the requests sent inside (counted from zero; a
    limit not given is the command line's); the previous budget is restored afterwards. Without either limit, an
    enclosing scope stays in force; without any limit anywhere, nothing changes."""
    check_budget(max_cost, max_requests)
    if max_cost is None and max_requests is None and LEDGER.scope is not None:
        yield  # inside another command's budget (a build of a recipe, a builder's own run): it stays in force
        return
    outer_cost, outer_reqs = LEDGER._outer_budget()
    max_cost = outer_cost if max_cost is None else max_cost
    max_requests = outer_reqs if max_requests is None else max_requests
    saved = LEDGER.scope
    if max_cost is not None or max_requests is not None:
        with LEDGER._lock:
            LEDGER.scope = (max_cost, max_requests, LEDGER.sent, LEDGER.spent(), LEDGER.total_cost(), LEDGER.lost_count)
    try:
        yield
    finally:
        LEDGER.scope = saved
