"""The bandit's LLM sampler keeps every usable snippet of an answer with its URL, sends the token limit and
temperature it is given, counts cut answers; a search over several target languages rewards a pull with the mean
over them. All against the local OpenAI-compatible server."""

import json
import random

import pyarrow.parquet as pq
import pytest

from mtgauntlet.builders.bandit import topics as T
from mtgauntlet.builders.bandit.sampler import LLMSampler
from mtgauntlet.models import registry
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import cli, qe_server_answer, scripted_stack


def snippet(tag: str, url: str | None = "auto") -> dict:
    text = " ".join([tag] + [f"w{i}" for i in range(24)])  # 25 words: inside the paper's 20-40
    return {"text": text, "source_url": f"http://example.com/{tag}" if url == "auto" else url}


def answer(*snippets: dict) -> str:
    return json.dumps({"extracted_snippets": list(snippets)})


def test_every_snippet_of_an_answer_is_drawn_with_its_url_before_asking_again():
    a, b, c = snippet("alpha"), snippet("beta", url=None), snippet("gamma")
    with ScriptedServer(default=lambda m: answer(snippet("delta"))) as srv:
        srv.script = [("ok", answer(a, b, a, c))]  # a repeated: one text once
        sampler = LLMSampler(registry.load("llm", f"openai:s@{srv.url}"), max_tokens=300, temperature=0.3)
        topic, rng = T.Topic("tax law", ["tax law"]), random.Random(1)
        used: set[str] = set()
        drawn = []
        for _ in range(4):
            got = sampler.sample(topic, used, rng)
            used.add(got["source_id"])
            drawn.append(got)
        assert [d["text"].split()[0] for d in drawn] == ["alpha", "beta", "gamma", "delta"]
        assert [d["url"] for d in drawn] == [
            "http://example.com/alpha",
            None,
            "http://example.com/gamma",
            "http://example.com/delta",
        ]
        assert len(srv.requests) == 2  # three pulls from one answer, the fourth asked again
        assert {(r["body"]["max_tokens"], r["body"]["temperature"]) for r in srv.requests} == {(300, 0.3)}
        assert sampler.failures["sampler_calls"] == 2 and sampler.state() == {"pool": {}}


def test_an_answer_cut_by_the_token_limit_is_counted_and_its_complete_snippets_kept():
    a, b = snippet("alpha"), snippet("beta")
    cut = answer(a, b)[:-40]  # the limit ended it inside beta's URL
    with ScriptedServer(default=lambda m: cut) as srv:
        sampler = LLMSampler(registry.load("llm", f"openai:s@{srv.url}"))
        got = sampler.sample(T.Topic("music", ["music"]), set(), random.Random(2))
        assert got["text"].startswith("alpha") and got["url"] == "http://example.com/alpha"
        assert sampler.failures["sampler_truncated_failures"] == 1 and "sampler_failures" not in sampler.failures
        assert sampler.state() == {"pool": {}}  # beta was cut: never used


def _translator(messages) -> str:
    prompt = messages[-1]["content"]
    source = prompt.rsplit("Source text: ", 1)[-1]
    tag = "CS" if "Czech" in prompt else "DE" if "German" in prompt else "XX"
    return f"<START OF TRANSLATION>{tag} {source}</END OF TRANSLATION>"


def _qe(source: str, translation: str) -> float:
    return 80.0 if translation.startswith("CS") else 40.0  # Czech easy, German hard


