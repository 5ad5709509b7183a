"""A pair set's scores as arrays (`mtgauntlet.workbench.pair_arrays`) and the leaderboard's statistics over them:
every ordering of the items gives the same records, groups hold what they pool, and nothing comes of an empty set."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mtgauntlet.workbench.leaderboard import pair_stats
from mtgauntlet.workbench.pair_arrays import groups, pair_arrays
from mtgauntlet.workbench.sets import Items, SetRef

BASE = {"metric": "m", "metric_signature": "m|v:1", "set": "s", "version": "1.0.0", "record_kind": "smaug_pair"}


def _items(records: list[tuple[str, str | None, str, float | None, float | None]], order=None):
    """Items of (record id, phenomenon, lp, good score, bad score), each record's good then bad item (``order``:
    an item order to use instead); returns the items and their scores."""
    rows = [(rid, side, ph, lp, s) for rid, ph, lp, g, b in records for side, s in (("good", g), ("bad", b))]
    if order is not None:
        rows = [rows[i] for i in order]
    items = Items(SetRef("s", "1.0.0", "smaug_pair"))
    items.record_id = [r[0] for r in rows]
    items.side = [r[1] for r in rows]
    items.phenomenon = [r[2] for r in rows]
    items.lp = [r[3] for r in rows]
    items.category = [None] * len(rows)
    return items, [r[4] for r in rows]


def _by_group(rows: list[dict]) -> dict[tuple[str, str, str], tuple]:
    return {(r["phenomenon"], r["lp"], r["statistic"]): (r["value"], r["n"]) for r in rows}


def test_any_item_order_gives_the_statistics_of_the_sorted_items():
    rng = random.Random(0)
    records = [
        (f"r{i:03d}", rng.choice(["neg", "num", None]), rng.choice(["en-de", "de-en"]), rng.random(), rng.random())
        for i in range(60)
    ]
    records[5] = (records[5][0], records[5][1], records[5][2], None, 0.5)  # a missing score
    sorted_items, scores = _items(records)
    assert groups(pair_arrays(sorted_items, scores))[("none", "all")].size > 0  # no phenomenon: "none"
    expected = _by_group(pair_stats(sorted_items, scores, BASE, n_resamples=50))
    order = list(range(len(scores)))
    rng.shuffle(order)
    shuffled, shuffled_scores = _items(records, order)
    assert _by_group(pair_stats(shuffled, shuffled_scores, BASE, n_resamples=50)) == expected
    acc = expected[("all", "all", "accuracy")]
    kept = [(g, b) for _, _, _, g, b in records if g is not None and b is not None]
    assert acc == (pytest.approx(np.mean([g > b for g, b in kept])), len(kept))


def test_a_record_id_twice_is_one_record_and_pooled_groups_hold_every_record():
    # r1 wins and is of a phenomenon named like the pooled rows; r2 and r3 lose
    items, scores = _items(
        [("r1", "all", "en-de", 1.0, 0.0), ("r2", "a", "en-de", 0.0, 1.0), ("r3", "a", "en-de", 0.0, 1.0)]
    )
    stats = _by_group(pair_stats(items, scores, BASE, n_resamples=20))
    assert stats[("all", "all", "accuracy")] == (pytest.approx(1 / 3), 3)
    assert stats[("all", "en-de", "accuracy")] == (pytest.approx(1 / 3), 3)
    twice, twice_scores = _items([("r0", "a", "en-de", 0.0, 1.0), ("r0", "a", "en-de", 1.0, 0.0)])
    assert _by_group(pair_stats(twice, twice_scores, BASE, n_resamples=20))[("a", "all", "accuracy")] == (1.0, 1)


def test_an_empty_set_has_no_group_and_no_statistic():
    items, scores = _items([])
    assert groups(pair_arrays(items, scores)) == {}
    assert pair_stats(items, scores, BASE, n_resamples=10) == []
