"""MT-breaker and zero-shot loops driven by deterministic LLMs served over the real OpenAI-compatible protocol
(local HTTP servers): as editor, translator (llm-as-translator) and QE (llm-as-qe) — no Apertium needed — and,
where Apertium is installed, against Apertium with round-trip QE."""

import json
import re
import shutil
import sys

import pytest

from mtgauntlet.builders.base import Item
from mtgauntlet.builders.mtbreaker import MTBreakerBuilder
from mtgauntlet.builders.options.breaker import MTBreakerOptions, ZeroShotOptions
from mtgauntlet.builders.zeroshot import ZeroShotBuilder
from mtgauntlet.core.builds import item_rng
from mtgauntlet.models import registry
from mtgauntlet.options import options_of
from mtgauntlet.records import load_records
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import MT_FAILS_ON, QE_FAILS_ON, cli, qe_a, qe_b, scripted_stack

needs_apertium = pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium not installed")
EXTRA = ["quickly", "yesterday", "notwithstanding", "bamboozled", "the", "irrevocably", "zeitgeist", "flummoxed"]


def editor(messages):
    """Deterministic editor: append one word to the latest SOURCE, or start a text."""
    sources = [m for m in messages if m["role"] == "assistant"]
    if not sources:
        return "Here you go. SOURCE |||The old ledger was kept in the county office.|||"
    prev = re.search(r"\|\|\|(.*)\|\|\|", sources[-1]["content"]).group(1)
    n = sum(1 for m in messages if m["role"] == "user")
    return f"I made it harder. SOURCE |||{prev} {EXTRA[n % len(EXTRA)]}|||"


@pytest.fixture()
def server():
    with ScriptedServer(default=editor) as srv:
        yield srv


@pytest.fixture(scope="module")
def _stack():
    with scripted_stack() as s:
        yield s


@pytest.fixture()
def stack(_stack):
    _stack["reset"]()  # the editor starts its word list again; request logs emptied
    return _stack


def _builder(srv, **kw):
    args = dict(
        variant="seeded",
        llm=f"openai:editor@{srv.url}",
        mt=["apertium"],
        qe="roundtrip",
        steps=3,
        src_lang="en",
        tgt_lang="es",
        temperature=0.7,
    )
    args.update(kw)
    retries = args.pop("retries", 2)
    return MTBreakerBuilder(options_of(MTBreakerOptions, **args), retries=retries)


def _scripted(stack, **kw):
    args = dict(
        variant="seeded",
        llm=stack["llm"],
        mt=[stack["mt"]],
        qe=f"{stack['qe_a']},{stack['qe_b']}",
        steps=4,
        src_lang="en",
        tgt_lang="es",
        language_guard=False,
    )
    args.update(kw)
    retries = args.pop("retries", 2)
    return MTBreakerBuilder(options_of(MTBreakerOptions, **args), retries=retries)


# -- issue 19 item 1: failures are missing, never selected, counted ---------------------------------------
def test_failed_translations_and_scores_are_never_selected(stack):
    # the editor appends quickly, notwithstanding (QE judge fails), yesterday, bamboozled (translator fails):
    # before, the failed QE scored 50 and the failed translation was "" — both lower than every real score here
    rec = _scripted(stack).process(Item(0, {"src": "The dog barks at night."}), item_rng(1, 0)).records[0]
    traj = {s["step"]: s for s in rec["trajectory"]}
    assert traj[2]["failure"] == "qe" and traj[2]["qe_mean"] is None and QE_FAILS_ON in traj[2]["source"]
    assert traj[2]["qe_components"][0][0] is None and traj[2]["translations"][0]  # translated, not scored
    assert traj[4]["failure"] == "mt" and traj[4]["translations"] == [None] and traj[4]["qe_components"] == [None]
    assert rec["qe_failures"] == 1 and rec["mt_failures"] == 1
    scored = [s for s in rec["trajectory"] if s["failure"] is None]
    assert {s["step"] for s in scored} == {0, 1, 3}
    best = min(scored, key=lambda s: s["qe_mean"])
    assert rec["text"] == best["source"] and rec["difficulty"] == pytest.approx(100 - best["qe_mean"])
    assert MT_FAILS_ON not in rec["text"] and QE_FAILS_ON not in rec["text"]
    # after a failed step the editor is shown the last scored step again (its proposal left the history)
    last = stack["servers"]["llm"].requests[-1]["body"]["messages"]
    assert not any(QE_FAILS_ON in m["content"] for m in last if m["role"] == "assistant")


