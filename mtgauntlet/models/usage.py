"""What the API calls of a run used and cost, and the budgets that stop it (``--max-cost``, ``--max-requests``).

Every ``openai:`` backend records each answered request in one process-wide ledger, per spec: ``requests``,
``input_tokens`` and ``output_tokens`` (the server's own ``usage`` counts), ``retries`` (attempts after the first),
``failures`` (requests that got no answer after all retries), ``cached`` (answers taken from the output cache: they
cost nothing and are counted apart), ``invalid_json`` (structured answers that did not validate against their
schema) and ``missing_usage`` (answers without a ``usage`` field). With ``#price=IN/OUT`` (USD per 1M input/output
tokens) in the spec, ``cost_usd`` is ``input_tokens * IN / 1e6 + output_tokens * OUT / 1e6``.

A budget is checked before each request is sent: once ``max_requests`` requests have been sent, or once the cost
recorded so far reaches ``max_cost``, no further request leaves and `BudgetSpent` (exit code 3) is raised;
requests already in flight finish (the cost may pass ``max_cost`` by what they cost). Answers received before the
stop are cached, so the same command run again pays only for what is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Iterator

from mtgauntlet.errors import GauntletError

COUNTERS = ("requests", "input_tokens", "output_tokens", "retries", "failures", "cached", "invalid_json",
            "missing_usage")
ENV = {"max_cost": "MTGAUNTLET_MAX_COST", "max_requests": "MTGAUNTLET_MAX_REQUESTS"}


class BudgetSpent(GauntletError):
    """The run reached ``--max-cost`` or ``--max-requests``: stopped at a safe point, to be resumed."""

    exit_code = 3


@dataclass(frozen=True)
class Price:
    """USD per 1M input tokens and per 1M output tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return input_tokens * self.input / 1e6 + output_tokens * self.output / 1e6


def parse_price(value: str | None, spec: str) -> Price | None:
    """``#price=IN/OUT`` -> `Price`; None when absent."""
    if value is None:
        return None
    head, sep, tail = value.partition("/")
    try:
        price = Price(float(head), float(tail)) if sep else None
    except ValueError:
        price = None
    if price is None or price.input < 0 or price.output < 0 or price.input != price.input:
        raise GauntletError(f"spec {spec!r}: #price={value!r} must be IN/OUT, USD per 1M input and output tokens "
                            "(e.g. #price=0.15/0.60)")
    return price


@dataclass
class SpecUsage:
    price: Price | None = None
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTERS, 0))

    def cost(self) -> float | None:
        return None if self.price is None else self.price.cost(self.counts["input_tokens"], self.counts["output_tokens"])


class Ledger:
    """Process-wide usage per spec (thread-safe: requests are recorded from the HTTP event loop thread)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._specs: dict[str, SpecUsage] = {}
        self.sent = 0  # requests sent by this process (each reserved before it is sent)
        self.scope: tuple | None = None  # (max_cost, max_requests, sent before it, cost before it) of budget()

    def register(self, spec: str, price: Price | None) -> None:
        with self._lock:
            entry = self._specs.setdefault(spec, SpecUsage())
            if price is not None:
                entry.price = price

    def add(self, spec: str, **counts: int) -> None:
        with self._lock:
            entry = self._specs.setdefault(spec, SpecUsage())
            for key, n in counts.items():
                entry.counts[key] += int(n)

    def total_cost(self) -> float:
        return sum(e.cost() or 0.0 for e in self._specs.values())

    def reserve(self) -> None:
        """Called before a request is sent: raises `BudgetSpent` when a budget is reached. The budget is the
        innermost `budget` scope's, else the global one (``gauntlet --max-cost/--max-requests``: the
        environment), counted from the start of the process."""
        with self._lock:
            max_cost, max_requests, sent_base, cost_base = self.scope or (*_env_budget(), 0, 0.0)
            if max_requests is not None and self.sent - sent_base >= max_requests:
                raise BudgetSpent(f"budget reached: --max-requests {max_requests} requests sent; finished work is "
                                  "kept, run the same command again (with a larger budget or none) to resume")
            spent = self.total_cost() - cost_base
            if max_cost is not None and spent >= max_cost:
                raise BudgetSpent(f"budget reached: --max-cost {max_cost:g} USD (spent {spent:.4f} USD); finished "
                                  "work is kept, run the same command again (with a larger budget or none) to resume")
            self.sent += 1

    def remaining(self) -> tuple[float | None, int | None]:
        """(USD, requests) the budget in force still allows (None: no limit)."""
        with self._lock:
            max_cost, max_requests, sent_base, cost_base = self.scope or (*_env_budget(), 0, 0.0)
            return (None if max_cost is None else max(0.0, max_cost - (self.total_cost() - cost_base)),
                    None if max_requests is None else max(0, max_requests - (self.sent - sent_base)))

    def snapshot(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {spec: {**e.counts, "price": e.price} for spec, e in self._specs.items()}


LEDGER = Ledger()
remaining = LEDGER.remaining


def since(before: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Usage per spec recorded since ``before`` (a `Ledger.snapshot`), for the specs with any activity."""
    out = {}
    for spec, now in LEDGER.snapshot().items():
        old = before.get(spec, {})
        counts = {k: now[k] - old.get(k, 0) for k in COUNTERS}
        if any(counts.values()):
            out[spec] = {**counts, "price": now["price"]}
    return out


