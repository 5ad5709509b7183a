"""A paid run's usage journal, ``OUT/usage.jsonl`` (a build's, a results folder's, a score's): every count the
ledger (:mod:`.usage`) records inside a `journal` scope is also appended to that file the moment it is recorded,
one JSON line each: each request *before* it is sent (``sent``, with ``sent_usd``, what it may cost at most), its
answer when it comes (``settled`` with its usage in the same line), retries, failures and cached lookups. A run
that fails, is killed (even with kill -9) or crashes is still in the totals (`journal_totals`): the requests it had
in flight are ``unanswered``, with what they may have cost at most; cached answers (``cached``) stay apart from
paid ones (``requests``).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mtgauntlet.core.usage import COUNTERS, LEDGER, TALLIES, Price

JOURNAL = "usage.jsonl"


@contextlib.contextmanager
def journal(path: str | Path, carried: dict[str, dict] | None = None) -> Iterator[None]:
    """Append every count recorded inside to ``path`` (see the module). ``carried``: a ``build.json`` ``usage``
    of runs made before the build kept a journal, written first when the journal is new."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists() or path.stat().st_size == 0
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        if new and carried:
            for spec, u in carried.items():
                line = {
                    "spec": spec,
                    "price": u.get("price_per_1m"),
                    **{k: int(u.get(k) or 0) for k in COUNTERS},
                    # what was unanswered or unmetered then stays so (a request sent, never settled)
                    "sent": int(u.get("unanswered") or 0),
                    "sent_usd": float(u.get("unanswered_max_usd") or 0.0),
                    "unmetered_usd": float(u.get("unmetered_max_usd") or 0.0),
                }
                os.write(fd, (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8"))
        with LEDGER._lock:
            LEDGER.journals.append(fd)
        yield
    finally:
        with LEDGER._lock:
            LEDGER.journals.remove(fd)
        os.close(fd)


def journal_totals(path: str | Path) -> dict[str, dict[str, Any]]:
    """The counts of a journal summed per spec (the shape of `since`); a line cut short by a kill is skipped."""
    out: dict[str, dict[str, Any]] = {}
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return out
    for line in text.splitlines():
        try:
            entry = json.loads(line)
            spec = entry["spec"]
        except (ValueError, KeyError, TypeError):
            continue
        total = out.setdefault(spec, {**dict.fromkeys(COUNTERS, 0), **dict.fromkeys(TALLIES, 0), "price": None})
        for key in COUNTERS:
            value = entry.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                total[key] += value
        for key in TALLIES:
            value = entry.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                total[key] += value
        if isinstance(entry.get("unit"), str):
            total["unit"] = entry["unit"]
        price = entry.get("price")
        if isinstance(price, list) and len(price) == 2:
            total["price"] = Price(float(price[0]), float(price[1]))
    return out