def test_qe_ensemble_is_the_mean_of_its_components(stack):
    b = _scripted(stack, steps=1)
    rec = b.process(Item(0, {"src": "Tax law is complicated."}), item_rng(1, 0)).records[0]
    assert rec["qe_models"] == [stack["qe_a"], stack["qe_b"]] and rec["qe_model"] == ",".join(rec["qe_models"])
    for s in rec["trajectory"]:
        src, tr = s["source"], s["translations"][0]
        assert s["qe_components"] == [[pytest.approx(qe_a(src, tr), abs=0.05), pytest.approx(qe_b(src, tr), abs=0.05)]]
        assert s["qe_mean"] == pytest.approx(sum(s["qe_components"][0]) / 2)


# -- item 6: the same follow-up wording, --max-tokens, truncation, one temperature ---------------------------
def test_followups_differ_only_in_the_qe_feedback(stack):
    prompts = {}
    for variant in ("seeded", "seeded+qe"):
        _scripted(stack, variant=variant, steps=1).process(Item(0, {"src": "She sold the house."}), item_rng(1, 0))
        prompts[variant] = stack["servers"]["llm"].requests[-1]["body"]["messages"][-1]["content"]
    plain, qe = prompts["seeded"], prompts["seeded+qe"]
    assert re.search(r"SCORE \|\|\|\d+\.\d%\|\|\|", qe) and "SCORE" not in plain
    assert "Modify at most 75% of the best SOURCE (one with lowest score) so far." in qe
    stripped = re.sub(r"And this is the score[^\n]*\n", "", qe).replace(" (one with lowest score)", "")
    assert stripped == plain  # identical wording apart from the score the +qe variants see
    assert "grammatical" not in plain
    _scripted(stack, steps=1, grammatical_edits=True).process(Item(0, {"src": "She sold the house."}), item_rng(1, 0))
    assert "Only make grammatical edits" in stack["servers"]["llm"].requests[-1]["body"]["messages"][-1]["content"]


def test_max_tokens_is_sent_and_cut_answers_are_counted(stack):
    srv = stack["servers"]["llm"]
    b = _scripted(stack, steps=2, retries=0, max_tokens=700)
    srv.script = [("ok", "Let me think step by step about what is hard. SOURCE |||The dog barked loudly at")]
    rec = b.process(Item(0, {"src": "The dog barks."}), item_rng(1, 0)).records[0]
    assert {r["body"]["max_tokens"] for r in srv.requests} == {700}
    assert rec["truncated"] == 1 and rec["llm_failures"] == 1  # the cut text is not used as a source
    assert not any(s["source"].endswith("barked loudly at") for s in rec["trajectory"])


def test_zeroshot_and_mtbreaker_share_the_default_temperature(stack):
    z = ZeroShotBuilder(
        options_of(ZeroShotOptions, variant="plain", llm=stack["llm"], mt=[stack["mt"]], qe=stack["qe_a"])
    )
    m = MTBreakerBuilder(options_of(MTBreakerOptions, llm=stack["llm"], mt=[stack["mt"]], qe=stack["qe_a"]))
    assert z.temperature == m.temperature and z.max_tokens == m.max_tokens
    z.process(Item(0, {"src": "a b c d e"}), item_rng(1, 0))
    assert stack["servers"]["llm"].requests[-1]["body"]["temperature"] == m.temperature


