"""Score what is new: each (item, metric signature) once, chunk by chunk, each chunk a sealed-later shard.

Stored rows are keyed by (metric signature, set, version, record, side); a row already there is reused, and so is
the score of an equal item (same ``item_key``) under the same signature in another set. Only what is left is
computed, in chunks of ``shard_size`` items of one language pair (:mod:`mtgauntlet.workbench.chunks`); each finished
chunk is appended to the results folder at once, so a killed run loses at most the chunk it was computing.
``engine="ray"`` scores the chunks on Ray workers (:mod:`mtgauntlet.workbench.ray_scoring`) with the same chunks, so
the stored scores are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mtgauntlet.errors import UsageError
from mtgauntlet.workbench.chunks import Answers, Chunk, chunks, score_chunk
from mtgauntlet.workbench.file_metric import FileScorer
from mtgauntlet.workbench.metrics import Scorer
from mtgauntlet.workbench.ray_scoring import _ray_map, stop_ray_workers
from mtgauntlet.workbench.sets import Items, SetRef

__all__ = ["Known", "check_kept", "row_base", "score_set", "stop_ray_workers"]

Row = tuple[str, str]  # record id, side


class Known:
    """The stored scores of one metric signature: by item key (`by_key`: score, failure, spans), and by row of
    each set (`rows_of`). What the run computes is added chunk by chunk (`add`) and indexed by key when next read."""

    def __init__(self, table: pa.Table, signature: str):
        self.table = table.filter(pc.equal(table.column("metric_signature"), signature))
        keys, values, failures, spans = (
            self.table.column(c).to_pylist() for c in ("item_key", "score", "failure", "spans")
        )
        self._by_key: dict[str, tuple[Any, Any, Any]] = dict(zip(keys, zip(values, failures, spans)))
        self._added: list[tuple[list[str], Sequence[int], Answers]] = []
        self._sets: dict[tuple[str, str], tuple[dict[Row, tuple[Any, Any]], dict[Row, Any]]] = {}

    @property
    def by_key(self) -> dict[str, tuple[Any, Any, Any]]:
        """(score, failure, spans) by item key: the stored rows', then what the run added (the last one of a key)."""
        for keys, idx, answers in self._added:
            self._by_key.update(zip(map(keys.__getitem__, idx), zip(*answers)))
        self._added.clear()
        return self._by_key

    def add(self, keys: list[str], idx: Sequence[int], answers: Answers) -> None:
        """The answers the run computed for the items ``idx`` of a set whose item keys are ``keys``."""
        self._added.append((keys, idx, answers))

    def rows_of(self, name: str, version: str) -> tuple[dict[Row, tuple[Any, Any]], dict[Row, Any]]:
        """The stored rows of one set: (score, failure) by (record id, side), and the spans of those with spans
        (a row stored twice: the last one)."""
        if (name, version) not in self._sets:
            t = self.table
            if t.num_rows:
                t = t.filter(pc.and_(pc.equal(t.column("set"), name), pc.equal(t.column("version"), version)))
            ids, sides, values, failures, spans = (
                t.column(c).to_pylist() for c in ("record_id", "side", "score", "failure", "spans")
            )
            rows = list(zip(ids, sides))
            self._sets[(name, version)] = (
                dict(zip(rows, zip(values, failures))),
                {r: sp for r, sp in zip(rows, spans) if sp is not None},
            )
        return self._sets[(name, version)]


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


