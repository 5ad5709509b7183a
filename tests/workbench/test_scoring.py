"""The workbench's scoring steps against their plain definitions: equal items scored once (first index), chunks of
one language pair, a chunk's answers and failures, a metric's answers cleaned, the stored scores reused by key and
by row (the last of a key wins), and the integer codes the pair statistics group by."""

from __future__ import annotations

import math
import random

import numpy as np
import pyarrow as pa
import pytest

from mtgauntlet.errors import GauntletError
from mtgauntlet.schema import to_table
from mtgauntlet.workbench.chunks import Answers, chunks, score_chunk
from mtgauntlet.workbench.metrics import Scorer, check_answer, clean
from mtgauntlet.workbench.pair_arrays import _codes
from mtgauntlet.workbench.scoring import Known, _dedup, score_set
from mtgauntlet.workbench.sets import Items, SetRef


def _items(n: int, rng: random.Random, langs=(("en", "de"),), keys: int = 5) -> Items:
    items = Items(SetRef("s", "1", "smaug_pair"))
    items.record_id = [f"r{i // 2:04d}" for i in range(n)]
    items.side = ["good", "bad"] * (n // 2)
    pairs = [rng.choice(langs) for _ in range(n)]
    items.src_lang, items.tgt_lang = [p[0] for p in pairs], [p[1] for p in pairs]
    items.key = [f"k{rng.randrange(keys)}" for _ in range(n)]
    items.src = [f"s{i}" for i in range(n)]
    items.hyp = [None if rng.random() < 0.1 else f"h {i}" for i in range(n)]
    items.ref = [rng.choice(["", None, f"r {i}", f"r {i}"]) for i in range(n)]
    return items


def test_equal_items_are_scored_once_at_their_first_index():
    rng = random.Random(0)
    for _ in range(50):
        items = _items(40, rng, keys=rng.choice([3, 30, 1000]))
        todo = sorted(rng.sample(range(40), rng.randrange(41))) if rng.random() < 0.7 else list(range(40))
        firsts: dict[str, int] = {}
        for i in todo:
            firsts.setdefault(items.key[i], i)
        want_dups = [i for i in todo if firsts[items.key[i]] != i]
        assert _dedup(items, todo, share=True) == (list(firsts.values()), want_dups)
        assert _dedup(items, todo, share=False) == (todo, [])  # a record's own value: every item


def test_chunks_hold_one_language_pair_each_in_index_order():
    rng = random.Random(1)
    for langs in ((("en", "de"),), (("en", "de"), ("de", "en"), ("en", "fr"))):
        items = _items(60, rng, langs)
        todo = sorted(rng.sample(range(60), 45))
        want = []
        for sl, tl in sorted(set(langs)):
            idx = [i for i in todo if (items.src_lang[i], items.tgt_lang[i]) == (sl, tl)]
            want += [(idx[k : k + 7], sl, tl) for k in range(0, len(idx), 7)]
        assert chunks(items, todo, 7) == want
    assert chunks(items, [], 7) == []


def test_a_chunks_answers_say_why_an_item_has_no_score():
    rng = random.Random(2)
    items = _items(30, rng)
    sent: list[list[str]] = []

    def score(src, hyp, ref, sl, tl):
        sent.append(hyp)
        return [float("nan") if h.endswith("3") else len(h) for h in hyp]

    scorer = Scorer("m", "m|1", score, needs_ref=True)
    idx = list(range(30))
    answers = score_chunk(scorer, items, (idx, "en", "de"))
    for i, value, failure, marked in zip(idx, *answers):
        assert marked is None
        if items.hyp[i] is None:
            assert (value, failure) == (None, "no translation")
        elif not items.ref[i]:
            assert (value, failure) == (None, "m needs a reference; the item has none")
        elif items.hyp[i].endswith("3"):
            assert (value, failure) == (None, "m returned no score")
        else:
            assert (value, failure) == (float(len(items.hyp[i])), None)
    assert sent == [[h for h, r in zip(items.hyp, items.ref) if h is not None and r]]
    complete = [i for i in idx if items.hyp[i] is not None and items.ref[i]]  # every item goes to the metric
    answers = score_chunk(scorer, items, (complete, "en", "de"))
    assert answers.failures == [None if v is not None else "m returned no score" for v in answers.scores]


def test_answers_are_cleaned_and_counted():
    rng = random.Random(3)
    floats = [rng.random() for _ in range(100)]
    assert check_answer("m", floats, 100) == floats
    for bad in (math.inf, -math.inf, math.nan, None, "x", "2.5", np.float64(0.5), 3, True, 1e308):
        got = [*floats[:3], bad, floats[4]]
        assert check_answer("m", got, 5) == [clean(v) for v in got]
    assert check_answer("m", np.array([0.5, np.nan]), 2) == [0.5, None]
    with pytest.raises(GauntletError, match="returned 2 scores for 3 items"):
        check_answer("m", [0.1, 0.2], 3)


def test_known_scores_are_found_by_key_and_by_row():
    def row(key, record, side, score, set_="s", signature="m|1"):
        return {
            "item_key": key,
            "metric": "m",
            "metric_signature": signature,
            "set": set_,
            "version": "1",
            "record_kind": "smaug_pair",
            "record_id": record,
            "side": side,
            "score": score,
            "failure": None if score is not None else "none",
        }

    table = to_table(
        "metric_score",
        [
            row("k1", "r1", "good", 0.1),
            row("k2", "r1", "bad", 0.2),
            row("k1", "r9", "good", 0.3, set_="t"),  # the last of key k1
            row("k3", "r2", "good", 0.9, signature="other|1"),
        ],
    )
    known = Known(table, "m|1")
    assert known.by_key == {"k1": (0.3, None, None), "k2": (0.2, None, None)}
    rows, spans = known.rows_of("s", "1")
    assert rows == {("r1", "good"): (0.1, None), ("r1", "bad"): (0.2, None)} and spans == {}
    assert known.rows_of("u", "1") == ({}, {})
    known.add(["k0", "k2", "k4"], [1, 2], Answers([0.5, None], [None, "failed"], [None, None]))
    assert known.by_key["k2"] == (0.5, None, None) and known.by_key["k4"] == (None, "failed", None)

    items = Items(SetRef("s", "1", "smaug_pair"))
    items.record_id, items.side = ["r1", "r1", "r3", "r3"], ["good", "bad", "good", "bad"]
    items.key, items.src_lang, items.tgt_lang = ["k1", "k2", "k4", "k5"], ["en"] * 4, ["de"] * 4
    items.src, items.hyp, items.ref = ["s"] * 4, ["h"] * 4, ["r"] * 4
    shards: list[pa.Table] = []
    scorer = Scorer("m", "m|1", lambda src, hyp, ref, sl, tl: [0.7] * len(hyp))
    scores, computed, reused, added = score_set("m", scorer, items, known, 10, "local", shards.append)
    assert scores == [0.1, 0.2, None, 0.7]  # two stored rows, k4 copied from the run's answers, k5 computed
    assert (computed, reused, added) == (1, 3, 2)
    assert [t.column("item_key").to_pylist() for t in shards] == [["k4"], ["k5"]]


def test_codes_are_numpy_unique_with_inverse():
    rng = random.Random(4)
    for _ in range(20):
        values = [rng.choice(["del", "neg", "all", "a b", "é", "Z", "none"]) for _ in range(rng.randint(1, 200))]
        names, codes = _codes(values)
        want_names, want_codes = np.unique(np.asarray(values, dtype=object), return_inverse=True)
        assert names == list(want_names) and codes.tolist() == want_codes.ravel().tolist()