# -- CLI end to end through the real entry point, without Apertium -----------------------------------------
def test_cli_mtbreaker_zeroshot_and_evaluate_end_to_end(stack, tmp_path):
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\nThe dog barks.\nTax law is complicated.\n", encoding="utf-8")
    qe = f"{stack['qe_a']},{stack['qe_b']}"
    common = ["--seeds", str(seeds), "--llm", stack["llm"], "--mt", stack["mt"], "--qe", qe, "--no-language-guard"]
    code, out, err = cli("build", "mtbreaker", *common, "--steps", "4", "--out", str(tmp_path / "es"))
    assert code == 0, err
    manifest = json.loads((tmp_path / "es" / "build.json").read_text())
    recs = load_records(tmp_path / "es").to_pylist()
    assert len(recs) == 2 and manifest["counts"]["failures"]["qe_failures"] == sum(r["qe_failures"] for r in recs) > 0
    assert manifest["counts"]["failures"]["mt_failures"] == sum(r["mt_failures"] for r in recs) > 0
    assert "qe_failures=" in out and "|qe:llm-as-qe:" in manifest["signature"]
    code, out, err = cli(
        "build", "mtbreaker", *common, "--steps", "2", "--tgt-lang", "de", "--out", str(tmp_path / "de")
    )
    assert code == 0, err
    code, out, err = cli(
        "build", "zeroshot", *common[:-1], "--variant", "min", "--generations", "3", "--out", str(tmp_path / "zs")
    )
    assert code == 0, err
    zs = json.loads((tmp_path / "zs" / "build.json").read_text())
    assert "|generations:3|" in zs["signature"] and "|n:2|" in zs["signature"] and zs["config"]["generations"] == 3
    assert all(len(r["trajectory"]) == 3 for r in load_records(tmp_path / "zs").to_pylist())
    with ScriptedServer(default=lambda m: '"error_modes": ["idioms", "terminology"],') as judge:
        code, out, err = cli(
            "evaluate",
            "breaker",
            "--set",
            f"{tmp_path / 'es'},{tmp_path / 'de'}",
            "--judge",
            f"openai:j@{judge.url}",
            "--json",
        )
    assert code == 0, err
    report = json.loads(out)
    from sacrebleu.metrics import CHRF

    chrf = CHRF(word_order=2)
    # two sets of two target languages: one Table 2 row per (method, language pair), each measured on its own set
    texts = [r["text"] for r in recs]
    others = [[b for j, b in enumerate(texts) if j != i] for i in range(len(texts))]
    all_others = chrf.corpus_score(texts, [[o[k] for o in others] for k in range(len(texts) - 1)]).score
    assert {"mtbreaker-seeded en-es", "mtbreaker-seeded en-de", "seeds en-es", "seeds en-de"} <= set(report["table2"])
    row = report["table2"]["mtbreaker-seeded en-es"]
    # chrF++ (nw:2), Table 2: each text against all the others as references, corpus level (sacrebleu)
    assert row["diversity_chrf"] == pytest.approx(1 - all_others / 100)
    assert row["items"] == len(recs) and report["table2"]["mtbreaker-seeded en-de"]["items"] == 2
    assert row["diversity_errors"] == 2 and row["error_analysis_failures"] == 0
    steps = [s["qe_mean"] for r in recs for s in r["trajectory"] if s["qe_mean"] is not None]
    mean = sum(steps) / len(steps)
    assert row["qe_step_variance"] == pytest.approx(sum((x - mean) ** 2 for x in steps) / len(steps))
    words = [w for t in texts for w in t.split()]  # whitespace words: the paper's Seeds column
    assert row["avg_word_length"] == pytest.approx(sum(map(len, words)) / len(words))
    # Table 2's complexity & style rows that run offline: rarity (wordfreq), syntax (spaCy), grammaticality (Harper)
    from mtgauntlet.models import registry

    rarity = registry.load("difficulty", "rarity").difficulty(texts, src_lang="en")
    assert row["word_rarity"] == pytest.approx(sum(rarity) / len(rarity))
    assert row["syntax_complexity"] > 0 and 0 <= row["grammaticality"] <= 100
    seeds = report["table2"]["seeds en-es"]  # the paper's Seeds column: step 0 of the seeded trajectories
    assert seeds["qe_mean"] == pytest.approx(sum(r["trajectory"][0]["qe_mean"] for r in recs) / len(recs))
    assert set(report["per_lp"]) == {"en-es", "en-de"} and report["per_lp"]["en-es"]["items"] == len(recs)
    # two target languages: the language-transfer table (Table 5), rows built for, columns translated into
    lt = report["language_transfer"]
    assert set(lt) == {"mtbreaker-seeded en-de", "mtbreaker-seeded en-es"} and set(lt["mtbreaker-seeded en-es"]) == {
        "de",
        "es",
    }
    assert report["mt_failures"] == sum(r["mt_failures"] for r in recs) + sum(
        r["mt_failures"] for r in load_records(tmp_path / "de").to_pylist()
    )
    # the transfer matrix (Table 4) translates each set into its own target language (issue #30.10)
    stack["servers"]["mt"].requests.clear()
    code, out, err = cli(
        "evaluate",
        "breaker",
        "--set",
        f"{tmp_path / 'es'},{tmp_path / 'de'}",
        "--mt",
        stack["mt"],
        "--qe",
        stack["qe_a"],
        "--json",
    )
    assert code == 0, err
    transfer = json.loads(out)["transfer"]
    assert set(transfer) == {"en-es", "en-de"}
    asked = {}  # (texts already translated while building are answered from the cache: no request)
    for req in stack["servers"]["mt"].requests:
        prompt = req["body"]["messages"][-1]["content"]
        source = prompt.rsplit("Source text: ", 1)[-1]
        asked[source] = prompt
    de_texts = [r["text"] for r in load_records(tmp_path / "de").to_pylist()]
    assert all("German" in asked[t] and "Spanish" not in asked[t] for t in de_texts if t in asked)
    assert all("Spanish" in asked[t] for t in (r["text"] for r in recs) if t in asked)


