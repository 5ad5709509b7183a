import csv
import gzip
import json

import pandas as pd
import pytest

from mtgauntlet.corpora import formats as F
from mtgauntlet.corpora import judgment_formats as J
from mtgauntlet.corpora.langs import normalize_lang, split_lp
from mtgauntlet.corpora.readers import parse_column_map, read_rows
from mtgauntlet.errors import InputError


def test_flores_rows_and_languages(shared_data):
    rs = F.read_flores(shared_data / "flores200-devtest/flores200_devtest.tsv.gz", src="de", tgt="en")
    assert len(rs) == 1012
    r = rs.rows[0]
    assert (r["src_lang"], r["tgt_lang"]) == ("de", "en")
    assert r["src"].startswith("„Wir haben jetzt 4 Monate")
    assert r["topic"] == "disease, research, canada" and r["domain"] == "wikinews"
    zh = F.read_flores(shared_data / "flores200-devtest/flores200_devtest.tsv.gz", src="en", tgt="zh-Hans", limit=3)
    assert zh.rows[0]["tgt_lang"] == "zh-Hans" and len(zh) == 3


def test_wmt24_quoted_tabs_and_canary(shared_data):
    path = shared_data / "wmt24-general-testset/wmt24_general_testset.tsv.gz"
    rs = F.read_wmt24(path)
    # independent count with the csv module: every row minus one canary line per language pair
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        raw = list(csv.DictReader(fh, delimiter="\t"))
    canaries = sum(1 for r in raw if r["domain"] == "canary")
    assert canaries == 11
    assert len(rs) == len(raw) - canaries == 12010
    with_tab = [r for r in rs.rows if "\t" in r["src"] or "\t" in (r["ref"] or "")]
    assert with_tab, "fields with literal tabs must survive as one field"
    ende = F.read_wmt24(path, lp="en-de")
    assert {r["lp"] for r in ende.rows} == {"en-de"} and all(r["refB"] for r in ende.rows[:5])


def test_wmt24_layout_given_a_json_lines_file_says_what_to_use(tmp_path):
    from tests.support.cli import invoke

    seeds = tmp_path / "wmt24.jsonl"
    seeds.write_text(json.dumps({"lp": "en-cs", "src": "The dog barks."}) + "\n", encoding="utf-8")
    r = invoke(
        ["build", "mtbreaker", "--seeds", str(seeds), "--format", "wmt24", "--out", str(tmp_path / "o"), "--dry-run"]
    )
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"error: {seeds}: --format wmt24 reads the WMT24 general test set TSV")
    assert "--format jsonl" in r.stderr


def test_parallel_samples_direction_and_filter(shared_data):
    path = shared_data / "parallel-samples/parallel_samples.tsv.gz"
    rs = F.read_parallel_samples(path)
    assert len(rs) == 51788
    es = F.read_parallel_samples(path, lp="en-es", corpus="newstest2013", direction="en-xx")
    assert len(es) == 3000
    assert es.rows[0]["src_lang"] == "en" and es.rows[0]["tgt_lang"] == "es"
    assert es.rows[0]["src"] == es.rows[0]["en"]


def test_judgment_readers_against_pandas(shared_data):
    gpath = shared_data / "google-wmt-mqm/google_mqm_seg_scores.tsv.gz"
    rs = J.read_google_mqm(gpath)
    df = pd.read_csv(gpath, sep="\t", quoting=3, keep_default_na=False)
    expected = ((df["is_human_ref"].astype(str) != "1") & (df["mqm_avg_score"].astype(str) != "")).sum()
    assert len(rs) == expected
    assert {r["protocol"] for r in rs.rows} == {"mqm"}
    assert all(r["score"] <= 0 for r in rs.rows)
    mpath = shared_data / "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz"
    da = J.read_wmt23_mtme(mpath, score="da_sqm")
    mdf = pd.read_csv(mpath, sep="\t", quoting=3, keep_default_na=False)
    expected = ((mdf["is_human_ref"].astype(str) != "1") & (mdf["da_sqm"].astype(str) != "")).sum()
    assert len(da) == expected and {r["protocol"] for r in da.rows} == {"da"}
    esa = J.read_wmt23_esa(shared_data / "wmt23-mqm-mtme/wmt23_ende_esa_campaign.tsv.gz")
    assert len(esa) == 2691 and 0 <= min(r["score"] for r in esa.rows) <= max(r["score"] for r in esa.rows) <= 100


def test_demetr_reader(shared_data):
    rs = F.read_demetr(shared_data / "demetr/demetr_dev.jsonl.gz")
    with gzip.open(shared_data / "demetr/demetr_dev.jsonl.gz", "rt") as fh:
        raw = [json.loads(line) for line in fh]
    expected = sum(1 for r in raw if r["pert_check"] and not r["pert_name"].startswith("base_"))
    assert len(rs) == expected
    assert rs.skipped_counts()["perturbation not applied"] == sum(1 for r in raw if r["pert_check"] is False)
    langs = {r["src_lang"] for r in rs.rows}
    assert langs == {"de", "fr", "es", "cs", "zh-Hans"}
    assert all(r["tgt_lang"] == "en" for r in rs.rows)


def test_aces_reader(tmp_path):
    p = tmp_path / "aces.tsv"
    p.write_text(
        "ID\tsource\tgood-translation\tincorrect-translation\treference\tphenomena\tlangpair\n"
        "1\tDer Hund bellt.\tThe dog barks.\tThe cat barks.\tThe dog is barking.\tnamed-entity\tde-en\n",
        encoding="utf-8",
    )
    rs = F.read_aces(p)
    assert rs.rows[0]["good"] == "The dog barks." and rs.rows[0]["bad"] == "The cat barks."
    assert (rs.rows[0]["src_lang"], rs.rows[0]["tgt_lang"]) == ("de", "en")