def _threaded(scorer: Scorer, items: Items, work: list[Chunk]):
    """Chunks scored by two threads (a thread-safe scorer's compiled code runs on both cores), yielded in order."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        yield from zip(work, pool.map(lambda c: score_chunk(scorer, items, c), work))


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
    """The ``metric_score`` rows of one scored set, made column by column (a table per shard, no dict per row):
    each shard's item keys, record ids and sides taken from the set's Arrow columns (`Items.arrow`)."""

    def __init__(self, scorer: Scorer, items: Items):
        from mtgauntlet.schema import get_kind

        self.schema = get_kind("metric_score").schema
        self.base = row_base(scorer, items.set)
        self.items = items
        self.constants: dict[int, dict[str, pa.Array]] = {}  # the base's columns by shard size

    def table(self, idx: Sequence[int], answers: Answers) -> pa.Table:
        n = len(idx)
        if n not in self.constants:
            self.constants[n] = {
                f.name: pa.repeat(pa.scalar(self.base[f.name], f.type), n) for f in self.schema if f.name in self.base
            }
        rows = pa.array(np.fromiter(idx, dtype=np.int64, count=n))
        values = {"score": answers.scores, "failure": answers.failures, "spans": answers.spans}
        arrays = []
        for f in self.schema:
            if f.name in self.base:
                arrays.append(self.constants[n][f.name])
            elif f.name in ("item_key", "record_id", "side"):
                arrays.append(self.items.arrow("key" if f.name == "item_key" else f.name).take(rows))
            elif f.name == "spans" and answers.spans.count(None) == n:  # no spans (a metric without them)
                arrays.append(pa.nulls(n, f.type))
            else:
                arrays.append(pa.array(values[f.name], f.type))
        return pa.Table.from_arrays(arrays, schema=self.schema)


def _dedup(items: Items, todo: list[int], share: bool) -> tuple[list[int], list[int]]:
    """(the items of ``todo`` to score, the rest): equal items (same key: two systems' same output) are scored
    once, at their first index; a value that belongs to its record (``share`` false) is scored per item."""
    if not share:
        firsts: dict[str, int] = {}
        for i in todo:
            firsts.setdefault(f"{items.record_id[i]}:{items.side[i]}", i)
        return list(firsts.values()), []
    keys = items.key
    mine = keys if len(todo) == len(keys) else [keys[i] for i in todo]  # todo: every item, or some
    if len(set(mine)) == len(mine):  # no two equal (the usual case)
        return todo, []
    first = dict(zip(reversed(mine), reversed(todo)))  # the last write: the first index
    return sorted(first.values()), [i for i in todo if first[keys[i]] != i]


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
    table = _Rows(scorer, items).table

    def stored(idx: list[int]) -> None:
        """Append the rows of items whose score, failure and spans are already in ``known.by_key``."""
        if not idx:
            return
        by_key = known.by_key
        found = [by_key[items.key[i]] for i in idx]
        answers = Answers([f[0] for f in found], [f[1] for f in found], [f[2] for f in found])
        for i, value, marked in zip(idx, answers.scores, answers.spans):
            scores[i], item_spans[i] = value, marked
        append(table(idx, answers))

    # a col: or file: value belongs to its record, not to the text: never shared
    share = scorer.column is None and not isinstance(scorer, FileScorer)
    rows, row_spans = known.rows_of(ref.name, ref.version)
    todo, copied, reused = [], [], 0
    by_key = known.by_key if share else {}
    if not rows and not by_key:  # nothing stored to reuse (a first run)
        todo = list(range(len(items)))
    else:
        for i, where in enumerate(zip(items.record_id, items.side)):
            hit = rows.get(where)
            if hit is not None:
                scores[i], reused = hit[0], reused + 1
                item_spans[i] = row_spans.get(where)
            elif share and items.key[i] in by_key:
                copied.append(i)
            else:
                todo.append(i)
    stored(copied)
    reused += len(copied)
    tick(len(items) - len(todo))
    firsts, dups = _dedup(items, todo, share)
    work = chunks(items, firsts, size)
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
        run = range(idx[0], idx[0] + len(idx)) if idx else range(0)
        if idx == list(run):  # consecutive items (the usual chunk): set at once
            scores[run.start : run.stop], item_spans[run.start : run.stop] = answers.scores, answers.spans
        else:
            for i, value, marked in zip(idx, answers.scores, answers.spans):
                scores[i], item_spans[i] = value, marked
        known.add(items.key, idx, answers)
        append(table(idx, answers))
        computed += len(idx)
        tick(len(idx))
    stored(dups)
    tick(len(dups))
    if spans is not None:
        spans[:] = item_spans
    return scores, computed, reused + len(dups), computed + len(copied) + len(dups)
