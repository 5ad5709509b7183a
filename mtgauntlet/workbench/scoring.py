"""Score what is new: each (item, metric signature) once, chunk by chunk, each chunk a sealed-later shard.

Stored rows are keyed by (metric signature, set, version, record, side); a row already there is reused, and so is
the score of an equal item (same ``item_key``) under the same signature in another set. Only what is left is
computed, in chunks of ``shard_size`` items of one language pair; each finished chunk is appended to the results
folder at once, so a killed run loses at most the chunk it was computing. ``engine="ray"`` scores the chunks on Ray
workers (one scorer per worker process) with the same chunks, so the stored scores are the same.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from mtgauntlet.errors import UsageError
from mtgauntlet.workbench.file_metric import FileScorer, file_values
from mtgauntlet.workbench.metrics import Scorer, check_answer, make_scorer
from mtgauntlet.workbench.sets import PAIR_KINDS, Items, SetRef

Chunk = tuple[list[int], str, str]  # item indices, src_lang, tgt_lang


class Known:
    """The stored scores of one metric signature, by row and by item key."""

    def __init__(self, table: pa.Table, signature: str):
        t = table.filter(pc.equal(table.column("metric_signature"), signature))
        cols = {
            c: t.column(c).to_pylist()
            for c in ("set", "version", "record_id", "side", "item_key", "score", "failure", "spans")
        }
        self.rows = {
            (s, v, r, d): (x, f)
            for s, v, r, d, x, f in zip(
                cols["set"], cols["version"], cols["record_id"], cols["side"], cols["score"], cols["failure"]
            )
        }
        self.by_key = {
            k: (x, f, sp) for k, x, f, sp in zip(cols["item_key"], cols["score"], cols["failure"], cols["spans"])
        }
        self.spans = {
            (s, v, r, d): sp
            for s, v, r, d, sp in zip(cols["set"], cols["version"], cols["record_id"], cols["side"], cols["spans"])
            if sp is not None
        }


def col_values(column: str, items: Items, idx: Sequence[int]) -> list[tuple[float | None, str | None]]:
    """A ``col:`` metric's values: the records' kept scores (``col:GOOD,BAD`` on pairs, ``col:NAME`` on a human set)."""
    from mtgauntlet.workbench.metrics import clean

    names = column.split(",")
    out: list[tuple[float | None, str | None]] = []
    for i in idx:
        name = (names[0] if items.side[i] == "good" else names[-1]) if items.set.kind in PAIR_KINDS else names[0]
        if len(names) == 2 and items.set.kind not in PAIR_KINDS:
            out.append((None, f"col:{column}: a human-judgment set takes col:NAME"))
            continue
        value = clean(items.scores[i].get(name))
        out.append((value, None if value is not None else f"no numeric {name!r} in the record"))
    return out


def check_kept(spec: str, column: str, sets: Sequence[Items]) -> None:
    """A ``col:`` metric names a score some set keeps: else one line naming the column, where the sets keep it (a
    text column in ``extra``) and how to keep it as a score; an error before anything is scored or stored."""
    names = list(dict.fromkeys(column.split(",")))
    for name in names:
        if any(name in items.score_names for items in sets):
            continue
        in_extra = [f"{i.set.name}@{i.set.version}" for i in sets if name in i.extra_names]
        kept = ", ".join(sorted({n for i in sets for n in i.score_names})) or "none"
        where = (
            f"{', '.join(in_extra)} keep{'s' if len(in_extra) == 1 else ''} it in extra (as text), not in scores"
            if in_extra
            else f"the sets keep the scores {kept}"
        )
        raise UsageError(
            f"--metric {spec}: no set keeps a score {name!r}: {where}; import the set again keeping it as a score "
            f"(human-table: --score-col {name}; a pair set keeps a column in scores when every value is a number "
            "or empty)"
        )


def chunks(items: Items, todo: list[int], size: int) -> list[Chunk]:
    by_lang: dict[tuple[str, str], list[int]] = {}
    for i in todo:
        by_lang.setdefault((items.src_lang[i], items.tgt_lang[i]), []).append(i)
    return [(idx[k : k + size], sl, tl) for (sl, tl), idx in sorted(by_lang.items()) for k in range(0, len(idx), size)]


def score_chunk(scorer: Scorer, items: Items, chunk: Chunk) -> list[Any]:
    """(score, failure) per item of the chunk; (score, failure, spans) for a metric that gives spans."""
    idx, sl, tl = chunk
    if isinstance(scorer, FileScorer):
        return file_values(scorer, items, idx)
    if scorer.column is not None:
        return col_values(scorer.column, items, idx)
    score = scorer.score
    assert score is not None, "a scorer without a column has a score function"
    ok = [i for i in idx if items.hyp[i] is not None and (items.ref[i] or not scorer.needs_ref)]
    got = (
        score([items.src[i] for i in ok], [items.hyp[i] or "" for i in ok], [items.ref[i] for i in ok], sl, tl)
        if ok
        else []
    )
    marks: dict[int, Any] = {}
    if scorer.gives_spans:  # (score, spans) per item
        got = list(got) if got is not None else None
        marks = dict(zip(ok, (g[1] if isinstance(g, tuple) else None for g in got or [])))
        got = None if got is None else [g[0] if isinstance(g, tuple) else g for g in got]
    answers = dict(zip(ok, check_answer(scorer.name, got, len(ok)))) if ok else {}
    out: list[Any] = []
    for i in idx:
        if items.hyp[i] is None:
            out.append((None, "no translation"))
        elif scorer.needs_ref and not items.ref[i]:
            out.append((None, f"{scorer.name} needs a reference; the item has none"))
        elif scorer.gives_spans:
            failed = answers[i] is None and marks.get(i) is None
            out.append((answers[i], f"{scorer.name} returned no score" if failed else None, marks.get(i)))
        else:
            out.append((answers[i], None if answers[i] is not None else f"{scorer.name} returned no score"))
    return out


def _threaded(scorer: Scorer, items: Items, work: list[Chunk]):
    """Chunks scored by two threads (a thread-safe scorer's compiled code runs on both cores), yielded in order."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        yield from zip(work, pool.map(lambda c: score_chunk(scorer, items, c), work))


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


def row_base(scorer: Scorer, ref: SetRef) -> dict[str, str]:
    """What every row of one metric on one set says of both (its stored scores and its leaderboard rows)."""
    return {
        "metric": scorer.name,
        "metric_signature": scorer.signature,
        "set": ref.name,
        "version": ref.version,
        "record_kind": ref.kind,
    }


class _Rows:
    """The ``metric_score`` rows of one scored set, made column by column (a table per shard, no dict per row)."""

    def __init__(self, scorer: Scorer, items: Items):
        from mtgauntlet.schema import get_kind

        self.schema = get_kind("metric_score").schema
        self.base = row_base(scorer, items.set)
        self.items = items

    def table(self, idx: Sequence[int], values: Sequence[Any], failures: Sequence[Any], spans: Sequence[Any]):
        items, n = self.items, len(idx)
        columns = {
            **{name: [value] * n for name, value in self.base.items()},
            "item_key": [items.key[i] for i in idx],
            "record_id": [items.record_id[i] for i in idx],
            "side": [items.side[i] for i in idx],
            "score": values,
            "failure": failures,
            "spans": spans,
        }
        return pa.Table.from_arrays([pa.array(columns[f.name], f.type) for f in self.schema], schema=self.schema)


def score_set(
    spec: Any,
    scorer: Scorer,
    items: Items,
    known: Known,
    size: int,
    engine: str,
    append: Callable[[pa.Table], Any],
    tick: Callable[[int], None] = lambda n: None,
    spans: list[Any] | None = None,
) -> tuple[list[float | None], int, int, int]:
    """(score per item, computed, reused, rows added): stored rows reused, equal items copied (reused, added), the
    rest computed and appended (added) as ``metric_score`` tables, one per chunk. ``spans``, when given, is filled
    with each item's spans (None: none)."""
    ref = items.set
    scores: list[float | None] = [None] * len(items)
    item_spans: list[Any] = [None] * len(items)
    rows = _Rows(scorer, items)

    def stored(idx: list[int]) -> None:
        """Append the rows of items whose score, failure and spans are already in ``known.by_key``."""
        found = [known.by_key[items.key[i]] for i in idx]
        for i, (value, _, marked) in zip(idx, found):
            scores[i], item_spans[i] = value, marked
        append(rows.table(idx, [f[0] for f in found], [f[1] for f in found], [f[2] for f in found]))

    # a col: or file: value belongs to its record, not to the text: never shared
    share = scorer.column is None and not isinstance(scorer, FileScorer)
    todo, copied, reused = [], [], 0
    for i in range(len(items)):
        where = (ref.name, ref.version, items.record_id[i], items.side[i])
        hit = known.rows.get(where)
        if hit is not None:
            scores[i], reused = hit[0], reused + 1
            item_spans[i] = known.spans.get(where)
        elif share and items.key[i] in known.by_key:
            copied.append(i)
        else:
            todo.append(i)
    stored(copied)
    reused += len(copied)
    tick(len(items) - len(todo))
    firsts: dict[str, int] = {}
    for i in todo:  # equal items in the set (two systems' same output): scored once
        firsts.setdefault(items.key[i] if share else f"{items.record_id[i]}:{items.side[i]}", i)
    dups = [i for i in todo if share and firsts[items.key[i]] != i]
    work = chunks(items, list(firsts.values()), size)
    remote = engine == "ray" and work and not isinstance(scorer, FileScorer)  # a file is read here
    if remote:
        results = _ray_map(spec, items, work)
    elif (
        getattr(scorer, "thread_safe", False) and len(work) > 1
    ):  # two chunks at a time, stored in order: the same rows
        results = _threaded(scorer, items, work)
    else:
        results = ((c, score_chunk(scorer, items, c)) for c in work)
    computed = 0
    for (idx, _, _), answers in results:
        values = [a[0] for a in answers]
        failures = [a[1] for a in answers]
        marks = [a[2] if len(a) > 2 else None for a in answers]
        for i, value, failure, marked in zip(idx, values, failures, marks):
            scores[i], item_spans[i] = value, marked
            known.by_key[items.key[i]] = (value, failure, marked)
        append(rows.table(idx, values, failures, marks))
        computed += len(idx)
        tick(len(idx))
    stored(dups)
    tick(len(dups))
    if spans is not None:
        spans[:] = item_spans
    return scores, computed, reused + len(dups), computed + len(copied) + len(dups)