def to_json(delta: dict[str, dict[str, Any]]) -> str:
    """`since` as JSON (the price as ``[IN, OUT]``), to carry usage out of another process (a Ray actor)."""
    return json.dumps({spec: {**{k: u[k] for k in COUNTERS},
                              "price": None if u["price"] is None else [u["price"].input, u["price"].output]}
                       for spec, u in delta.items()})


def absorb(text: str) -> None:
    """Add usage recorded by another process (`to_json`) to this process's ledger."""
    for spec, u in (json.loads(text) if text else {}).items():
        LEDGER.register(spec, Price(*u["price"]) if u.get("price") else None)
        LEDGER.add(spec, **{k: u.get(k, 0) for k in COUNTERS})


def report(delta: dict[str, dict[str, Any]], earlier: dict[str, dict[str, Any]] | None = None) -> dict[str, dict]:
    """JSON-able usage per spec (``build.json`` ``usage``): ``delta`` (from `since`) added to the report of
    earlier runs of the same build; ``cost_usd`` from the summed tokens and the spec's price (null without one)."""
    out: dict[str, dict] = {}
    for spec in sorted(set(delta) | set(earlier or {})):
        old = (earlier or {}).get(spec, {})
        new = delta.get(spec, {})
        counts = {k: int(old.get(k, 0) or 0) + int(new.get(k, 0) or 0) for k in COUNTERS}
        price = new.get("price") or (Price(*old["price_per_1m"]) if old.get("price_per_1m") else None)
        out[spec] = {**counts, "cost_usd": None if price is None else round(
            price.cost(counts["input_tokens"], counts["output_tokens"]), 10),
            "price_per_1m": None if price is None else [price.input, price.output]}
    return out


def summary_line(usage: dict[str, dict]) -> str:
    """'usage: openai:m@url: 12 requests, 3456 in / 789 out tokens, $0.0012; ...' ('' when no API was called)."""
    parts = []
    for spec, u in usage.items():
        cost = f", ${u['cost_usd']:.4f}" if u.get("cost_usd") is not None else ""
        cached = f", {u['cached']} cached" if u.get("cached") else ""
        parts.append(f"{spec}: {u['requests']} requests, {u['input_tokens']} in / {u['output_tokens']} out "
                     f"tokens{cost}{cached}")
    return ("usage: " + "; ".join(parts)) if parts else ""


def progress_note() -> str:
    """Running cost for progress lines: ', 40 requests, $0.0123' ('' while no API request was sent)."""
    snap = LEDGER.snapshot()
    requests = sum(u["requests"] for u in snap.values())
    if not requests:
        return ""
    priced = any(u["price"] is not None for u in snap.values())
    return f", {requests} requests" + (f", ${LEDGER.total_cost():.4f}" if priced else "")


def _env_budget() -> tuple[float | None, int | None]:
    cost, reqs = os.environ.get(ENV["max_cost"]), os.environ.get(ENV["max_requests"])
    try:
        return (float(cost) if cost else None), (int(reqs) if reqs else None)
    except ValueError:
        raise GauntletError(f"{ENV['max_cost']} must be a number and {ENV['max_requests']} an integer") from None


def set_global_budget(max_cost: float | None, max_requests: int | None) -> None:
    """``gauntlet --max-cost/--max-requests``: published in the environment (as ``--concurrency``)."""
    check_budget(max_cost, max_requests)
    for key, value in (("max_cost", max_cost), ("max_requests", max_requests)):
        if value is not None:
            os.environ[ENV[key]] = str(value)


def check_budget(max_cost: float | None, max_requests: int | None) -> None:
    if (max_cost is not None and not max_cost >= 0) or (max_requests is not None and max_requests < 0):
        raise GauntletError("--max-cost and --max-requests must be >= 0")


@contextlib.contextmanager
def budget(max_cost: float | None = None, max_requests: int | None = None) -> Iterator[None]:
    """Apply ``--max-cost`` / ``--max-requests`` of one command to the requests sent inside (counted from zero; a
    limit not given is the global one); the previous budget is restored afterwards. Without either limit anywhere,
    nothing changes."""
    check_budget(max_cost, max_requests)
    env_cost, env_reqs = _env_budget()
    max_cost = env_cost if max_cost is None else max_cost
    max_requests = env_reqs if max_requests is None else max_requests
    saved = LEDGER.scope
    if max_cost is not None or max_requests is not None:
        LEDGER.scope = (max_cost, max_requests, LEDGER.sent, LEDGER.total_cost())
    try:
        yield
    finally:
        LEDGER.scope = saved
