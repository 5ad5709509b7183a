"""Pair sets in and out: DEMETR (the real shared file and a folder of per-perturbation files), ACES, Span-ACES and
WMT challenge TSVs made from DEMETR items; each imports as a sealed release that verifies, reads in the catalog and
comes back equal through export and import."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import mtgauntlet as mg
from tests.sets.helpers import demetr_items, differing, records, write_tsv
from tests.support.cli import invoke

ACES_HEADER = [
    "source",
    "good-translation",
    "incorrect-translation",
    "reference",
    "phenomena",
    "langpair",
    "BLEU-good",
    "BLEU-bad",
    "note",
]
ACES_PHENOMENA = [
    "hallucination-number-level-1",
    "punctuation:deletion_all",
    "addition",
    "untranslated-vs-synonym",
    "do-not-translate",
    "made-up-phenomenon",
]
ACES_CATEGORIES = ["mistranslation", "punctuation", "addition", "untranslated", "do not translate", None]


def _aces_rows(items):
    rows = []
    for i, (it, ph) in enumerate(zip(items, ACES_PHENOMENA)):
        src = ("\ufeff" if i == 0 else "") + it["src_sent"]  # a BOM, trailing spaces and literal quotes stay
        good = it["mt_sent"] + ("  " if i == 1 else "")
        bad = f'"{it["pert_sent"]}"' if i == 2 else it["pert_sent"]
        rows.append(
            [
                src,
                good,
                bad,
                it["eng_sent"],
                ph,
                "de-en" if i % 2 else "zh-en",
                f"{0.5 + i:.2f}",
                "" if i == 3 else str(i),
                f'said "{i}" ',
            ]
        )
    return rows


@pytest.fixture(scope="module")
def demetr_release(shared_data, tmp_path_factory):
    out = tmp_path_factory.mktemp("rel")
    r = invoke(
        [
            "import",
            "demetr",
            shared_data / "demetr" / "demetr_dev.jsonl.gz",
            "--name",
            "demetr",
            "--version",
            "1.0.0",
            "--out",
            out,
            "--json",
        ]
    )
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["release"])


def test_demetr_imports_as_a_sealed_release_with_skips_counted_and_its_licence_recognised(demetr_release, shared_data):
    m = json.loads((demetr_release / "manifest.json").read_text())
    assert m["rows"] == {"challenge_pair": 15773}
    assert m["builds"][0]["builder"] == "import:demetr"
    assert m["builds"][0]["counts"]["skipped"] == {"pert_check = false (the perturbation could not be applied)": 1727}
    assert m["license"]["license"] == "mit" and not m["license"]["warnings"]
    card = (demetr_release / "README.md").read_text()
    assert "1727 skipped: pert_check = false" in card
    assert invoke(["verify", demetr_release]).exit_code == 0
    with gzip.open(shared_data / "demetr" / "demetr_dev.jsonl.gz", "rt", encoding="utf-8") as f:
        raw = {
            f"{d['pert_name']}:{d['id']}": d
            for d in map(json.loads, f)
            if d["pert_check"] and d["lang_tag"] == "german"
        }
    got = records(demetr_release)
    for (sid,), rec in got.items():
        if sid in raw:  # text byte for byte
            d = raw[sid]
            assert (rec["src"], rec["good"], rec["bad"], rec["ref"], rec["lp"]) == (
                d["src_sent"],
                d["mt_sent"],
                d["pert_sent"],
                d["eng_sent"],
                "de-en",
            )
            assert json.loads(rec["extra"])["severity"] == d["severity"]
    assert got[("critical_id8_negation:34",)]["aces_category"] == "mistranslation"
    by_pert = {rec["phenomenon"]: rec["aces_category"] for rec in got.values()}
    assert by_pert["minor_id15_case"] is None and by_pert["major_id3_hypernym"] == "undertranslation"


def test_demetr_release_reads_in_the_catalog(demetr_release):
    root = demetr_release.parents[1]
    df = mg.query(
        "SELECT aces_category, count(*) AS n FROM latest_challenge_pair GROUP BY ALL ORDER BY n DESC", releases=root
    )
    counts = dict(zip(df["aces_category"], df["n"]))
    assert sum(counts.values()) == 15773 and counts["omission"] > 0 and counts["punctuation"] > 0
    assert mg.query("SELECT count(*) AS n FROM challenge_pair WHERE name = 'demetr'", releases=root)["n"][0] == 15773


def test_demetr_round_trips_through_aces_json_lines_and_a_tsv_refuses_a_line_break(demetr_release, tmp_path):
    r = invoke(["export", "wmt-challenge", demetr_release, "--out", tmp_path / "demetr.tsv"])
    assert r.exit_code == 2 and "holds a line break" in r.exception and r.exception.startswith("error: ")
    assert not (tmp_path / "demetr.tsv").exists()  # nothing half-written
    out = tmp_path / "demetr_dev.jsonl"  # the same name: the same source_dataset
    done = mg.export_set("aces", demetr_release, out=out)
    assert done.records == 15773
    again = mg.import_set(
        "aces", out, name="demetr-again", version="1.0.0", out=tmp_path / "rel", provenance=["license=mit"]
    )
    assert differing(records(demetr_release), records(again.path)) == {}  # only created_at, builder (and id) differ


def test_a_folder_of_per_perturbation_files_equals_their_json_lines(shared_data, tmp_path):
    items = demetr_items(shared_data, 4) + [
        dict(demetr_items(shared_data, 5, checked_only=False)[0], pert_check=False, id=999)
    ]
    folder = tmp_path / "demetr"
    folder.mkdir()
    for name in ("a", "b"):
        part = [it for i, it in enumerate(items) if (i % 2 == 0) == (name == "a")]
        (folder / f"{name}.json").write_text(
            json.dumps([{k: v for k, v in it.items() if k != "source_file"} for it in part], ensure_ascii=False),
            encoding="utf-8",
        )
    lines = tmp_path / "demetr.jsonl.gz"
    with gzip.open(lines, "wt", encoding="utf-8") as f:
        f.write(
            "".join(
                json.dumps({k: v for k, v in it.items() if k != "source_file"}, ensure_ascii=False) + "\n"
                for it in sorted(items, key=lambda it: (items.index(it) % 2, items.index(it)))
            )
        )
    a = mg.import_set(
        "demetr", folder, name="from-folder", version="1.0.0", out=tmp_path / "rel", provenance=["license=mit"]
    )
    b = mg.import_set(
        "demetr", lines, name="from-lines", version="1.0.0", out=tmp_path / "rel", provenance=["license=mit"]
    )
    assert a.manifest["builds"][0]["counts"]["skipped"] == {
        "pert_check = false (the perturbation could not be applied)": 1
    }
    assert a.manifest["rows"]["challenge_pair"] == 4
    assert differing(records(a.path), records(b.path)) == {}


def test_aces_tsv_keeps_text_byte_for_byte_scores_and_columns_and_round_trips_exactly(shared_data, tmp_path):
    src = write_tsv(tmp_path / "aces_sample.tsv", ACES_HEADER, _aces_rows(demetr_items(shared_data)))
    r = invoke(
        [
            "import",
            "aces",
            src,
            "--name",
            "aces",
            "--version",
            "0.1.0",
            "--out",
            tmp_path / "rel",
            "--provenance",
            "license=cc-by-nc-sa-4.0",
            "--json",
        ]
    )
    assert r.exit_code == 0, r.output
    rel = Path(json.loads(r.stdout)["release"])
    assert invoke(["verify", rel]).exit_code == 0
    got = records(rel)
    rows = _aces_rows(demetr_items(shared_data))
    for i, row in enumerate(rows):
        rec = got[(str(i + 1),)]
        assert [rec["src"], rec["good"], rec["bad"], rec["ref"], rec["phenomenon"], rec["lp"]] == row[:6]
        assert rec["aces_category"] == ACES_CATEGORIES[i]
        assert {s["name"]: s["value"] for s in rec["scores"]} == {
            "BLEU-good": 0.5 + i,
            "BLEU-bad": None if i == 3 else float(i),
        }
        assert json.loads(rec["extra"]) == {"note": row[8]}
    assert got[("1",)]["src"].startswith("\ufeff") and got[("2",)]["good"].endswith("  ")
    back = tmp_path / "back" / "aces_sample.tsv"
    assert invoke(["export", "aces", rel, "--out", back]).exit_code == 0
    again = mg.import_set(
        "aces", back, name="aces", version="0.2.0", out=tmp_path / "rel", provenance=["license=cc-by-nc-sa-4.0"]
    )
    assert differing(got, records(again.path), ignore=("created_at",)) == {}  # ids equal too


def test_wmt_challenge_tsv_round_trips_exactly_and_to_aces(shared_data, tmp_path):
    items = demetr_items(shared_data)
    header = ["lp", "source", "good", "incorrect", "reference", "phenomena"]
    rows = [
        ["de-en", it["src_sent"] + " ", it["mt_sent"], it["pert_sent"], it["eng_sent"], ph]
        for it, ph in zip(items, ["negation", "ne", "omission", "Wrong language", "punctuation", "style"])
    ]
    src = write_tsv(tmp_path / "wmt_cs.tsv", header, rows)
    rel = mg.import_set(
        "wmt-challenge",
        src,
        name="wmt-cs",
        version="1.0.0",
        out=tmp_path / "rel",
        provenance=["wmt_cs:license=cc-by-4.0"],
    )
    got = records(rel.path)
    assert [got[(str(i + 1),)]["aces_category"] for i in range(6)] == [
        "mistranslation",
        "mistranslation",
        "omission",
        "wrong language",
        "punctuation",
        None,
    ]
    assert mg.verify(rel).ok
    back = mg.export_set("wmt-challenge", rel, out=tmp_path / "out" / "wmt_cs.tsv")
    assert back.path.read_text(encoding="utf-8").splitlines()[0] == "\t".join(header + ["source_id"])
    again = mg.import_set(
        "wmt-challenge",
        back.path,
        name="wmt-cs",
        version="1.0.1",
        out=tmp_path / "rel",
        provenance=["license=cc-by-4.0"],
    )
    assert differing(got, records(again.path), ignore=("created_at",)) == {}
    aces = mg.export_set("aces", rel, out=tmp_path / "aces" / "wmt_cs.tsv")
    via_aces = mg.import_set(
        "aces", aces.path, name="wmt-cs-aces", version="1.0.0", out=tmp_path / "rel", provenance=["license=cc-by-4.0"]
    )
    assert differing(got, records(via_aces.path)) == {}


def test_span_aces_spans_round_trip(shared_data, tmp_path):
    items = demetr_items(shared_data, 2)
    header = ACES_HEADER[:6] + ["good-translation-span", "incorrect-translation-span"]
    rows = [
        [
            it["src_sent"],
            it["mt_sent"],
            it["pert_sent"],
            it["eng_sent"],
            "addition",
            "cs-en",
            it["mt_sent"].split()[0],
            it["pert_sent"].split()[-1],
        ]
        for it in items
    ]
    rel = mg.import_set(
        "span-aces",
        write_tsv(tmp_path / "span.tsv", header, rows),
        name="span",
        version="1.0.0",
        out=tmp_path / "rel",
        provenance=["license=cc-by-nc-sa-4.0"],
    )
    got = records(rel.path)
    assert got[("1",)]["good_span"] == rows[0][6] and got[("2",)]["bad_span"] == rows[1][7]
    for r in got.values():  # a span text found once in its translation: its offsets, the shape of mqm-spans
        for side in ("good", "bad"):
            span = r[f"{side}_span"]
            if r[side].count(span) == 1:
                (s,) = r[f"{side}_spans"]
                assert r[side][s["start"] : s["end"]] == span
    back = mg.export_set("aces", rel, out=tmp_path / "out" / "span.tsv")
    again = mg.import_set(
        "span-aces",
        back.path,
        name="span",
        version="1.0.1",
        out=tmp_path / "rel",
        provenance=["license=cc-by-nc-sa-4.0"],
    )
    assert differing(got, records(again.path), ignore=("created_at",)) == {}


def test_an_imported_pair_set_loads_with_datasets_and_croissant(shared_data, tmp_path):
    datasets = pytest.importorskip("datasets")
    mlc = pytest.importorskip("mlcroissant")
    src = write_tsv(tmp_path / "aces_sample.tsv", ACES_HEADER, _aces_rows(demetr_items(shared_data)))
    rel = mg.import_set(
        "aces", src, name="aces", version="0.1.0", out=tmp_path / "rel", provenance=["license=cc-by-nc-sa-4.0"]
    )
    want = {r["id"]: r for r in records(rel.path).values()}
    ds = datasets.load_dataset(str(rel.path), "challenge_pair", split="test", cache_dir=str(tmp_path / "hf"))
    assert len(ds) == 6 and all(row == want[row["id"]] for row in ds)
    crois = mlc.Dataset(jsonld=str(rel.path / "croissant.json"))
    got = list(crois.records(record_set="challenge_pair"))
    assert len(got) == 6
    ids = {
        (r["challenge_pair/id"].decode() if isinstance(r["challenge_pair/id"], bytes) else r["challenge_pair/id"])
        for r in got
    }
    assert ids == set(want)


@pytest.mark.parametrize(
    "fmt, header, row, where",
    [
        ("aces", ACES_HEADER[:6], ["s", "g", "b", "r", "addition"], "line 3"),
        ("aces", ACES_HEADER[:6], ["s", "g", "b", "r", "addition", "deen"], "line 3, field 'langpair'"),
        (
            "wmt-challenge",
            ["lp", "source", "good", "incorrect", "reference", "phenomena"],
            ["de-en", "", "g", "b", "r", "x"],
            "line 3, field 'source'",
        ),
    ],
)
def test_a_malformed_row_is_one_line_naming_file_line_and_field(tmp_path, fmt, header, row, where):
    ok = ["de-en", "s", "g", "b", "r", "x"] if fmt == "wmt-challenge" else ["s", "g", "b", "r", "addition", "de-en"]
    src = write_tsv(tmp_path / "bad.tsv", header, [ok, row])
    r = invoke(["import", fmt, src, "--name", "bad", "--version", "1.0.0", "--out", tmp_path / "rel"])
    assert r.exit_code == 2, r.output
    assert r.stderr.count("\n") == 1 and r.exception.startswith(f"error: {src}, {where}: ")
    assert not (tmp_path / "rel").exists()


def test_aces_json_lines_and_a_json_array_keep_value_types(shared_data, tmp_path):
    items = demetr_items(shared_data, 3)
    objs = [
        {
            "ID": 10 + i,
            "source": it["src_sent"],
            "good-translation": it["mt_sent"],
            "incorrect-translation": it["pert_sent"],
            "reference": None if i == 2 else it["eng_sent"],
            "phenomena": "nonsense",
            "langpair": "fr-en",
            "COMET-good": 0.8,
            "COMET-bad": 0.1 if i == 0 else None,
            "tags": ["a", i],
        }
        for i, it in enumerate(items)
    ]
    lines = tmp_path / "aces.jsonl"
    lines.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), encoding="utf-8")
    array = tmp_path / "aces.json"
    array.write_text(json.dumps(objs, ensure_ascii=False, indent=1), encoding="utf-8")
    a = mg.import_set(
        "aces", lines, name="aces-lines", version="1.0.0", out=tmp_path / "rel", provenance=["license=cc-by-nc-sa-4.0"]
    )
    b = mg.import_set(
        "aces",
        array,
        name="aces-array",
        version="1.0.0",
        out=tmp_path / "rel",
        provenance=["aces:license=cc-by-nc-sa-4.0"],
    )
    got = records(a.path)
    assert set(got) == {("10",), ("11",), ("12",)}  # the ID column is the source_id
    rec = got[("12",)]
    assert rec["ref"] is None and rec["aces_category"] == "mistranslation"
    assert rec["scores"] == [{"name": "COMET-good", "value": 0.8}, {"name": "COMET-bad", "value": None}]
    assert json.loads(rec["extra"]) == {"tags": ["a", 2]}
    assert differing(got, records(b.path)) == {}
    meta = json.loads((a.path / "croissant.json").read_text())
    assert "amrhein2022aces" in meta["citeAs"]  # the imported set's paper


def test_an_unknown_format_or_an_existing_release_is_a_one_line_error(tmp_path):
    r = invoke(["import", "tmx", tmp_path, "--name", "x", "--version", "1.0.0"])
    assert r.exit_code == 2 and "unknown format 'tmx'" in r.output
    src = write_tsv(
        tmp_path / "cs.tsv",
        ["lp", "source", "good", "incorrect", "reference", "phenomena"],
        [["de-en", "a", "b", "c", "d", "ne"]],
    )
    args = [
        "import",
        "wmt-challenge",
        src,
        "--name",
        "cs",
        "--version",
        "1.0.0",
        "--out",
        tmp_path / "rel",
        "--provenance",
        "license=mit",
    ]
    assert invoke(args).exit_code == 0
    r = invoke(args)
    assert r.exit_code == 2 and "already exists" in r.exception
    r = invoke(["export", "mtme", tmp_path / "rel" / "name=cs" / "version=1.0.0", "--out", tmp_path / "m"])
    assert r.exit_code == 2 and "no human_score records" in r.exception


def test_a_malformed_demetr_item_is_one_line_naming_file_line_and_field(shared_data, tmp_path):
    items = demetr_items(shared_data, 2)
    items[1] = {**items[1], "lang_tag": "klingon"}
    src = tmp_path / "demetr.jsonl"
    src.write_text("".join(json.dumps(it, ensure_ascii=False) + "\n" for it in items), encoding="utf-8")
    r = invoke(["import", "demetr", src, "--name", "bad", "--version", "1.0.0", "--out", tmp_path / "rel"])
    assert r.exit_code == 2 and r.exception.startswith(f"error: {src}, line 2, field 'lang_tag': unknown lang_tag")
    del items[1]["mt_sent"]
    src.write_text("".join(json.dumps(it, ensure_ascii=False) + "\n" for it in items), encoding="utf-8")
    r = invoke(["import", "demetr", src, "--name", "bad", "--version", "1.0.0", "--out", tmp_path / "rel"])
    assert r.exit_code == 2 and r.exception == f"error: {src}, line 2, field 'mt_sent': no key 'mt_sent'"
    assert not (tmp_path / "rel").exists()


def test_a_folder_of_known_files_is_recognised_and_one_with_unknown_files_is_not(shared_data, tmp_path):
    rel = mg.import_set("demetr", shared_data / "demetr", name="demetr-folder", version="1.0.0", out=tmp_path / "r")
    assert rel.manifest["license"]["license"] == "mit" and not rel.warnings
    assert rel.manifest["rows"]["challenge_pair"] == 15773
    mixed = tmp_path / "demetr"
    mixed.mkdir()
    (mixed / "a.jsonl").write_text(
        json.dumps({**demetr_items(shared_data, 1)[0], "id": 5000}, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (mixed / "b.jsonl.gz").symlink_to(shared_data / "demetr" / "demetr_dev.jsonl.gz")
    with pytest.warns(mg.GauntletWarning, match="provenance and licence are unknown"):
        rel = mg.import_set("demetr", mixed, name="mixed", version="1.0.0", out=tmp_path / "r")
    assert rel.manifest["license"]["license"] == "unknown"


def test_the_same_item_twice_is_a_one_line_error(shared_data, tmp_path):
    item = demetr_items(shared_data, 1)[0]
    src = tmp_path / "twice.jsonl"
    src.write_text((json.dumps(item, ensure_ascii=False) + "\n") * 2, encoding="utf-8")
    r = invoke(["import", "demetr", src, "--name", "twice", "--version", "1.0.0", "--out", tmp_path / "rel"])
    assert r.exit_code == 2 and r.exception.endswith("again: line 2 repeats line 1")  # both lines named
    assert r.stderr.count("\n") == 1 and not (tmp_path / "rel").exists()


@pytest.mark.parametrize("fmt", ["demetr", "aces"])
def test_a_number_python_refuses_in_json_is_a_one_line_error_naming_file_and_line(fmt, shared_data, tmp_path):
    item = demetr_items(shared_data, 1)[0]
    if fmt == "aces":
        item = {"source": item["src_sent"], "good-translation": item["mt_sent"], "langpair": "fr-en"}
    good = json.dumps(item, ensure_ascii=False)
    src = tmp_path / "huge.jsonl"
    src.write_text(good + "\n" + good[:-1] + ', "n": ' + "9" * 5000 + "}\n", encoding="utf-8")
    r = invoke(["import", fmt, src, "--name", "huge", "--version", "1.0.0", "--out", tmp_path / "rel"])
    assert r.exit_code == 2 and r.exception.startswith(f"error: {src}, line 2: not JSON (Exceeds the limit")
    array = tmp_path / "huge.json"
    array.write_text("[" + good[:-1] + ', "n": ' + "9" * 5000 + "}]", encoding="utf-8")
    r = invoke(["import", fmt, array, "--name", "huge", "--version", "1.0.0", "--out", tmp_path / "rel"])
    assert r.exit_code == 2 and r.exception.startswith(f"error: {array}: not JSON (Exceeds the limit")
    assert not (tmp_path / "rel").exists()
