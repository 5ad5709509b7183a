"""What the API calls of a run used and cost, and the budgets that stop it (``--max-cost``, ``--max-requests``).

Every paid backend (``openai:``, a `~mtgauntlet.models.paid.PaidTranslator`) records each answered request in one
process-wide ledger, per spec: ``requests``, ``input_tokens`` and ``output_tokens`` (the server's own ``usage``
counts: tokens, or the units a per-unit API bills), ``retries`` (attempts after the first), ``failures``
(requests that got no answer after all retries), ``cached`` (answers taken from the output cache: they cost nothing
and are counted apart), ``invalid_json`` (structured answers that did not validate against their schema),
``missing_usage`` and ``invalid_usage`` (answers whose ``usage`` is absent, or not a pair of unit counts: the
answer is kept, its units are not counted, and it is never a credit: it counts as spent at its upper bound). With
``#price=IN/OUT`` (USD per 1M input/output units) in the spec, ``cost_usd`` is ``in * IN / 1e6 + out * OUT / 1e6``.

**Every request is accounted before it leaves.** Each attempt is reserved with what it may cost at most (its
prompt's UTF-8 bytes and its ``max_tokens`` at the spec's price: `cost_bound`) and written to the run's usage
journal (:mod:`.usage_journal`) as *sent*; its answer (or an error status) is written as *settled*, in one line
with its usage. An attempt that ends without an answer (a timeout, a broken connection, a kill) stays unsettled:
the totals show it as ``unanswered`` with ``unanswered_max_usd`` (what those requests may have cost at most), and
answers without valid usage as ``unmetered_max_usd``. So after any ending, kill -9 included, the provider's bill
lies between ``cost_usd`` and ``cost_usd + unanswered_max_usd + unmetered_max_usd``.

**Budgets throttle, then stop.** A request may leave when the cost recorded so far, plus the upper bounds of the
requests in flight, of the unanswered ones and of the unmetered answers, plus its own upper bound fit in
``max_cost``. When it does not fit only because of requests in flight, it waits for them to settle and tries
again; when it does not fit with nothing in flight, `BudgetSpent` (exit 3) is raised. So a run is never billed more
than ``max_cost``, and a stopped run has spent at least ``max_cost`` minus one request's upper bound. ``max_requests``
counts requests sent (retries are not requests). ``max_cost`` needs a price: a spec without ``#price`` under
``--max-cost`` is refused before it sends anything. Answers received before the stop are cached (each the moment
it arrives), so the same command run again pays only for what is left.

The budget in force is the innermost `budget` scope's, else the command line's (`set_global_budget`, reset when the
command ends: :func:`mtgauntlet.cli.main.run`), else a Ray worker's share (``MTGAUNTLET_MAX_COST`` /
``MTGAUNTLET_MAX_REQUESTS`` in its environment, set by :mod:`mtgauntlet.engines.ray_cluster`). A graceful stop
(:mod:`.paid_run`) sets `Ledger.draining`: no request leaves any more, the ones in flight end and are recorded.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import threading
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


TALLIES = ("sent", "settled", "sent_usd", "settled_usd", "unmetered_usd")  # the money of requests (see the module)


class BudgetSpent(GauntletError):
    """The run reached ``--max-cost`` or ``--max-requests``: stopped at a safe point, to be resumed."""

    exit_code = 3


class RunStopped(GauntletError):
    """Raised in place of sending a request once a graceful stop began (`Ledger.draining`): the command ends as
    interrupted (:class:`.paid_run.Interrupted`) once the requests in flight are recorded."""

    exit_code = 130


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
    unit: str = "tokens"  # what the price is quoted per 1M of: tokens, or characters for a per-character API
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTERS, 0))
    tally: dict[str, float] = field(default_factory=lambda: dict.fromkeys(TALLIES, 0))

    def cost(self) -> float | None:
        return (
            None if self.price is None else self.price.cost(self.counts["input_tokens"], self.counts["output_tokens"])
        )


# (max_cost, max_requests, and before it: requests sent, spent, paid (recorded cost), attempts lost)
Budget = tuple[float | None, int | None, int, float, float, int]


class Ledger:
    """Process-wide usage per spec (thread-safe: requests are recorded from the HTTP event loop thread)."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._specs: dict[str, SpecUsage] = {}
        self.sent = 0  # requests sent by this process (retries are not requests)
        self.in_flight = 0  # attempts reserved and not ended
        self.reserved = 0.0  # what the attempts in flight may cost at most
        self.lost = 0.0  # upper bounds of attempts that ended without an answer: perhaps billed, spent for budgets
        self.lost_count = 0  # those attempts
        self.unmetered = 0.0  # upper bounds of answers without valid usage: spent for budgets, never a cost_usd
        self.scope: Budget | None = None  # the innermost budget() scope
        self.global_budget: tuple[float | None, int | None] = (None, None)  # the command line's (set_global_budget)
        self.journals: list[int] = []  # file descriptors of the open `journal` scopes, innermost last
        self.draining: str | None = None  # set by a graceful stop (why): no request leaves any more

    def _entry(self, spec: str) -> SpecUsage:
        return self._specs.setdefault(spec, SpecUsage())

    def _write(self, spec: str, fields: dict[str, Any]) -> None:
        """One line of the innermost journal (called with the lock held): one write of one line, whole in the file
        even when the process is killed next."""
        if self.journals:
            entry = self._entry(spec)
            price = None if entry.price is None else [entry.price.input, entry.price.output]
            line = {"spec": spec, "price": price, **({"unit": entry.unit} if entry.unit != "tokens" else {}), **fields}
            os.write(self.journals[-1], (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8"))

    def register(self, spec: str, price: Price | None, unit: str = "tokens") -> None:
        with self._lock:
            entry = self._entry(spec)
            entry.unit = unit
            if price is not None:
                entry.price = price

    def add_tally(self, spec: str, **tally: float) -> None:
        """Money tallies (`TALLIES`) recorded by another process (a Ray worker: `absorb`)."""
        tally = {k: v for k, v in tally.items() if v}
        self._add(spec, "tally", tally, unmetered=float(tally.get("unmetered_usd", 0.0)))

    def add(self, spec: str, **counts: int) -> None:
        self._add(spec, "counts", {k: int(n) for k, n in counts.items() if n})

    def _add(self, spec: str, into: str, values: dict[str, Any], unmetered: float = 0.0) -> None:
        """Add ``values`` to the spec's ``counts`` or ``tally`` (``into``) and ``unmetered`` to the process's, and
        journal the values: one step under the lock (nothing where there are no values)."""
        if not values:
            return
        with self._lock:
            sums = getattr(self._entry(spec), into)
            for key, value in values.items():
                sums[key] += value
            if unmetered:
                self.unmetered += unmetered
            self._write(spec, values)

    def total_cost(self) -> float:
        return sum(e.cost() or 0.0 for e in self._specs.values())

    def spent(self) -> float:
        """What budgets count as spent: the recorded cost, plus the upper bounds of the answers without valid usage
        and of the attempts that ended unanswered (either may have been billed)."""
        return self.total_cost() + self.unmetered + self.lost

    def budget_in_force(self) -> Budget:
        return self.scope or (*self._outer_budget(), 0, 0.0, 0.0, 0)

    def _outer_budget(self) -> tuple[float | None, int | None]:
        cost, requests = self.global_budget
        env_cost, env_requests = _env_budget()
        return (env_cost if cost is None else cost), (env_requests if requests is None else requests)

    def _fits(self, spec: str | None, cost: float, first: bool) -> bool:
        """Take an attempt of ``spec`` (see `reserve`) when it fits; False when it fits only once the attempts in
        flight settle. Called with the lock held."""
        if self.draining:
            raise RunStopped(f"stopping ({self.draining}): no new request is sent")
        max_cost, max_requests, sent_base, cost_base, paid_base, lost_base = self.budget_in_force()
        if first and max_requests is not None and self.sent - sent_base >= max_requests:
            raise BudgetSpent(
                f"budget reached: --max-requests {max_requests} requests sent; {self._paid_note(paid_base, lost_base)}; "
                "finished work is kept, run the same command again (with a larger budget or none) to resume"
            )
        if max_cost is not None:
            if spec is not None and self._entry(spec).price is None:
                raise GauntletError(no_price_message(spec, max_cost))
            if self.spent() - cost_base + self.reserved + cost > max_cost:
                if self.in_flight:
                    return False
                raise BudgetSpent(
                    f"budget reached: --max-cost {max_cost:g} USD; {self._paid_note(paid_base, lost_base)}; the next request "
                    f"may cost up to {cost:.4f} USD; finished work is kept, run the same command again (with a "
                    "larger budget or none) to resume"
                )
        if first:
            self.sent += 1
        self.in_flight += 1
        self.reserved += cost
        if spec is not None:
            entry = self._entry(spec)
            entry.tally["sent"] += 1
            entry.tally["sent_usd"] += cost
            self._write(spec, {"sent": 1, "sent_usd": cost})
        return True

    def _paid_note(self, paid_base: float, lost_base: int) -> str:
        """'paid 1.9800 USD (answered), 0 in flight, 0 unanswered (at most 0.0000 USD more)' since the budget began."""
        paid = self.total_cost() - paid_base
        return (
            f"paid {max(paid, 0.0):.4f} USD (answered), {self.in_flight} in flight, {self.lost_count - lost_base} "
            f"unanswered (at most {self.spent() - self.total_cost() + self.reserved:.4f} USD more with the unmetered)"
        )

    def reserve(self, spec: str | None = None, cost: float = 0.0, *, first: bool = True) -> None:
        """Before an attempt of ``spec`` is sent, ``cost`` what it may cost at most (`cost_bound`); end it with
        `settle` (an answer, an error status) or `abandon` (no answer). Waits while it fits only once the attempts
        in flight settle; raises `BudgetSpent` when it does not fit with none in flight, `RunStopped` once a
        graceful stop began, and (under ``max_cost``) `GauntletError` for a spec without a price. ``first``: a
        request's first attempt (a retry is not a request for ``max_requests``)."""
        with self._lock:
            while not self._fits(spec, cost, first):
                self._lock.wait(0.5)

    async def reserve_async(self, spec: str | None, cost: float, *, first: bool = True) -> None:
        """`reserve` from a coroutine: waits without blocking the event loop."""
        while True:
            with self._lock:
                if self._fits(spec, cost, first):
                    return
            await asyncio.sleep(0.01)

    def try_reserve(self, spec: str | None, cost: float) -> bool:
        """`reserve` without waiting: False where it would wait."""
        with self._lock:
            return self._fits(spec, cost, True)

    def settle(self, spec: str | None, cost: float, held: bool = True, /, **counts: int) -> None:
        """A reserved attempt got its answer (or an error status): its usage ``counts`` (`answer_counts`) and the
        end of the attempt in one journal line. An answer without valid usage stays spent at ``cost``. ``held``
        False: the attempt was reserved by an earlier run (a resumed batch)."""
        counts = {k: int(n) for k, n in counts.items() if n}
        with self._lock:
            if held:
                self._end(cost)
            if spec is None:
                return
            entry = self._entry(spec)
            for key, n in counts.items():
                entry.counts[key] += n
            fields: dict[str, Any] = {**counts, "settled": 1, "settled_usd": cost}
            entry.tally["settled"] += 1
            entry.tally["settled_usd"] += cost
            if cost and (counts.get("missing_usage") or counts.get("invalid_usage")):
                self.unmetered += cost
                entry.tally["unmetered_usd"] += cost
                fields["unmetered_usd"] = cost
            self._write(spec, fields)

    def abandon(self, cost: float) -> None:
        """A reserved attempt ended without an answer (timeout, broken connection, cancelled, a batch line never
        returned): it may have been billed, so its upper bound stays spent, and it stays unanswered."""
        with self._lock:
            self._end(cost)
            self.lost += cost
            self.lost_count += 1

    def _end(self, cost: float) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        self.reserved = max(0.0, self.reserved - cost)
        self._lock.notify_all()

    def require_price(self, spec: str, price: Price | None) -> None:
        """Refuse, before anything is sent, a spec without a price when a ``max_cost`` budget is in force."""
        max_cost = self.budget_in_force()[0]
        if max_cost is not None and price is None:
            raise GauntletError(no_price_message(spec, max_cost))

    def remaining(self) -> tuple[float | None, int | None]:
        """(USD, requests) the budget in force still allows (None: no limit)."""
        with self._lock:
            max_cost, max_requests, sent_base, cost_base, _, _ = self.budget_in_force()
            return (
                None if max_cost is None else max(0.0, max_cost - (self.spent() - cost_base)),
                None if max_requests is None else max(0, max_requests - (self.sent - sent_base)),
            )

    def snapshot(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {spec: {**e.counts, **e.tally, "price": e.price, "unit": e.unit} for spec, e in self._specs.items()}


LEDGER = Ledger()
remaining = LEDGER.remaining


def no_price_message(spec: str, max_cost: float) -> str:
    return (
        f"--max-cost {max_cost:g} needs the price of every paid API: spec {spec!r} has no #price=IN/OUT (USD per "
        "1M input/output units); add one, or use --max-requests"
    )


def _env_budget() -> tuple[float | None, int | None]:
    """A Ray worker's share of the budget (set in its environment by :mod:`mtgauntlet.engines.ray_cluster`)."""
    cost, reqs = os.environ.get(ENV["max_cost"]), os.environ.get(ENV["max_requests"])
    try:
        limits = (float(cost) if cost else None), (int(reqs) if reqs else None)
    except ValueError:
        limits = None
    if limits is None or (limits[0] is not None and not 0 <= limits[0] < math.inf):
        raise GauntletError(f"{ENV['max_cost']} must be a finite number and {ENV['max_requests']} an integer")
    return limits
