"""What the API calls of a run used and cost, and the budgets that stop it (``--max-cost``, ``--max-requests``).

Every ``openai:`` backend records each answered request in one process-wide ledger, per spec: ``requests``,
``input_tokens`` and ``output_tokens`` (the server's own ``usage`` counts), ``retries`` (attempts after the first),
``failures`` (requests that got no answer after all retries), ``cached`` (answers taken from the output cache: they
cost nothing and are counted apart), ``invalid_json`` (structured answers that did not validate against their
schema), ``missing_usage`` (answers without a ``usage`` field) and ``invalid_usage`` (answers whose ``usage``
is not a pair of token counts: not an integer, negative, non-finite or absurdly large; the answer is kept, its
tokens are not counted, and it is never a credit: under ``max_cost`` such an answer counts as spent at its upper
bound). With ``#price=IN/OUT`` (USD per 1M input/output tokens) in the spec, ``cost_usd`` is
``input_tokens * IN / 1e6 + output_tokens * OUT / 1e6``.

A budget is checked before each request is sent: once ``max_requests`` requests have been sent, or once the cost
recorded so far, plus what the requests in flight may cost, plus what this request may cost (its prompt's UTF-8
bytes and its ``max_tokens`` at the spec's price: an upper bound) would pass ``max_cost``, it does not leave and
`BudgetSpent` (exit code 3) is raised. So a budget is never passed. ``max_cost`` needs a price: a spec without
``#price`` under ``--max-cost`` is refused before it sends anything. Answers received before the stop are cached
(each the moment it arrives), so the same command run again pays only for what is left.

Inside a `~mtgauntlet.core.usage_journal.journal` scope (a build's ``OUT/usage.jsonl``) every count is also appended
to that file the moment it is recorded (:mod:`.usage_journal`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mtgauntlet.errors import GauntletError

COUNTERS = (
    "requests",
    "input_tokens",
    "output_tokens",
    "retries",
    "failures",
    "cached",
    "invalid_json",
    "missing_usage",
    "invalid_usage",
)
MAX_TOKENS_PER_ANSWER = 10**9  # more tokens than any request can use: a usage beyond it is invalid, not a bill
MESSAGE_OVERHEAD = 16  # tokens a chat template may add per message (role markers), for the cost upper bound
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
    if price is None or not all(0 <= x < math.inf for x in (price.input, price.output)):
        raise GauntletError(
            f"spec {spec!r}: #price={value!r} must be IN/OUT, USD per 1M input and output tokens "
            "(e.g. #price=0.15/0.60)"
        )
    return price


def token_counts(usage: Any) -> tuple[int, int] | None:
    """(prompt tokens, completion tokens) of an answer's ``usage`` object; None when it is not valid usage (not
    an object, a count that is not a non-negative integer below `MAX_TOKENS_PER_ANSWER`: ``"many"``, ``-5``,
    ``1e400``, ``NaN``, a list). A count the server leaves out is 0."""
    if not isinstance(usage, dict):
        return None
    out = []
    for key in ("prompt_tokens", "completion_tokens"):
        n = usage.get(key, 0)
        if n is None:
            n = 0
        if isinstance(n, float) and n.is_integer():
            n = int(n)
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < MAX_TOKENS_PER_ANSWER:
            return None
        out.append(n)
    return out[0], out[1]


def answer_counts(data: Any) -> dict[str, int]:
    """The ledger counts of one answered request: ``requests`` 1 and its tokens, or ``missing_usage`` /
    ``invalid_usage``."""
    usage = data.get("usage") if isinstance(data, dict) else None
    if usage is None or (
        isinstance(usage, dict) and all(usage.get(k) is None for k in ("prompt_tokens", "completion_tokens"))
    ):
        return {"requests": 1, "missing_usage": 1}  # ``{}`` counts no token: as good as no usage
    counts = token_counts(usage)
    if counts is None:
        return {"requests": 1, "invalid_usage": 1}
    return {"requests": 1, "input_tokens": counts[0], "output_tokens": counts[1]}


def cost_bound(price: Price | None, prompt_bytes: int, messages: int, max_tokens: int) -> float:
    """What one request may cost at most: its prompt's UTF-8 bytes (no tokenizer makes more tokens than bytes)
    plus `MESSAGE_OVERHEAD` per message, and ``max_tokens`` out (0 without a price)."""
    if price is None:
        return 0.0
    return price.cost(prompt_bytes + MESSAGE_OVERHEAD * max(messages, 1), max_tokens)


@dataclass
class SpecUsage:
    price: Price | None = None
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTERS, 0))

    def cost(self) -> float | None:
        return (
            None if self.price is None else self.price.cost(self.counts["input_tokens"], self.counts["output_tokens"])
        )


class Ledger:
    """Process-wide usage per spec (thread-safe: requests are recorded from the HTTP event loop thread)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._specs: dict[str, SpecUsage] = {}
        self.sent = 0  # requests sent by this process (each reserved before it is sent)
        self.reserved = 0.0  # what the requests in flight may cost at most (released when they end)
        self.scope: tuple | None = None  # (max_cost, max_requests, sent before it, cost before it) of budget()
        self.journals: list[int] = []  # file descriptors of the open `journal` scopes, innermost last
        self.unmetered = 0.0  # the upper bounds of answers without valid usage: spent for budgets, never a cost_usd

    def register(self, spec: str, price: Price | None) -> None:
        with self._lock:
            entry = self._specs.setdefault(spec, SpecUsage())
            if price is not None:
                entry.price = price

    def add(self, spec: str, **counts: int) -> None:
        counts = {k: int(n) for k, n in counts.items() if n}
        if not counts:
            return
        with self._lock:
            entry = self._specs.setdefault(spec, SpecUsage())
            for key, n in counts.items():
                entry.counts[key] += n
            if self.journals:  # one write of one line: whole in the file even when the process is killed next
                price = None if entry.price is None else [entry.price.input, entry.price.output]
                line = json.dumps({"spec": spec, "price": price, **counts}, ensure_ascii=False) + "\n"
                os.write(self.journals[-1], line.encode("utf-8"))

    def total_cost(self) -> float:
        return sum(e.cost() or 0.0 for e in self._specs.values())

    def spent(self) -> float:
        """What budgets count as spent: the recorded cost plus, for each answer whose usage was missing or invalid,
        what it may have cost at most (its `cost_bound`): an unmetered answer is never free under ``max_cost``."""
        return self.total_cost() + self.unmetered

    def charge_unmetered(self, counts: dict[str, int], bound: float) -> None:
        """An answer was recorded with ``counts`` (`answer_counts`); without valid usage its ``bound`` is spent."""
        if bound and (counts.get("missing_usage") or counts.get("invalid_usage")):
            with self._lock:
                self.unmetered += bound

    def reserve(self, spec: str | None = None, cost: float = 0.0) -> None:
        """Called before a request of ``spec`` is sent, ``cost`` what it may cost at most (`cost_bound`; release
        it with `release` when the request ends): raises `BudgetSpent` when it does not fit in the budget. The
        budget is the innermost `budget` scope's, else the global one (``gauntlet --max-cost/--max-requests``:
        the environment), counted from the start of the process. Under ``max_cost``, a spec without a price is
        refused (`GauntletError`): its cost could not be counted."""
        with self._lock:
            max_cost, max_requests, sent_base, cost_base = self.scope or (*_env_budget(), 0, 0.0)
            if max_requests is not None and self.sent - sent_base >= max_requests:
                raise BudgetSpent(
                    f"budget reached: --max-requests {max_requests} requests sent; finished work is "
                    "kept, run the same command again (with a larger budget or none) to resume"
                )
            if max_cost is not None:
                if spec is not None and self._specs.get(spec, SpecUsage()).price is None:
                    raise GauntletError(no_price_message(spec, max_cost))
                spent = self.spent() - cost_base
                if spent + self.reserved + cost > max_cost:
                    more = f"; the next request may cost up to {cost:.4f} USD" if cost else ""
                    raise BudgetSpent(
                        f"budget reached: --max-cost {max_cost:g} USD (spent {spent:.4f} USD){more}; "
                        "finished work is kept, run the same command again (with a larger budget or "
                        "none) to resume"
                    )
            self.sent += 1
            self.reserved += cost

    def release(self, cost: float) -> None:
        """A reserved request ended (answered, failed or cancelled): its upper bound no longer holds budget."""
        with self._lock:
            self.reserved = max(0.0, self.reserved - cost)

    def require_price(self, spec: str, price: Price | None) -> None:
        """Refuse, before anything is sent, a spec without a price when a ``max_cost`` budget is in force."""
        max_cost = (self.scope or _env_budget())[0]
        if max_cost is not None and price is None:
            raise GauntletError(no_price_message(spec, max_cost))

    def remaining(self) -> tuple[float | None, int | None]:
        """(USD, requests) the budget in force still allows (None: no limit)."""
        with self._lock:
            max_cost, max_requests, sent_base, cost_base = self.scope or (*_env_budget(), 0, 0.0)
            return (
                None if max_cost is None else max(0.0, max_cost - (self.spent() - cost_base)),
                None if max_requests is None else max(0, max_requests - (self.sent - sent_base)),
            )

    def snapshot(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {spec: {**e.counts, "price": e.price} for spec, e in self._specs.items()}


LEDGER = Ledger()
remaining = LEDGER.remaining


def no_price_message(spec: str, max_cost: float) -> str:
    return (
        f"--max-cost {max_cost:g} needs the price of every paid API: spec {spec!r} has no #price=IN/OUT (USD per "
        "1M input/output tokens); add one, or use --max-requests"
    )


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
    return json.dumps(
        {
            spec: {
                **{k: u[k] for k in COUNTERS},
                "price": None if u["price"] is None else [u["price"].input, u["price"].output],
            }
            for spec, u in delta.items()
        }
    )


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
        out[spec] = {
            **counts,
            "cost_usd": None
            if price is None
            else round(price.cost(counts["input_tokens"], counts["output_tokens"]), 10),
            "price_per_1m": None if price is None else [price.input, price.output],
        }
    return out


def summary_line(usage: dict[str, dict]) -> str:
    """'usage: openai:m@url: 12 requests, 3456 in / 789 out tokens, $0.0012; ...' ('' when no API was called)."""
    parts = []
    for spec, u in usage.items():
        cost = f", ${u['cost_usd']:.4f}" if u.get("cost_usd") is not None else ""
        cached = f", {u['cached']} cached" if u.get("cached") else ""
        invalid = f", {u['invalid_usage']} with invalid usage (not counted)" if u.get("invalid_usage") else ""
        parts.append(
            f"{spec}: {u['requests']} requests, {u['input_tokens']} in / {u['output_tokens']} out "
            f"tokens{cost}{cached}{invalid}"
        )
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
        limits = (float(cost) if cost else None), (int(reqs) if reqs else None)
    except ValueError:
        limits = None
    if limits is None or (limits[0] is not None and not 0 <= limits[0] < math.inf):
        raise GauntletError(f"{ENV['max_cost']} must be a finite number and {ENV['max_requests']} an integer")
    return limits


def set_global_budget(max_cost: float | None, max_requests: int | None) -> None:
    """``gauntlet --max-cost/--max-requests``: published in the environment (as ``--concurrency``)."""
    check_budget(max_cost, max_requests)
    for key, value in (("max_cost", max_cost), ("max_requests", max_requests)):
        if value is not None:
            os.environ[ENV[key]] = str(value)


def check_budget(max_cost: float | None, max_requests: int | None) -> None:
    if (max_cost is not None and not 0 <= max_cost < math.inf) or (max_requests is not None and max_requests < 0):
        raise GauntletError("--max-cost must be a finite number >= 0 and --max-requests an integer >= 0")


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
        LEDGER.scope = (max_cost, max_requests, LEDGER.sent, LEDGER.spent())
    try:
        yield
    finally:
        LEDGER.scope = saved
