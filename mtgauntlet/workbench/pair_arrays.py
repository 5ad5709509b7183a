"""A pair set's scores as arrays, one row per record in record id order: its good and bad scores, phenomenon,
language pair and ACES category, and the rows of each (phenomenon, language pair) group, pooled ones (``all``)
included. The leaderboard's statistics and the significance clusters read the same rows."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mtgauntlet.workbench.sets import Items

Group = tuple[str, str]  # (phenomenon or "all", language pair or "all")


@dataclass
class PairArrays:
    ids: list[str]
    good: np.ndarray  # float, NaN where the metric gave no score
    bad: np.ndarray
    phenomenon: list[str]  # "none" where the record names none
    lp: list[str]
    category: list[str | None]


def pair_arrays(items: Items, scores: Sequence[float | None]) -> PairArrays:
    """The records of ``items`` (a pair set) with the scores of their sides. Items as `load_items` reads them (each
    record's good then bad item, by record id) are sliced; any other order is gathered by record id, the last
    value of each side kept."""
    n, ids = len(items), items.record_id[0::2]
    if (
        n % 2 == 0
        and items.side[0::2] == ["good"] * (n // 2)
        and items.side[1::2] == ["bad"] * (n // 2)
        and ids == items.record_id[1::2]
        and all(map(operator.lt, ids, ids[1:]))  # one record each, in order
    ):
        return PairArrays(
            ids,
            np.array(scores[0::2], dtype=float),  # None -> NaN
            np.array(scores[1::2], dtype=float),
            [p or "none" for p in items.phenomenon[0::2]],
            items.lp[0::2],
            items.category[0::2],
        )
    good: dict[str, float] = {}
    bad: dict[str, float] = {}
    info: dict[str, tuple[str, str, str | None]] = {}
    for rid, side, s, ph, lp, cat in zip(
        items.record_id, items.side, scores, items.phenomenon, items.lp, items.category
    ):
        (good if side == "good" else bad)[rid] = np.nan if s is None else s
        info[rid] = (ph or "none", lp, cat)
    order = sorted(info)
    return PairArrays(
        order,
        np.fromiter((good.get(i, np.nan) for i in order), dtype=float, count=len(order)),
        np.fromiter((bad.get(i, np.nan) for i in order), dtype=float, count=len(order)),
        [info[i][0] for i in order],
        [info[i][1] for i in order],
        [info[i][2] for i in order],
    )


def _codes(values: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """(distinct values, sorted; each row's index among them): ``numpy.unique(..., return_inverse=True)`` of the
    values, by a dict (no sort of the rows)."""
    names = sorted(set(values))
    index = {name: k for k, name in enumerate(names)}
    return names, np.fromiter(map(index.__getitem__, values), dtype=np.intp, count=len(values))


def _rows_by_code(codes: np.ndarray) -> dict[int, np.ndarray]:
    """The rows of each code, each in row order."""
    order = np.argsort(codes, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(codes[order]) != 0])
    return {int(codes[order[s]]): part for s, part in zip(starts, np.split(order, starts[1:]))}


def groups(arrays: PairArrays) -> dict[Group, np.ndarray]:
    """The rows of every (phenomenon, lp), (all, lp), (phenomenon, all) and (all, all) group, each in row order. The
    pooled groups hold every row they pool: a phenomenon or language pair named ``all`` (the name the schema keeps
    for pooled rows) is pooled, not a group of its own. No group for a set without records."""
    out: dict[Group, np.ndarray] = {}
    if not arrays.ids:
        return out
    phenomena, ph = _codes(arrays.phenomenon)
    lps, lp = _codes(arrays.lp)
    for code, rows in _rows_by_code(ph * len(lps) + lp).items():
        out[(str(phenomena[code // len(lps)]), str(lps[code % len(lps)]))] = rows
    for code, rows in _rows_by_code(ph).items():
        out[(str(phenomena[code]), "all")] = rows
    for code, rows in _rows_by_code(lp).items():
        out[("all", str(lps[code]))] = rows
    out[("all", "all")] = np.arange(len(arrays.ids))
    return out