def test_cli_zeroshot_where_every_item_failed_is_an_error(tmp_path):
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\nThe dog barks.\n", encoding="utf-8")
    with scripted_stack(editor_fn=lambda m: "I will not write that.") as s:
        code, out, err = cli(
            "build",
            "zeroshot",
            "--seeds",
            str(seeds),
            "--llm",
            s["llm"],
            "--mt",
            s["mt"],
            "--qe",
            s["qe_a"],
            "--out",
            str(tmp_path / "zs"),
        )
    assert code == 2 and "the build produced no record from 1 item(s) (llm_failed=1)" in err.splitlines()[-1]
    assert "Traceback" not in err


# -- against Apertium (real target model) ---------------------------------------------------------------
@needs_apertium
def test_seeded_loop_steps_history_and_selection(server):
    b = _builder(server)
    seed = "The dog does not bark at night."
    res = b.process(Item(0, {"src": seed}), item_rng(1, 0))
    rec = res.records[0]
    traj = rec["trajectory"]
    assert [s["step"] for s in traj] == [0, 1, 2, 3] and traj[0]["source"] == seed
    assert rec["llm_failures"] == 0 and len(server.requests) == 3
    last = server.requests[-1]["body"]["messages"]
    assert last[1] == {"role": "assistant", "content": f"SOURCE |||{seed}|||"}
    translations = [m["content"] for m in last if m["role"] == "user"][1:]
    assert len(translations) == 3 and all("TRANSLATION |||" in t for t in translations)
    assert traj[0]["translations"][0] in translations[0]  # the follow-up shows the target model's translation
    qe = registry.load("qe", "roundtrip")
    expected = qe.score([s["source"] for s in traj], [s["translations"][0] for s in traj], "en", "es")
    assert [s["qe_mean"] for s in traj] == pytest.approx(expected)
    best = min(traj, key=lambda s: (s["qe_mean"], s["step"]))
    assert rec["text"] == best["source"] and rec["difficulty"] == pytest.approx(100 - best["qe_mean"])
    assert "SCORE" not in " ".join(translations)


@needs_apertium
def test_multi_model_average(server):
    with ScriptedServer(default=lambda m: "<START OF TRANSLATION>Un texto.</END OF TRANSLATION>") as mt2:
        b = _builder(server, mt=["apertium", f"llm-as-translator:openai:mt@{mt2.url}"], steps=1)
        rec = b.process(Item(0, {"src": "The cat sleeps."}), item_rng(1, 0)).records[0]
    for s in rec["trajectory"]:
        assert len(s["qe"]) == 2 and s["qe_mean"] == pytest.approx(sum(s["qe"]) / 2)
        assert s["translations"][1] == "Un texto."
    assert rec["target_models"][0] == "apertium"


@needs_apertium
def test_malformed_answers_are_retried_then_counted(server):
    b = _builder(server, steps=2, retries=1)
    server.script = [("ok", "no markers at all"), ("ok", "SOURCE ||| |||"), ("ok", "still nothing")]
    rec = b.process(Item(0, {"src": "The dog barks."}), item_rng(1, 0)).records[0]
    # step 1: two unusable answers (1 try + 1 retry) -> counted and skipped; step 2: "still nothing", then ok
    assert rec["llm_failures"] == 1
    assert [s["step"] for s in rec["trajectory"]] == [0, 2]


@needs_apertium
def test_zeroshot_variants(server):
    z = ZeroShotBuilder(
        options_of(
            ZeroShotOptions, variant="min", llm=f"openai:z@{server.url}", mt=["apertium"], qe="roundtrip", generations=3
        )
    )
    rec = z.process(Item(0, {"src": "a b c d e"}), item_rng(1, 0)).records[0]
    assert rec["method"] == "zeroshot-min" and len(rec["trajectory"]) == 3
    assert rec["qe_score"] == min(s["qe_mean"] for s in rec["trajectory"])
    h = ZeroShotBuilder(
        options_of(ZeroShotOptions, variant="history", llm=f"openai:z@{server.url}", mt=["apertium"], qe="roundtrip")
    )
    h.process(Item(0, {"src": "a b c"}), item_rng(1, 0))
    h.process(Item(1, {"src": "a b c"}), item_rng(1, 1))
    prompt = server.requests[-1]["body"]["messages"][0]["content"]
    assert "previously generated texts" in prompt and "The old ledger" in prompt