def test_generic_formats_and_column_map(tmp_path, sample_path):
    rs = F.read_parallel(sample_path, src_col="es", ref_col="en", src_lang="es", tgt_lang="en")
    assert len(rs) == 42 and rs.rows[0]["src"].startswith("El presidente")
    df = pd.DataFrame([{"s": r["src"], "t": r["ref"]} for r in rs.rows])
    df.to_parquet(tmp_path / "x.parquet")
    df.to_json(tmp_path / "x.jsonl", orient="records", lines=True, force_ascii=False)
    df.to_csv(tmp_path / "x.csv.gz", index=False)
    for name in ("x.parquet", "x.jsonl", "x.csv.gz"):
        got = F.read_parallel(tmp_path / name, src_col="s", ref_col="t", src_lang="es", tgt_lang="en")
        assert [r["src"] for r in got.rows] == [r["src"] for r in rs.rows]
    assert parse_column_map("score=esa,item_id=line_id") == {"score": "esa", "item_id": "line_id"}


def test_hf_saved_dataset_dir(tmp_path):
    datasets = pytest.importorskip("datasets")
    datasets.Dataset.from_dict({"src": ["Hola mundo."], "ref": ["Hello world."]}).save_to_disk(tmp_path / "ds")
    rs = F.read_parallel(tmp_path / "ds", src_lang="es", tgt_lang="en", format="hf")
    assert rs.rows[0]["src"] == "Hola mundo." and rs.rows[0]["tgt_lang"] == "en"


# ---- error messages on corrupted copies -------------------------------------------------------


def _corrupt_copy(shared_data, tmp_path, mutate):
    src = shared_data / "flores200-devtest/flores200_devtest.tsv.gz"
    lines = gzip.decompress(src.read_bytes()).split(b"\n")
    mutate(lines)
    out = tmp_path / "flores_corrupt.tsv"
    out.write_bytes(b"\n".join(lines))
    return out


def test_bad_utf8_names_line(shared_data, tmp_path):
    path = _corrupt_copy(shared_data, tmp_path, lambda ls: ls.__setitem__(10, ls[10] + b"\xff\xfe"))
    with pytest.raises(InputError) as ei:
        F.read_flores(path, src="en", tgt="de")
    assert ei.value.line == 11 and "UTF-8" in str(ei.value) and str(path) in str(ei.value)


def test_missing_column_names_field(shared_data, tmp_path):
    def drop(ls):
        ls[0] = ls[0].replace(b"\tdeu\t", b"\tgerman\t")

    path = _corrupt_copy(shared_data, tmp_path, drop)
    with pytest.raises(InputError) as ei:
        F.read_flores(path, src="en", tgt="de")
    assert ei.value.field == "deu" and ei.value.line == 1 and "not found" in str(ei.value)


def test_empty_text_error_or_skip(shared_data, tmp_path):
    def blank(ls):
        cols = ls[5].split(b"\t")
        cols[6] = b"   "  # eng column
        ls[5] = b"\t".join(cols)

    path = _corrupt_copy(shared_data, tmp_path, blank)
    with pytest.raises(InputError) as ei:
        F.read_flores(path, src="en", tgt="de")
    assert (ei.value.line, ei.value.field) == (6, "eng") and "empty" in str(ei.value)
    rs = F.read_flores(path, src="en", tgt="de", on_error="skip")
    assert len(rs) == 1011 and rs.skipped == [(6, "eng", "empty text")]


def test_wrong_field_count_and_bad_json(tmp_path, shared_data):
    path = _corrupt_copy(shared_data, tmp_path, lambda ls: ls.__setitem__(3, ls[3] + b"\textra"))
    with pytest.raises(InputError) as ei:
        F.read_flores(path, src="en", tgt="de")
    assert ei.value.line == 4 and "fields" in str(ei.value)
    j = tmp_path / "bad.jsonl"
    j.write_text('{"src": "a", "ref": "b"}\n{"src": "a", "ref": \n', encoding="utf-8")
    with pytest.raises(InputError) as ei:
        F.read_parallel(j, src_lang="en", tgt_lang="de")
    assert ei.value.line == 2 and "JSON" in str(ei.value)


def test_unknown_language_code(tmp_path, sample_path):
    with pytest.raises(InputError) as ei:
        F.read_parallel(sample_path, src_col="es", ref_col="en", src_lang="xx", tgt_lang="en")
    assert "unknown language code 'xx'" in str(ei.value)
    p = tmp_path / "l.tsv"
    p.write_text("src\tref\tsrc_lang\tlang\nHola\tHello\tes\ten\nAdiós\tBye\tqq\ten\n", encoding="utf-8")
    with pytest.raises(InputError) as ei:
        F.read_parallel(p, tgt_lang="en")
    assert (ei.value.line, ei.value.field) == (3, "src_lang")


def test_missing_file_is_input_error(tmp_path):
    with pytest.raises(InputError) as ei:
        read_rows(tmp_path / "nope.tsv")
    assert "file not found" in str(ei.value)


def test_language_codes():
    assert normalize_lang("cmn_Hans") == "zh-Hans"
    assert normalize_lang("pt_br") == "pt-BR"
    assert normalize_lang("deu") == "de"
    assert split_lp("en-de") == ("en", "de")
    with pytest.raises(ValueError):
        normalize_lang("klingon")
