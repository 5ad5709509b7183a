"""The usage of a run as it is reported: the ledger's counts since a snapshot (`since`), carried between processes
(`to_json`, `absorb`), summed into ``build.json`` / results-manifest ``usage`` (`report`) and printed
(`summary_line`, `progress_note`). :mod:`.usage` says what each count means."""

from __future__ import annotations

import json
from typing import Any

from mtgauntlet.core.usage import COUNTERS, LEDGER, TALLIES, Price

MONEY_FIELDS = ("unanswered", "unanswered_max_usd", "unmetered_max_usd")


def since(before: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Usage per spec recorded since ``before`` (a `Ledger.snapshot`), for the specs with any activity."""
    out = {}
    for spec, now in LEDGER.snapshot().items():
        old = before.get(spec, {})
        counts = {k: now[k] - old.get(k, 0) for k in (*COUNTERS, *TALLIES)}
        if any(counts.values()):
            out[spec] = {**counts, "price": now["price"], "unit": now.get("unit", "tokens")}
    return out


def to_json(delta: dict[str, dict[str, Any]]) -> str:
    """`since` as JSON (the price as ``[IN, OUT]``), to carry usage out of another process (a Ray actor)."""
    return json.dumps(
        {
            spec: {
                **{k: u.get(k, 0) for k in (*COUNTERS, *TALLIES)},
                "price": None if u["price"] is None else [u["price"].input, u["price"].output],
                "unit": u.get("unit", "tokens"),
            }
            for spec, u in delta.items()
        }
    )


def absorb(text: str) -> None:
    """Add usage recorded by another process (`to_json`) to this process's ledger (and its journal)."""
    for spec, u in (json.loads(text) if text else {}).items():
        LEDGER.register(spec, Price(*u["price"]) if u.get("price") else None, u.get("unit") or "tokens")
        LEDGER.add(spec, **{k: u.get(k, 0) for k in COUNTERS})
        LEDGER.add_tally(spec, **{k: u.get(k, 0) for k in TALLIES})


def money_fields(tally: dict[str, Any]) -> dict[str, Any]:
    """``unanswered`` (requests sent that got no answer: a kill, a timeout, a batch line never returned),
    ``unanswered_max_usd`` (what they may have cost at most) and ``unmetered_max_usd`` (answers without valid
    usage: what they may have cost at most) of a run's tallies (`since`, a journal's totals)."""

    def num(key: str) -> float:
        value = tally.get(key) or 0
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0

    return {
        "unanswered": max(0, int(num("sent") - num("settled"))),
        "unanswered_max_usd": round(max(0.0, num("sent_usd") - num("settled_usd")), 10),
        "unmetered_max_usd": round(max(0.0, num("unmetered_usd")), 10),
    }


def report(delta: dict[str, dict[str, Any]], earlier: dict[str, dict[str, Any]] | None = None) -> dict[str, dict]:
    """JSON-able usage per spec (``build.json`` ``usage``): ``delta`` (from `since`, or a journal's totals) added
    to the report of earlier runs of the same build; ``cost_usd`` from the summed units and the spec's price (null
    without one), and the money fields of `money_fields`."""
    out: dict[str, dict] = {}
    for spec in sorted(set(delta) | set(earlier or {})):
        old = (earlier or {}).get(spec, {})
        new = delta.get(spec, {})
        counts = {k: int(old.get(k, 0) or 0) + int(new.get(k, 0) or 0) for k in COUNTERS}
        price = new.get("price") or (Price(*old["price_per_1m"]) if old.get("price_per_1m") else None)
        money = money_fields(new)
        for key in MONEY_FIELDS:
            money[key] += old.get(key) or 0
        unit = new.get("unit") or old.get("units") or "tokens"
        out[spec] = {
            **counts,
            "cost_usd": None
            if price is None
            else round(price.cost(counts["input_tokens"], counts["output_tokens"]), 10),
            "price_per_1m": None if price is None else [price.input, price.output],
            **money,
            **({"units": unit} if unit != "tokens" else {}),
        }
    return out


def summary_line(usage: dict[str, dict]) -> str:
    """'usage: openai:m@url: 12 requests, 3456 in / 789 out tokens, $0.0012; ...' ('' when no API was called);
    a per-character API's units are called characters."""
    parts = []
    for spec, u in usage.items():
        cost = f", ${u['cost_usd']:.4f}" if u.get("cost_usd") is not None else ""
        cached = f", {u['cached']} cached" if u.get("cached") else ""
        invalid = f", {u['invalid_usage']} with invalid usage (not counted)" if u.get("invalid_usage") else ""
        lost = (
            f", {u['unanswered']} unanswered (at most ${u.get('unanswered_max_usd') or 0:.4f})"
            if u.get("unanswered")
            else ""
        )
        parts.append(
            f"{spec}: {u['requests']} requests, {u['input_tokens']} in / {u['output_tokens']} out "
            f"{u.get('units') or 'tokens'}{cost}{cached}{invalid}{lost}"
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