@needs_apertium
def test_cli_build_resumes_without_repeating_calls(server, tmp_path):
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\nThe dog barks.\nTax law is complicated.\nShe sold the house.\n", encoding="utf-8")
    out = tmp_path / "out"
    args = [
        "build",
        "mtbreaker",
        "--seeds",
        str(seeds),
        "--llm",
        f"openai:editor@{server.url}",
        "--mt",
        "apertium",
        "--qe",
        "roundtrip",
        "--steps",
        "2",
        "--shard-size",
        "1",
        "--out",
        str(out),
    ]
    server.script = [("ok", None)] * 2 + [("status", 500)] * 50  # the server dies during the second seed
    r = invoke(args)
    assert r.exit_code != 0
    assert len(list((out / "data").glob("part-*.parquet"))) == 1
    server.script = []
    before = len(server.requests)
    r = invoke(args)
    assert r.exit_code == 0, r.output
    recs = load_records(out).to_pylist()
    assert len(recs) == 3 and len({r["seed"] for r in recs}) == 3
    # the finished first seed was not redone: only seeds 2 and 3 asked the LLM (2 steps each)
    assert len(server.requests) - before == 4
    curve = invoke(["evaluate", "breaker", "--set", str(out), "--plot", str(tmp_path / "c.png"), "--json"])
    assert curve.exit_code == 0, curve.output
    assert (tmp_path / "c.png").stat().st_size > 1000
    report = json.loads(curve.stdout)
    assert report["items"] == 3 and report["edit_steps"] == 6 and len(report["step_curve"]) == 3
    assert report["start_mean_qe"] == pytest.approx(sum(r["trajectory"][0]["qe_mean"] for r in recs) / 3)
    assert report["final_mean_qe"] == pytest.approx(sum(r["qe_score"] for r in recs) / 3)
    edits = [s["qe_mean"] for r in recs for s in r["trajectory"] if s["step"] > 0]
    assert report["edit_mean_qe"] == pytest.approx(sum(edits) / len(edits))
    assert report["items_improved"] == sum(r["qe_score"] < r["trajectory"][0]["qe_mean"] for r in recs)


@needs_apertium
def test_language_guard_rejects_answers_in_the_target_language(server):
    pytest.importorskip("lingua")
    b = _builder(server, steps=1, retries=0, language_guard=True)
    server.script = [("ok", "SOURCE |||El perro no ladra por la noche en la ciudad.|||")]
    rec = b.process(Item(0, {"src": "The dog does not bark at night in the city."}), item_rng(1, 0)).records[0]
    assert rec["llm_failures"] == 1 and [s["step"] for s in rec["trajectory"]] == [0]
    off = _builder(server, steps=1, retries=0, language_guard=False)
    server.script = [("ok", "SOURCE |||El perro no ladra por la noche en la ciudad.|||")]
    rec = off.process(Item(0, {"src": "The dog does not bark at night in the city."}), item_rng(1, 0)).records[0]
    assert rec["llm_failures"] == 0 and len(rec["trajectory"]) == 2


@needs_apertium
def test_answers_that_copy_the_prompt_are_not_sources(server):
    # seen with the embedded 135M LLM: an unterminated SOURCE span followed by the follow-up's instructions
    echo = (
        "SOURCE |||The senator resigned on Monday. |\nTry to make it even more difficult to translate. Modify "
        "at most 75% of the best SOURCE so far."
    )
    b = _builder(server, steps=2, retries=0)
    server.script = [("ok", echo), ("ok", "SOURCE |||The senator, having resigned, left on Monday.|||")]
    rec = b.process(Item(0, {"src": "The senator resigned on Monday."}), item_rng(1, 0)).records[0]
    assert rec["llm_failures"] == 1
    assert [s["source"] for s in rec["trajectory"]][1:] == ["The senator, having resigned, left on Monday."]


