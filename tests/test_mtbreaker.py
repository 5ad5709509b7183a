"""MT-breaker and zero-shot loops driven by a deterministic LLM served over the real OpenAI-compatible
protocol (local HTTP server), Apertium as the target model and round-trip QE."""

import json
import re
import shutil

import pytest
from typer.testing import CliRunner

from tests.openai_server import ScriptedServer
from mtgauntlet.records import load_records
from mtgauntlet.builders.mtbreaker import MTBreakerBuilder
from mtgauntlet.builders.zeroshot import ZeroShotBuilder
from mtgauntlet.runner.build_runner import item_rng
from mtgauntlet.builders.base import Item
from mtgauntlet.cli.main import app
from mtgauntlet.models import registry

pytestmark = pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium not installed")
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


def _builder(srv, **kw):
    args = dict(variant="seeded", llm=f"openai:editor@{srv.url}", mt=["apertium"], qe="roundtrip", steps=3,
                src_lang="en", tgt_lang="es", temperature=0.7)
    args.update(kw)
    return MTBreakerBuilder(**args)


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


def test_qe_variant_shows_score_and_75_percent_rule(server):
    b = _builder(server, variant="seeded+qe", steps=2)
    b.process(Item(0, {"src": "Tax law is complicated."}), item_rng(1, 0))
    followups = [m["content"] for m in server.requests[-1]["body"]["messages"] if m["role"] == "user"][1:]
    assert all(re.search(r"SCORE \|\|\|\d+\.\d%\|\|\|", f) for f in followups)
    assert all("Modify at most 75% of the best SOURCE" in f for f in followups)


def test_seedless_first_prompt_is_length_matched(server):
    b = _builder(server, variant="seedless", steps=1)
    rec = b.process(Item(0, {"src": "one two three four five six seven"}), item_rng(1, 0)).records[0]
    first = server.requests[0]["body"]["messages"][0]["content"]
    assert "approximately 7 words" in first and "English" in first and "Spanish" in first
    assert rec["seed"] is None and rec["trajectory"][0]["source"].startswith("The old ledger")


def test_multi_model_average(server):
    with ScriptedServer(default=lambda m: "<START OF TRANSLATION>Un texto.</END OF TRANSLATION>") as mt2:
        b = _builder(server, mt=["apertium", f"llm-as-translator:openai:mt@{mt2.url}"], steps=1)
        rec = b.process(Item(0, {"src": "The cat sleeps."}), item_rng(1, 0)).records[0]
    for s in rec["trajectory"]:
        assert len(s["qe"]) == 2 and s["qe_mean"] == pytest.approx(sum(s["qe"]) / 2)
        assert s["translations"][1] == "Un texto."
    assert rec["target_models"][0] == "apertium"


def test_malformed_answers_are_retried_then_counted(server):
    b = _builder(server, steps=2, retries=1)
    server.script = [("ok", "no markers at all"), ("ok", "SOURCE ||| |||"), ("ok", "still nothing")]
    rec = b.process(Item(0, {"src": "The dog barks."}), item_rng(1, 0)).records[0]
    # step 1: two unusable answers (1 try + 1 retry) -> counted and skipped; step 2: "still nothing", then ok
    assert rec["llm_failures"] == 1
    assert [s["step"] for s in rec["trajectory"]] == [0, 2]


def test_zeroshot_variants(server):
    z = ZeroShotBuilder(variant="min", llm=f"openai:z@{server.url}", mt=["apertium"], qe="roundtrip", n=3)
    rec = z.process(Item(0, {"src": "a b c d e"}), item_rng(1, 0)).records[0]
    assert rec["method"] == "zeroshot-min" and len(rec["trajectory"]) == 3
    assert rec["qe_score"] == min(s["qe_mean"] for s in rec["trajectory"])
    h = ZeroShotBuilder(variant="history", llm=f"openai:z@{server.url}", mt=["apertium"], qe="roundtrip")
    h.process(Item(0, {"src": "a b c"}), item_rng(1, 0))
    h.process(Item(1, {"src": "a b c"}), item_rng(1, 1))
    prompt = server.requests[-1]["body"]["messages"][0]["content"]
    assert "previously generated texts" in prompt and "The old ledger" in prompt


