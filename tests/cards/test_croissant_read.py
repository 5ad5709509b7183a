"""Records read through real mlcroissant equal the Parquet records: a null list of structs (``scores`` of a pair set
without numeric columns), which mlcroissant renders as one element of nulls, reads back as null."""

from __future__ import annotations

import pytest

import mtgauntlet as mg
from mtgauntlet.cards.croissant_read import croissant_records
from mtgauntlet.records import load_records


def test_croissant_records_equal_the_parquet_null_scores_included(tmp_path):
    mlc = pytest.importorskip("mlcroissant")
    src = tmp_path / "pairs.tsv"
    src.write_text(
        "lp\tsource\tgood\tincorrect\treference\tphenomena\n"
        "en-de\tHi\tHallo\tTschüss\tHallo\tnegation\n"
        "en-de\tYes\tJa\tNein\t\tnegation\n",
        encoding="utf-8",
    )
    rel = mg.import_set(
        "wmt-challenge", src, name="p", version="1.0.0", out=tmp_path / "rel", provenance=["license=mit"]
    )
    want = {r["id"]: r for r in load_records(rel.path).to_pylist()}
    assert all(r["scores"] is None for r in want.values())
    raw = list(mlc.Dataset(jsonld=str(rel.path / "croissant.json")).records(record_set="challenge_pair"))
    assert raw[0]["challenge_pair/scores"] == [
        {"challenge_pair/scores/name": None, "challenge_pair/scores/value": None}
    ]
    got = list(croissant_records(rel.path, "challenge_pair"))
    assert len(got) == len(want) == 2
    assert all(g == want[g["id"]] for g in got)  # every field, texts, timestamps and the null scores alike


def test_a_real_scores_list_and_empty_texts_come_back_as_they_are(tmp_path):
    pytest.importorskip("mlcroissant")
    src = tmp_path / "pairs.tsv"
    src.write_text(
        "lp\tsource\tgood\tincorrect\treference\tphenomena\tBLEU-good\n"
        "en-de\tHi\tHallo\tTschüss\tHallo\tnegation\t\n"
        "en-de\tYes\tJa\tNein\tJa\tnegation\t0.5\n",
        encoding="utf-8",
    )
    rel = mg.import_set(
        "wmt-challenge", src, name="p", version="1.0.0", out=tmp_path / "rel", provenance=["license=mit"]
    )
    want = {r["id"]: r for r in load_records(rel.path).to_pylist()}
    got = {g["id"]: g for g in croissant_records(rel.path / "croissant.json", "challenge_pair")}
    assert got == want
    assert sorted(str(r["scores"]) for r in got.values()) == [
        "[{'name': 'BLEU-good', 'value': 0.5}]",
        "[{'name': 'BLEU-good', 'value': None}]",
    ]
