"""Item keys (`mtgauntlet.workbench.item_keys`): stored scores keep their keys and later runs reuse them, so the
column-wise keys must be the reference definition's (sha256 of the compact JSON ``[src,hyp,ref,src_lang,tgt_lang]``)
on any text: quotes, backslashes, control characters, non-ASCII, empty strings and nulls; and `load_items` must
read a released set into the same items and keys as a row-by-row reading of its records."""

from __future__ import annotations

import hashlib
import json
import random

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mtgauntlet.workbench.item_keys import item_key, item_keys, json_strings
from tests.evaluation.workbench_sets import write_build
from tests.support.release_helpers import cli

# characters JSON escapes (quote, backslash, each kind of control character) and some it does not
TRICKY = ['"', "\\", "\n", "\t", "\r", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f", "/", "'", "é", "東", "👍", "\u2028"]


def reference_key(src, hyp, ref, src_lang, tgt_lang) -> str:
    """The definition stored keys were made with."""
    blob = json.dumps([src, hyp, ref, src_lang, tgt_lang], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def _texts(rng: random.Random, n: int, nulls: bool = True) -> list[str | None]:
    alphabet = [*TRICKY, "a", "b", " ", "x"]
    return [
        None if nulls and rng.random() < 0.1 else "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9)))
        for _ in range(n)
    ]


def test_item_key_is_the_reference_definition():
    rng = random.Random(0)
    for _ in range(300):
        row = _texts(rng, 5)
        assert item_key(*row) == reference_key(*row)


def test_json_strings_are_json_dumps_of_each_string():
    rng = random.Random(1)
    texts = _texts(rng, 2000) + ["", "plain", '"', "\\\\", "\x00"]
    want = [json.dumps(t, ensure_ascii=False) for t in texts]
    assert json_strings(pa.array(texts, pa.string())).to_pylist() == want
    assert json_strings(pa.array(texts, pa.large_string())).to_pylist() == want
    assert json_strings(pa.array(texts, pa.string()).slice(7, 50)).to_pylist() == want[7:57]  # an offset
    assert json_strings(pa.array(["a", "b"])).to_pylist() == ['"a"', '"b"']  # nothing to escape
    assert json_strings(pa.array([], pa.string())).to_pylist() == []


def test_a_null_slot_that_keeps_bytes_is_null():
    """Arrow lets a null string slot keep bytes (here a quote): it is JSON's null all the same."""
    data = pa.py_buffer(b'ab"cd')
    offsets = pa.py_buffer(np.array([0, 2, 5], dtype=np.int32).tobytes())
    validity = pa.py_buffer(np.packbits([1, 0], bitorder="little").tobytes())
    values = pa.Array.from_buffers(pa.string(), 2, [validity, offsets, data], null_count=1)
    assert json_strings(values).to_pylist() == ['"ab"', "null"]


@pytest.mark.parametrize("escaped", [True, False])
def test_column_wise_keys_are_the_reference_keys(escaped):
    rng = random.Random(2)
    n = 3000
    if escaped:
        src, good, bad, ref = (_texts(rng, n) for _ in range(4))
    else:  # the usual case: nothing to escape, no null
        src, good, bad, ref = ([f"{w} {i} é 東" for i in range(n)] for w in ("src", "good", "bad", "ref"))
    langs = [rng.choice(["en", "de", None] if escaped else ["en", "de"]) for _ in range(2 * n)]
    sl, tl = langs[:n], langs[n:]
    arrays = [pa.array(c, pa.string()) for c in (src, good, bad, ref, sl, tl)]
    got = item_keys(arrays[0], [arrays[1], arrays[2]], arrays[3], arrays[4], arrays[5])
    assert got == [[reference_key(*row) for row in zip(src, hyp, ref, sl, tl)] for hyp in (good, bad)]
    part = [a.slice(11, 100) for a in arrays]  # arrays with an offset: the same keys of those rows
    assert item_keys(part[0], [part[1]], part[3], part[4], part[5]) == [got[0][11:111]]
    empty = pa.array([], pa.string())
    assert item_keys(empty, [empty], empty, empty, empty) == [[]]


def test_load_items_reads_records_into_items_with_reference_keys(tmp_path):
    """A pair set and a human-judgment set of tricky texts (no reference, no translation, a record without
    languages but with a language pair): every item is its record's, with the reference key."""
    from mtgauntlet.releases.catalog import open_catalog
    from mtgauntlet.workbench.sets import load_items, select_sets

    rng = random.Random(3)
    pairs = [
        {
            "src": s or "x",
            "ref": r or "r",
            "good": g or "g",
            "bad": b or "b",
            "phenomenon": rng.choice(["del", 'a"b']),
            "src_lang": "es",
            "tgt_lang": "en",
            "source_id": str(i),
        }
        for i, (s, r, g, b) in enumerate(zip(*(_texts(rng, 40) for _ in range(4))))
    ]
    human = [
        {
            "lp": "en-de",
            "seg_id": str(i // 2),
            "system": f"sys{i % 2}",
            "src": s or "",
            "ref": None if i == 5 else r,
            "tgt": None if i == 6 else t,
            "src_lang": "" if i == 3 else "en",
            "tgt_lang": None if i == 3 else "de",
            "scores": {"mqm": float(i)},
        }
        for i, (s, r, t) in enumerate(zip(*(_texts(rng, 30) for _ in range(3))))
    ]
    releases = tmp_path / "releases"
    for name, kind, rows in (("pairs", "smaug_pair", pairs), ("human", "human_score", human)):
        build = write_build(tmp_path / name, kind, rows)
        cli("release", build, "--name", name, "--version", "1.0.0", "--out", releases, "--license", "cc-by-4.0")
    con = open_catalog(releases)
    try:
        sets = {r.kind: load_items(con, r) for r in select_sets(con, None)}
    finally:
        con.close()
    for kind, sides in (("smaug_pair", ("good", "bad")), ("human_score", ("tgt",))):
        items = sets[kind]
        want = []
        for rec in _released(releases, kind):
            lp = rec.get("lp") or f"{rec['src_lang']}-{rec['tgt_lang']}"
            sl, tl = (rec["src_lang"], rec["tgt_lang"]) if rec["src_lang"] and rec["tgt_lang"] else lp.split("-", 1)
            for side in sides:
                want.append((rec["id"], side, rec["src"] or "", rec[side], rec["ref"], sl, tl, lp))
        got = list(
            zip(items.record_id, items.side, items.src, items.hyp, items.ref, items.src_lang, items.tgt_lang, items.lp)
        )
        assert got == want
        assert items.key == [reference_key(s, h, r, a, b) for _, _, s, h, r, a, b, _ in want]
    assert any(h is None for h in sets["human_score"].hyp) and any(r is None for r in sets["human_score"].ref)
    assert sets["human_score"].score_names == {"mqm"}
    assert sets["human_score"].scores == [
        {"mqm": s["value"]} for r in _released(releases, "human_score") for s in r["scores"]
    ]


def _released(releases, kind: str) -> list[dict]:
    """The records of the one release of ``kind`` under ``releases``, by id."""
    files = [p for p in releases.rglob("*.parquet") if f"/{kind}/" in p.as_posix() or p.parent.name == kind]
    rows = [r for p in files for r in pq.read_table(p).to_pylist()]
    return sorted(rows, key=lambda r: r["id"])