def test_search_over_two_target_languages_rewards_the_mean_and_keeps_urls(tmp_path):
    taxonomy = tmp_path / "topics.yaml"
    taxonomy.write_text("- tax law\n- music\n", encoding="utf-8")

    def three(messages) -> str:  # three texts of the asked topic per answer
        tag = "tax" if "tax law" in messages[-1]["content"] else "music"
        return answer(*(snippet(f"{tag}{i}") for i in range(3)))

    with (
        ScriptedServer(default=three) as llm,
        ScriptedServer(default=_translator) as mt,
        ScriptedServer(default=qe_server_answer(_qe)) as qe,
        scripted_stack() as s,
    ):
        args = ["build", "bandit", "--topics", str(taxonomy), "--llm", f"openai:o@{llm.url}", "--sampler", "llm"]
        args += [
            "--mt",
            f"llm-as-translator:openai:mt@{mt.url}",
            "--mt",
            s["mt"],
            "--qe",
            f"llm-as-qe:openai:q@{qe.url}",
        ]
        args += ["--tgt-lang", "cs", "--tgt-lang", "de", "--budget", "4", "--k", "2", "--cap", "2"]
        code, out, err = cli(*args, "--sampler-max-tokens", "512", "--out", str(tmp_path / "b"))
        assert code == 0, err
        assert {r["body"]["max_tokens"] for r in llm.requests} == {512} and len(llm.requests) == 2  # 3 texts/answer
    m = json.loads((tmp_path / "b" / "build.json").read_text())
    assert "|tgt:cs+de|" in m["signature"] and m["config"]["tgt_langs"] == ["cs", "de"]
    from mtgauntlet.cards.card import build_notes

    notes = build_notes({"builds": [m]})  # the card: the texts' URLs, the sampler's settings
    assert any(
        n.endswith(
            "texts carry the source URL the LLM paired with the snippet (provenance_url); the URLs "
            "were not fetched or checked"
        )
        and " 0 of" not in n
        for n in notes
    )
    assert any("at most 512 tokens per answer (the paper gives neither" in n for n in notes)
    assert m["counts"]["pulls"] == 4 and m["counts"]["sampler_calls"] == 2
    from mtgauntlet.builders.bandit.pull_log import load_log

    pulls = load_log(tmp_path / "b")
    for p in pulls:
        assert len(p["translations"]) == 4  # 2 languages x 2 models, language by language
        # cs: this translator 80, the upper-casing one 40; de: 40 and 40 -> mean QE 50 (per language: 60 and 40)
        assert p["qe"] == [80.0, 40.0, 40.0, 40.0] and p["difficulty"] == pytest.approx(50.0)
        assert p["provenance_url"] == f"http://example.com/{p['text'].split()[0]}"
    records = pq.read_table(tmp_path / "b" / "data").to_pylist()
    assert records and all(
        r["tgt_lang"] is None and r["provenance_url"] == f"http://example.com/{r['text'].split()[0]}" for r in records
    )


class _StopAfter:
    """The LLM sampler (behind the search's topic adapter), interrupted after ``after`` steps."""

    def __init__(self, adapter, after):
        self.adapter, self.sampler, self.after, self.n, self.rows = adapter, adapter.sampler, after, 0, []

    def sample_many(self, ts, used, rng):
        self.n += 1
        if self.n > self.after:
            raise KeyboardInterrupt
        return self.adapter.sample_many(ts, used, rng)


def test_a_resumed_search_takes_up_the_undrawn_snippets(tmp_path):
    """The pools of undrawn snippets travel with the pull log: a search interrupted after 3 steps and resumed in a
    fresh process (a new sampler, empty pools) logs the pulls an uninterrupted one logs."""
    from mtgauntlet.builders.bandit.pull_log import load_log
    from mtgauntlet.builders.bandit.search import BanditSearch
    from mtgauntlet.builders.bandit.setup import TopicAdapter

    def three(messages, body) -> str:  # texts of the asked topic, depending on the request's seed
        tag = "tax" if "tax law" in messages[-1]["content"] else "music"
        return answer(*(snippet(f"{tag}{body.get('seed')}x{i}") for i in range(3)))

    three.wants_body = True
    topics = [T.Topic("tax law", ["tax law"]), T.Topic("music", ["music"])]
    with ScriptedServer(default=three) as llm, scripted_stack() as s:
        kw = dict(mt=[s["mt"]], qe=s["qe_a"], algorithm="eps-greedy", budget=8, k=2, cap=10, seed=3, source="llm")

        def adapter():
            return TopicAdapter(LLMSampler(registry.load("llm", f"openai:o@{llm.url}")), topics)

        full = BanditSearch(topics, adapter(), **kw).run(tmp_path / "full")
        with pytest.raises(KeyboardInterrupt):
            BanditSearch(topics, _StopAfter(adapter(), 3), **kw).run(tmp_path / "cut")
        assert list((tmp_path / "cut" / "pulls").glob("*.state.json"))
        resumed = BanditSearch(topics, adapter(), **kw).run(tmp_path / "cut")
    pulls = lambda d: [(r["topic"], r["source_id"], r["provenance_url"]) for r in load_log(d)]  # noqa: E731
    assert pulls(tmp_path / "cut") == pulls(tmp_path / "full") and resumed["top_topics"] == full["top_topics"]
    assert full["counts"]["sampler_calls"] < full["counts"]["pulls"]  # three texts an answer