def test_seedless_writes_as_many_texts_as_zeroshot_min_generates(stack):
    """The paper's zero-shot (min) runs "10x (same number of steps as MT-breaker)": seedless with --steps 4 picks
    from 4 LLM texts (its first and 3 edits), as zero-shot with --generations 4; seeded edits its seed 4 times."""
    for variant, candidates in (("seedless", 4), ("seeded", 5)):  # (the request cache may answer some calls)
        stack["reset"]()
        rec = (
            _scripted(stack, variant=variant, steps=4, retries=0)
            .process(Item(0, {"src": "The clerk kept the ledger."}), item_rng(1, 0))
            .records[0]
        )
        assert len(rec["trajectory"]) == candidates and [s["step"] for s in rec["trajectory"]] == list(
            range(candidates)
        )
    z = ZeroShotBuilder(
        options_of(ZeroShotOptions, variant="min", llm=stack["llm"], mt=[stack["mt"]], qe=stack["qe_a"], generations=4)
    )
    rec = z.process(Item(0, {"src": "The clerk kept the ledger."}), item_rng(1, 0)).records[0]
    assert len(rec["trajectory"]) == 4  # (its first generation is seedless's step 0: the request cache answers it)


# -- issue 30 item 7: the paper's chat history, all earlier texts, the language guard opt-in and stated -------
def test_editor_history_keeps_its_answers_as_written(stack):
    b = _scripted(stack, variant="seedless", steps=4, retries=0)  # step 1 fails QE: it leaves the history
    b.process(Item(0, {"src": "a b c d e f"}), item_rng(1, 0))
    asked = [r["body"]["messages"] for r in stack["servers"]["llm"].requests]
    answers = [m["content"] for m in asked[-1] if m["role"] == "assistant"]
    # the editor's answers, reasoning included, as it wrote them — not only SOURCE |||x|||
    assert len(answers) == 2 and answers[0].startswith("Here you go. SOURCE |||The old ledger")
    assert answers[1].startswith("I made it harder. SOURCE |||") and answers[0] in asked[1][1]["content"]
    stack["reset"]()
    _scripted(stack, steps=1, retries=0).process(Item(0, {"src": "He painted the barn red."}), item_rng(1, 0))
    seeded = stack["servers"]["llm"].requests[-1]["body"]["messages"]
    assert seeded[1] == {
        "role": "assistant",
        "content": "SOURCE |||He painted the barn red.|||",
    }  # no LLM wrote the seed


def test_language_guard_is_opt_in_and_stated_in_the_card(stack, tmp_path):
    from mtgauntlet.cards.card import build_notes

    for options in (MTBreakerOptions, ZeroShotOptions):  # the declared default (the builders take the options)
        assert options.__dataclass_fields__["language_guard"].default is False
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\nThe dog barks.\n", encoding="utf-8")
    common = ["--seeds", str(seeds), "--llm", stack["llm"], "--mt", stack["mt"], "--qe", stack["qe_a"]]
    notes = {}
    for name, extra in [("off", []), ("on", ["--language-guard"])]:
        code, out, err = cli("build", "mtbreaker", *common, "--steps", "1", *extra, "--out", str(tmp_path / name))
        assert code == 0, err
        notes[name] = build_notes({"builds": [json.loads((tmp_path / name / "build.json").read_text())]})
    assert not any("language guard" in n for n in notes["off"])
    assert any("language guard on (not in the paper)" in n for n in notes["on"])


def test_card_states_the_permanent_departures(stack, tmp_path):
    """MT-breaker's departures that stay (issue #37.9) are in the card of every set built that way, as SMAUG's:
    the temperature the paper does not give, the plain variants' follow-up wording (not for +qe), how Chinese and
    Japanese words were counted; zero-shot's history wording."""
    from mtgauntlet.cards.card import build_notes

    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\nThe dog barks.\n", encoding="utf-8")
    common = ["--seeds", str(seeds), "--llm", stack["llm"], "--mt", stack["mt"], "--qe", stack["qe_a"]]
    notes = {}
    for name, extra in [("plain", []), ("qe", ["--variant", "seeded+qe"]), ("zh", ["--src-lang", "zh"])]:
        code, out, err = cli("build", "mtbreaker", *common, "--steps", "1", *extra, "--out", str(tmp_path / name))
        assert code == 0, err
        notes[name] = "\n".join(build_notes({"builds": [json.loads((tmp_path / name / "build.json").read_text())]}))
    assert all("sampling temperature 0.8 (the paper gives none)" in n for n in notes.values())
    assert "follow-up wording" in notes["plain"] and "follow-up wording" not in notes["qe"]
    assert "jieba" in notes["zh"] and "jieba" not in notes["plain"]
    with scripted_stack(editor_fn=lambda m: "Here. SOURCE |||The ledger was kept in the county office.|||") as s:
        code, out, err = cli(
            "build",
            "zeroshot",
            "--seeds",
            str(seeds),
            "--llm",
            s["llm"],
            "--mt",
            s["mt"],
            "--qe",
            s["qe_a"],
            "--variant",
            "history",
            "--out",
            str(tmp_path / "zs"),
        )
    assert code == 0, err
    zs = "\n".join(build_notes({"builds": [json.loads((tmp_path / "zs" / "build.json").read_text())]}))
    assert "history prompt wording is this project's" in zs and "temperature 0.8" in zs