def test_cli_build_resumes_without_repeating_calls(server, tmp_path):
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\nThe dog barks.\nTax law is complicated.\nShe sold the house.\n", encoding="utf-8")
    out = tmp_path / "out"
    args = ["build", "mtbreaker", "--seeds", str(seeds), "--llm", f"openai:editor@{server.url}", "--mt", "apertium",
            "--qe", "roundtrip", "--steps", "2", "--out", str(out)]
    server.script = [("ok", None)] * 2 + [("status", 500)] * 50  # the server dies during the second seed
    r = CliRunner().invoke(app, args)
    assert r.exit_code != 0
    assert len(list((out / "data").glob("part-*.parquet"))) == 1
    server.script = []
    before = len(server.requests)
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    recs = load_records(out).to_pylist()
    assert len(recs) == 3 and len({r["seed"] for r in recs}) == 3
    # the finished first seed was not redone: only seeds 2 and 3 asked the LLM (2 steps each)
    assert len(server.requests) - before == 4
    curve = CliRunner().invoke(app, ["evaluate", "breaker", "--set", str(out), "--plot", str(tmp_path / "c.png"),
                                     "--json"])
    assert curve.exit_code == 0, curve.output
    assert (tmp_path / "c.png").stat().st_size > 1000
    report = json.loads(curve.output)
    assert report["items"] == 3 and report["edit_steps"] == 6 and len(report["step_curve"]) == 3
    assert report["start_mean_qe"] == pytest.approx(sum(r["trajectory"][0]["qe_mean"] for r in recs) / 3)
    assert report["final_mean_qe"] == pytest.approx(sum(r["qe_score"] for r in recs) / 3)
    edits = [s["qe_mean"] for r in recs for s in r["trajectory"] if s["step"] > 0]
    assert report["edit_mean_qe"] == pytest.approx(sum(edits) / len(edits))
    assert report["items_improved"] == sum(r["qe_score"] < r["trajectory"][0]["qe_mean"] for r in recs)


def test_language_guard_rejects_answers_in_the_target_language(server):
    pytest.importorskip("lingua")
    b = _builder(server, steps=1, retries=0)
    server.script = [("ok", "SOURCE |||El perro no ladra por la noche en la ciudad.|||")]
    rec = b.process(Item(0, {"src": "The dog does not bark at night in the city."}), item_rng(1, 0)).records[0]
    assert rec["llm_failures"] == 1 and [s["step"] for s in rec["trajectory"]] == [0]
    off = _builder(server, steps=1, retries=0, language_guard=False)
    server.script = [("ok", "SOURCE |||El perro no ladra por la noche en la ciudad.|||")]
    rec = off.process(Item(0, {"src": "The dog does not bark at night in the city."}), item_rng(1, 0)).records[0]
    assert rec["llm_failures"] == 0 and len(rec["trajectory"]) == 2


def test_answers_that_copy_the_prompt_are_not_sources(server):
    # seen with the embedded 135M LLM: an unterminated SOURCE span followed by the follow-up's instructions
    echo = ("SOURCE |||The senator resigned on Monday. |\nTry to make it even more difficult to translate. Only make "
            "grammatical edits: the text must be grammatically correct.")
    b = _builder(server, steps=2, retries=0)
    server.script = [("ok", echo), ("ok", "SOURCE |||The senator, having resigned, left on Monday.|||")]
    rec = b.process(Item(0, {"src": "The senator resigned on Monday."}), item_rng(1, 0)).records[0]
    assert rec["llm_failures"] == 1
    assert [s["source"] for s in rec["trajectory"]][1:] == ["The senator, having resigned, left on Monday."]