def test_zeroshot_history_lists_all_earlier_texts_unless_capped(stack, tmp_path):
    def prompts_of(**kw):
        stack["reset"]()
        z = ZeroShotBuilder(
            options_of(ZeroShotOptions, variant="history", llm=stack["llm"], mt=[stack["mt"]], qe=stack["qe_a"], **kw)
        )
        for i in range(32):  # texts whose translation or score failed are not kept: about 3 in 4 are
            earlier = list(z.history)
            z.process(Item(i, {"src": "a b c d e f"}), item_rng(1, i))
        return earlier, z, stack["servers"]["llm"].requests[-1]["body"]["messages"][0]["content"]

    earlier, z, prompt = prompts_of()
    listed = [line for line in prompt.splitlines() if line.startswith("- ")]
    assert len(earlier) > 20 and listed == [f"- {t}" for t in earlier]  # the paper: every earlier text
    assert "history_size" not in z.config()["flags"] and "this project's" in z.config()["flags"]["history_wording"]
    earlier, z, prompt = prompts_of(history_size=5)
    assert [line for line in prompt.splitlines() if line.startswith("- ")] == [f"- {t}" for t in earlier[-5:]]
    assert "last 5 earlier texts" in z.config()["flags"]["history_size"]
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\nThe dog barks.\nTax law is complicated.\n", encoding="utf-8")
    code, out, err = cli(
        "build",
        "zeroshot",
        "--seeds",
        str(seeds),
        "--llm",
        stack["llm"],
        "--mt",
        stack["mt"],
        "--qe",
        stack["qe_a"],
        "--variant",
        "history",
        "--history-size",
        "1",
        "--out",
        str(tmp_path / "zs"),
    )
    assert code == 0, err
    from mtgauntlet.cards.card import build_notes

    notes = build_notes({"builds": [json.loads((tmp_path / "zs" / "build.json").read_text())]})
    assert any("history capped (not in the paper)" in n and "last 1 " in n for n in notes)


def test_wmt24_sample_draws_the_same_english_sources_for_every_target_language(shared_data):
    """The paper's 100 sampled English sources are compared across target languages (Table 5, "Seeds"): the draw is
    by the source text, not by WMT24's pair-specific id (``en-cs:1``), which overlapped on 10-12 of 100."""
    from mtgauntlet.builders.breaker_sources import keyed_sample
    from mtgauntlet.corpora.formats import read_wmt24

    path = shared_data / "wmt24-general-testset/wmt24_general_testset.tsv.gz"
    drawn = {}
    for lp in ("en-cs", "en-de", "en-zh"):
        rows = read_wmt24(path, lp=lp).rows
        sample = keyed_sample(rows, 100, 13)
        assert len(sample) == 100 and sample[0]["source_id"].startswith(f"{lp}:")
        drawn[lp] = {r["src"] for r in sample}
    # 992 texts are shared by the three pairs, 5 of each pair's 997 are not: only those could enter one draw alone
    assert len(drawn["en-cs"] & drawn["en-de"] & drawn["en-zh"]) == 100


def test_build_json_names_the_drawn_seeds_before_any_record(tmp_path):
    """build.json lists the drawn seeds (source id, sha256 of the text) when the build is planned, so a build that
    stopped (budget) or failed (no record) still says which sources it was about."""
    import hashlib

    seeds = tmp_path / "seeds.tsv"
    texts = ["The dog barks.", "Tax law is complicated.", "She sold the house."]
    seeds.write_text("text\n" + "\n".join(texts) + "\n", encoding="utf-8")
    sha = {hashlib.sha256(t.encode()).hexdigest(): t for t in texts}
    with scripted_stack() as s:
        code, out, err = cli(
            "build",
            "mtbreaker",
            "--seeds",
            str(seeds),
            "--llm",
            s["llm"],
            "--mt",
            s["mt"],
            "--qe",
            s["qe_a"],
            "--sample",
            "2",
            "--steps",
            "2",
            "--max-requests",
            "1",
            "--out",
            str(tmp_path / "cut"),
        )
    assert code == 3, err
    manifest = json.loads((tmp_path / "cut" / "build.json").read_text())
    assert manifest["status"] == "in_progress" and not list((tmp_path / "cut").glob("data/part-*"))
    assert len(manifest["seeds"]) == 2 and all(x["sha256"] in sha and x["source_id"] for x in manifest["seeds"])
    with scripted_stack(editor_fn=lambda m: "I will not write that.") as s:
        code, out, err = cli(
            "build",
            "zeroshot",
            "--seeds",
            str(seeds),
            "--llm",
            s["llm"],
            "--mt",
            s["mt"],
            "--qe",
            s["qe_a"],
            "--out",
            str(tmp_path / "zs"),
        )
    assert code == 2 and "produced no record" in err
    zs = json.loads((tmp_path / "zs" / "build.json").read_text())
    assert [sha[x["sha256"]] for x in zs["seeds"]] == texts


def _flores(shared_data, n=40):
    import csv
    import gzip

    with gzip.open(
        shared_data / "flores200-devtest/flores200_devtest.tsv.gz", "rt", encoding="utf-8", newline=""
    ) as fh:
        return [r for _, r in zip(range(n), csv.DictReader(fh, delimiter="\t"))]


@pytest.mark.parametrize("column,lang", [("cmn_Hans", "zh"), ("jpn", "ja")])
def test_words_of_scripts_without_spaces_are_comparable_to_english(shared_data, column, lang):
    """A Chinese or Japanese sentence is not "2 words": over 40 FLORES sentences its count is within 25% of the
    parallel English's word count (the ``\\w+`` count was a handful per sentence), with and without the language."""
    from mtgauntlet.builders.breaker_sources import usable_source, words

    rows = _flores(shared_data)
    english = sum(words(r["eng"], "en") for r in rows)
    for given in (lang, None):
        counted = sum(words(r[column], given) for r in rows)
        assert 0.75 * english <= counted <= 1.25 * english, (given, counted, english)
    assert sum(len(re.findall(r"\w+", r[column])) for r in rows) < 0.3 * english  # what `\w+` runs gave
    unpunctuated = {"zh": "我们每天早上在公园里散步", "ja": "私は毎朝公園を散歩します"}[lang]
    assert usable_source(unpunctuated, lang) and words(unpunctuated, lang) >= 4


@pytest.mark.parametrize("column,lang", [("eng", "en"), ("rus", "ru"), ("kor", "ko"), ("hin", "hi")])
def test_words_of_spaced_scripts_are_unchanged(shared_data, column, lang):
    from mtgauntlet.builders.breaker_sources import words

    for r in _flores(shared_data, 10):
        assert words(r[column], lang) == len(re.findall(r"\w+", r[column]))


@pytest.mark.parametrize("column,lang", [("cmn_Hans", "zh"), ("jpn", "ja")])
def test_prompt_length_target_counts_chinese_and_japanese_words(stack, shared_data, column, lang):
    from mtgauntlet.builders.breaker_sources import words

    seed = _flores(shared_data, 1)[0][column]
    _scripted(stack, steps=1, src_lang=lang, tgt_lang="en").process(Item(0, {"src": seed}), item_rng(1, 0))
    first = stack["servers"]["llm"].requests[-1]["body"]["messages"][0]["content"]
    n = int(re.search(r"approximately (\d+) words", first).group(1))
    assert n == words(seed, lang) and n >= 0.75 * words(_flores(shared_data, 1)[0]["eng"])


def test_the_card_says_how_chinese_words_were_counted(monkeypatch):
    """With jieba the card says jieba; without it the count falls back to characters / 1.74 and the card says so."""
    from mtgauntlet.builders.breaker_sources import word_count_flag
    from mtgauntlet.corpora.word_count import words

    text = "我们今天去北京的图书馆看书。"
    assert "jieba segmenter" in word_count_flag("zh")["word_count"]
    monkeypatch.setitem(sys.modules, "jieba", None)  # as if not installed: import jieba raises ImportError
    flag = word_count_flag("zh")["word_count"]
    assert "jieba" not in flag.split("(")[0] and "Han characters / 1.74" in flag and "not installed" in flag
    assert words(text, "zh") == round(13 / 1.74)
