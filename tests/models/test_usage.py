"""Real runs with paid APIs (issue #28): usage accounting, budgets, dry runs, rate limits and JSON-schema answers,
against real OpenAI-compatible servers on 127.0.0.1 (tests/support/openai_server.py) that report usage as paid APIs do."""

import json
import re
import time

import pyarrow.parquet as pq
import pytest

from mtgauntlet.models.openai_compat import OpenAIChatLLM
from mtgauntlet.records import load_records
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import qe_a, qe_server_answer, scripted_stack, seeded_editor

SEEDS = [
    "The dog barks at night.",
    "Tax law is complicated for small firms.",
    "She sold the house in May.",
    "Rain is expected tomorrow across the north.",
    "The committee approved the budget.",
]
CONTENT = ("text", "seed", "trajectory", "qe_score", "llm_failures", "truncated", "mt_failures", "qe_failures")
PRICE = (2.5, 10.0)


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache"))
    for var in ("MTGAUNTLET_CONCURRENCY", "MTGAUNTLET_MAX_COST", "MTGAUNTLET_MAX_REQUESTS"):
        monkeypatch.setenv(var, "")  # unset, and restored after the test (global options publish them)


def _stack(**kw):
    return scripted_stack(editor_fn=seeded_editor(), **kw)


def _seeds(tmp_path):
    path = tmp_path / "seeds.tsv"
    path.write_text("text\n" + "".join(f"{s}\n" for s in SEEDS), encoding="utf-8")
    return path


def _args(s, tmp_path, out, llm_opts="#price=2.5/10", qe_opts="", steps=3):
    return [
        "build",
        "mtbreaker",
        "--seeds",
        _seeds(tmp_path),
        "--variant",
        "seeded+qe",
        "--steps",
        steps,
        "--llm",
        s["llm"] + llm_opts,
        "--mt",
        s["mt"],
        "--qe",
        f"{s['qe_a']}{qe_opts},{s['qe_b']}",
        "--no-language-guard",
        "--shard-size",
        "2",
        "--concurrency",
        "4",
        "--out",
        tmp_path / out,
    ]


def _content(out):
    return sorted(({k: r[k] for k in CONTENT} for r in load_records(out).to_pylist()), key=lambda r: r["text"])


def _manifest(out):
    return json.loads((out / "build.json").read_text())


def _spec_usage(manifest, prefix):
    return next(u for spec, u in manifest["usage"].items() if spec.startswith(prefix))


def test_build_json_usage_equals_the_servers_counts_and_cost_is_tokens_times_price(tmp_path):
    with _stack() as s:
        r = invoke(_args(s, tmp_path, "b"))
        assert r.exit_code == 0, r
        m = _manifest(tmp_path / "b")
        for role, spec in (("llm", s["llm"]), ("mt", s["mt"]), ("qe_a", s["qe_a"]), ("qe_b", s["qe_b"])):
            server = s["servers"][role].usage
            u = _spec_usage(m, spec.split(":", 1)[1] if spec.startswith("llm-") else spec)
            assert (u["requests"], u["input_tokens"], u["output_tokens"]) == (
                server["requests"],
                server["prompt_tokens"],
                server["completion_tokens"],
            ), role
            # a request repeated within the run (a text translated again after an unusable edit) is answered by
            # the output cache: counted in `cached`, never in requests or tokens
            assert u["requests"] > 0 and u["failures"] == 0
        editor = _spec_usage(m, s["llm"])
        assert editor["cost_usd"] == pytest.approx(
            editor["input_tokens"] * PRICE[0] / 1e6 + editor["output_tokens"] * PRICE[1] / 1e6, rel=1e-9
        )
        assert _spec_usage(m, s["mt"].split(":", 1)[1])["cost_usd"] is None  # no #price: no cost
        assert f"${editor['cost_usd']:.4f}" in r.stdout  # the summary states the cost
        # the same build again: answers come from the cache, counted apart, nothing is asked
        asked = s["servers"]["llm"].usage["requests"]
        again = invoke(_args(s, tmp_path, "again"))
        assert again.exit_code == 0, again
        assert s["servers"]["llm"].usage["requests"] == asked
        u = _spec_usage(_manifest(tmp_path / "again"), s["llm"])
        assert u["requests"] == 0 and u["cached"] == editor["requests"] and u["cost_usd"] == 0


def test_usage_and_cost_reach_the_release_manifest_card_and_audit_page(tmp_path):
    with _stack() as s:
        r = invoke(_args(s, tmp_path, "b", steps=1))
        assert r.exit_code == 0, r
    built = _manifest(tmp_path / "b")["usage"]
    r = invoke(["release", tmp_path / "b", "--name", "paid", "--version", "0.1.0", "--out", tmp_path / "rel"])
    assert r.exit_code == 0, r
    release = tmp_path / "rel" / "name=paid" / "version=0.1.0"
    manifest = json.loads((release / "manifest.json").read_text())
    assert manifest["builds"][0]["usage"] == built  # every spec: requests, tokens, cost as build.json has them
    editor = _spec_usage(manifest["builds"][0], s["llm"])
    assert editor["cost_usd"] == pytest.approx(
        editor["input_tokens"] * PRICE[0] / 1e6 + editor["output_tokens"] * PRICE[1] / 1e6
    )
    card = (release / "README.md").read_text()
    assert (
        f"{editor['requests']} requests, {editor['input_tokens']} in / {editor['output_tokens']} out tokens, "
        f"${editor['cost_usd']:.4f}" in card
    )
    r = invoke(["audit", release, "--out", tmp_path / "a.html"])
    assert r.exit_code == 0, r
    page = (tmp_path / "a.html").read_text()
    assert "API usage (requests, tokens, cost)" in page and f"${editor['cost_usd']:.4f}" in page


def test_max_requests_stops_with_exit_3_and_the_rerun_gives_the_uninterrupted_records(tmp_path, monkeypatch):
    with _stack() as s:
        full = invoke(_args(s, tmp_path, "full"))
        assert full.exit_code == 0, full
        paid = {k: dict(v.usage) for k, v in s["servers"].items()}
        monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache2"))  # the cut build pays anew
        for srv in s["servers"].values():
            srv.usage.update(requests=0, prompt_tokens=0, completion_tokens=0)
        cut = invoke(_args(s, tmp_path, "cut") + ["--max-requests", "25"])
        assert cut.exit_code == 3, cut
        assert cut.stderr.strip().splitlines()[-1].startswith("error: budget reached: --max-requests 25")
        sent = sum(v.usage["requests"] for v in s["servers"].values())
        assert sent == 25  # not one request more than the budget
        m = _manifest(tmp_path / "cut")
        assert m["status"] == "in_progress" and "max-requests" in m["stopped"]
        assert sum(u["requests"] for u in m["usage"].values()) == 25
        # a shard of 2 seeds costs more than 25 requests: the stop came inside the first one, which left no part
        # file, finished or half-written (the rerun below builds it whole)
        assert not list((tmp_path / "cut" / "data").glob("part-*")) and not list((tmp_path / "cut").rglob("*.tmp*"))
        resumed = invoke(_args(s, tmp_path, "cut"))
        assert resumed.exit_code == 0, resumed
        assert _content(tmp_path / "cut") == _content(tmp_path / "full")
        # nothing was paid twice: both runs together sent what the uninterrupted run sent
        for role, srv in s["servers"].items():
            assert srv.usage == paid[role], role
        m = _manifest(tmp_path / "cut")
        assert "stopped" not in m and m["status"] == "complete"
        assert sum(u["requests"] for u in m["usage"].values()) == sum(v["requests"] for v in paid.values())


def _priced(args, s, price="#price=1/1"):
    """``_args`` with a price on every API spec (``--max-cost`` refuses a spec without one)."""
    qe = f"{s['qe_a']},{s['qe_b']}"
    return [f"{a}{price}" if a == s["mt"] else f"{s['qe_a']}{price},{s['qe_b']}{price}" if a == qe else a for a in args]


def test_global_max_cost_stops_and_names_the_budget(tmp_path):
    with _stack() as s:
        r = invoke(["--max-cost", "0.0001", *_priced(_args(s, tmp_path, "b", llm_opts="#price=100/100"), s)])
        assert r.exit_code == 3, r
        assert re.search(
            r"error: budget reached: --max-cost 0.0001 USD; paid 0\.\d+ USD \(answered\), \d+ in flight", r.stderr
        )
        assert not list((tmp_path / "b" / "data").glob("*.tmp*"))


def test_dry_run_sends_nothing_and_states_the_calls(tmp_path):
    with _stack() as s:
        r = invoke(_args(s, tmp_path, "b") + ["--dry-run"])
        assert r.exit_code == 0, r
        assert all(not srv.requests for srv in s["servers"].values())
        assert not (tmp_path / "b").exists()
        n, steps = len(SEEDS), 3
        assert f"{s['llm']}#price=2.5/10: {n * steps} calls" in r.stdout  # seeded: one edit per step
        assert f"openai:mt@{s['servers']['mt'].url}: {n * (steps + 1)} calls" in r.stdout  # every step translated
        assert f"openai:qa@{s['servers']['qe_a'].url}: {n * (steps + 1)} calls" in r.stdout
        assert re.search(r"at most \$\d+\.\d{4}", r.stdout)
        table = tmp_path / "pairs.tsv"
        table.write_text("src\ttgt\tlp\nHello there.\tHola.\ten-es\nGood night.\tBuenas noches.\ten-es\n")
        r = invoke(["score", "qe", "-i", table, "-o", tmp_path / "scored.parquet", "--qe", s["qe_a"], "--dry-run"])
        assert r.exit_code == 0, r
        assert f"openai:qa@{s['servers']['qe_a'].url}: 2 calls" in r.stdout
        assert not s["servers"]["qe_a"].requests and not (tmp_path / "scored.parquet").exists()


def test_score_writes_usage_into_the_parquet_metadata(tmp_path):
    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        table = tmp_path / "pairs.tsv"
        table.write_text("src\ttgt\tlp\nHello there.\tHola.\ten-es\nGood night.\tBuenas noches.\ten-es\n")
        r = invoke(
            [
                "score",
                "qe",
                "-i",
                table,
                "-o",
                tmp_path / "s.parquet",
                "--qe",
                f"llm-as-qe:openai:qa@{srv.url}#price=1/2",
            ]
        )
        assert r.exit_code == 0, r
        meta = json.loads(pq.read_schema(tmp_path / "s.parquet").metadata[b"PANDAS_ATTRS"])
        u = meta["mtgauntlet.usage"][f"openai:qa@{srv.url}#price=1/2"]
        assert (u["requests"], u["input_tokens"], u["output_tokens"]) == (
            2,
            srv.usage["prompt_tokens"],
            srv.usage["completion_tokens"],
        )
        assert u["cost_usd"] == pytest.approx(u["input_tokens"] / 1e6 + u["output_tokens"] * 2 / 1e6)


def test_a_changed_price_rate_limit_or_batch_mode_resumes_the_same_build(tmp_path, monkeypatch):
    """#price, #rpm, #tpm, #batch, #poll and #concurrency change cost and pace, never the answers: the signature
    leaves them out, so a build started with one price resumes with another (and #json stays in it)."""
    with _stack() as s:
        full = invoke(_args(s, tmp_path, "full", llm_opts="#price=1/2"))
        assert full.exit_code == 0, full
        monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache2"))
        cut = invoke(_args(s, tmp_path, "cut", llm_opts="#price=1/2") + ["--max-requests", "25"])
        assert cut.exit_code == 3, cut
        resumed = invoke(_args(s, tmp_path, "cut", llm_opts="#price=3/4,rpm=6000,tpm=900000,concurrency=2,poll=5"))
        assert resumed.exit_code == 0, resumed
        assert _content(tmp_path / "cut") == _content(tmp_path / "full")
        sig = _manifest(tmp_path / "full")["signature"]
        assert _manifest(tmp_path / "cut")["signature"] == sig and "price" not in sig
        usage = _manifest(tmp_path / "cut")["usage"]  # each run's requests at that run's price
        assert {spec.rsplit("#", 1)[1].split(",")[0] for spec in usage if spec.startswith(s["llm"])} == {
            "price=1/2",
            "price=3/4",
        }
        other = invoke(_args(s, tmp_path, "cut", llm_opts="#price=1/2,json=1"))  # #json changes the requests
        assert other.exit_code == 2 and "holds a different build" in other.stderr, other


# -- structured answers (#json=1) ------------------------------------------------------------------------------
def _json_aware(fn, to_json):
    """A scripted answer that, when the request carries a json_schema response_format, answers the same content as
    JSON of that schema (the instruction the client appended is removed first, so the answer is the text path's)."""

    def answer(messages, body):
        fmt = body.get("response_format")
        if fmt:
            messages = [dict(m) for m in messages]
            messages[-1]["content"] = messages[-1]["content"].rsplit("\nAnswer with one JSON object", 1)[0]
        text = fn(messages, body) if getattr(fn, "wants_body", False) else fn(messages)
        if not fmt:
            return text
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        return to_json(text)

    answer.wants_body = True
    return answer


def _source_json(text):
    m = re.search(r"SOURCE \|\|\|(.*?)\|\|\|", text, re.S)
    return json.dumps({"reasoning": "edited", "source": m.group(1)}) if m else '{"reasoning": "none"}'


def _score_json(text):
    m = re.search(r"SCORE \|\|\|(.*?)\|\|\|", text)
    return json.dumps({"errors": "none", "score": float(m.group(1))}) if m else "not json at all"


def test_json_schema_answers_give_the_records_of_the_text_path(tmp_path):
    with _stack() as s:
        s["servers"]["llm"].default = _json_aware(s["servers"]["llm"].default, _source_json)
        s["servers"]["qe_a"].default = _json_aware(qe_server_answer(qe_a), _score_json)
        plain = invoke(_args(s, tmp_path, "plain"))
        assert plain.exit_code == 0, plain
        structured = invoke(_args(s, tmp_path, "json", llm_opts="#json=1", qe_opts="#json=1"))
        assert structured.exit_code == 0, structured
        assert _content(tmp_path / "json") == _content(tmp_path / "plain")
        editor_asks = [r["body"] for r in s["servers"]["llm"].requests]
        assert any(
            b.get("response_format", {}).get("json_schema", {}).get("name") == "source_text" for b in editor_asks
        )
        assert any(
            b.get("response_format", {}).get("json_schema", {}).get("name") == "translation_quality"
            for b in (r["body"] for r in s["servers"]["qe_a"].requests)
        )
        m = _manifest(tmp_path / "json")
        assert _spec_usage(m, s["llm"] + "#json=1")["invalid_json"] > 0  # the editor's refusals do not validate
        assert _spec_usage(m, s["qe_a"].split(":", 1)[1] + "#json=1")["invalid_json"] > 0  # garbage on its marker


# -- rate limits -------------------------------------------------------------------------------------------------
def test_rpm_limiter_keeps_a_rate_limited_server_from_answering_429(tmp_path):
    asks = [[{"role": "user", "content": f"text {i}"}] for i in range(6)]
    with ScriptedServer(rate_limit=(2, 1.0)) as srv:
        unlimited = OpenAIChatLLM(f"m@{srv.url}", backoff=0.05, concurrency=6, max_retries=30)
        assert unlimited.chat_many(asks) == [f"echo: text {i}" for i in range(6)]
        assert srv.rejected > 0  # 6 at once: the server refused some (and the client retried them)
    with ScriptedServer(rate_limit=(2, 1.0)) as srv:
        limited = OpenAIChatLLM(f"m@{srv.url}#rpm=100", backoff=0.05, concurrency=6)
        t0 = time.monotonic()
        assert limited.chat_many(asks) == [f"echo: text {i}" for i in range(6)]
        assert srv.rejected == 0 and time.monotonic() - t0 >= 5 * 0.6 - 0.05  # one request every 0.6 s


@pytest.mark.parametrize(
    "option, message",
    [
        ("price=abc", "#price='abc' must be IN/OUT"),
        ("rpm=0", "#rpm='0' must be a positive number"),
        ("json=maybe", "#json='maybe' must be 1 or 0"),
    ],
)
def test_bad_spec_options_are_one_line_errors(tmp_path, option, message):
    with _stack() as s:
        r = invoke(_args(s, tmp_path, "b", llm_opts=f"#{option}"))
        assert r.exit_code == 2 and message in r.exception, r
        assert not any(srv.requests for srv in s["servers"].values())


def _judge(messages):
    text = messages[-1]["content"].rsplit("\n\n", 1)[-1]
    return f"Reasoning: long words.\n[[[{min(120, 7 * len(text.split()))}, B2 (Upper Intermediate)]]]"


def _judge_json(text):
    m = re.search(r"\[\[\[(\d+), (\w\d)", text)
    return json.dumps({"reasoning": "long words", "score": float(m.group(1)), "level": m.group(2)})


def test_difficulty_judge_json_answers_give_the_text_paths_scores(tmp_path):
    table = tmp_path / "texts.tsv"
    table.write_text("src\nThe cat sat.\nNotwithstanding the aforementioned stipulations, parties shall comply.\n")
    with ScriptedServer(default=_json_aware(_judge, _judge_json)) as srv:
        outs = {}
        for name, opts in (("plain", ""), ("json", "#json=1")):
            r = invoke(
                [
                    "score",
                    "difficulty",
                    "-i",
                    table,
                    "--src-lang",
                    "en",
                    "-o",
                    tmp_path / f"{name}.parquet",
                    "--estimator",
                    f"llm-judge-src:openai:j@{srv.url}{opts}",
                ]
            )
            assert r.exit_code == 0, r
            outs[name] = pq.read_table(tmp_path / f"{name}.parquet").column("difficulty").to_pylist()
        assert outs["json"] == outs["plain"] == [21.0, 49.0]  # 7 x words
        assert srv.requests[-1]["body"]["response_format"]["json_schema"]["name"] == "translation_difficulty"


def test_signature_spec_drops_exactly_the_pace_options():
    from mtgauntlet.models.runtime import signature_spec

    spec = "llm-as-qe:openai:m@http://h:1/v1#price=1/2,json=1,rpm=5,tpm=9,batch=1,poll=3,concurrency=4,retries=2"
    assert signature_spec(spec) == "llm-as-qe:openai:m@http://h:1/v1#json=1,retries=2"
    assert signature_spec(["openai:m@u#price=1/2", "qe#fast"]) == ["openai:m@u", "qe#fast"]
    assert signature_spec("column=a#price=1") == "column=a#price=1"  # not a spec: as it was
    assert signature_spec(7) == 7


# -- SMAUG and the bandit: dry runs, budgets ---------------------------------------------------------------------
def test_smaug_dry_run_counts_the_translator_and_polyjuice_calls_and_sends_nothing(tmp_path, sample_path):
    with _stack() as s:
        poly = f"{s['llm']}#price=1/4"
        r = invoke(
            [
                "build",
                "smaug",
                "--input",
                sample_path,
                "--src-col",
                "es",
                "--ref-col",
                "en",
                "--src-lang",
                "es",
                "--tgt-lang",
                "en",
                "--limit",
                "12",
                "--phenomena",
                "neg,del",
                "--translator",
                s["mt"],
                "--polyjuice",
                poly,
                "--dry-run",
                "--out",
                tmp_path / "b",
            ]
        )
        assert r.exit_code == 0, r
        assert not any(srv.requests for srv in s["servers"].values()) and not (tmp_path / "b").exists()
        assert f"openai:mt@{s['servers']['mt'].url}: 12 calls" in r.stdout  # the good hypothesis of each item
        from mtgauntlet.builders.smaug.transformations import POLYJUICE_MAX_TOKENS

        most = 12 * POLYJUICE_MAX_TOKENS  # Polyjuice: at most one answer of its generation budget per item
        assert re.search(
            rf"{re.escape(poly)}: 12 calls, ~\d+ input tokens, at most {most} output tokens, at most \$", r.stdout
        )
        r = invoke(
            [
                "build",
                "smaug",
                "--input",
                sample_path,
                "--src-col",
                "es",
                "--ref-col",
                "en",
                "--src-lang",
                "es",
                "--tgt-lang",
                "en",
                "--limit",
                "12",
                "--phenomena",
                "del",
                "--good-from",
                "reference",
                "--dry-run",
                "--out",
                tmp_path / "b",
            ]
        )
        assert r.exit_code == 0 and "no API call" in r.stdout, r


def _topic_corpus(tmp_path, n_topics=6, per_topic=3):
    from tests.support.scripted_roles import QE_FAILS_ON

    words = ["harbour", "ledger", "tenancy", "estate", "remainder", "jail", "prison", "court", "statute", "removal"]
    rows = [
        (
            f"topic {t}",
            f"The {words[(t + i) % 10]} case number {i} was discussed at length"
            + (f" {QE_FAILS_ON}" if (t, i) == (1, 0) else ""),
        )
        for t in range(n_topics)
        for i in range(per_topic)
    ]
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("src\ttopic\n" + "".join(f"{s}\t{t}\n" for t, s in rows), encoding="utf-8")
    return corpus


def test_bandit_dry_run_counts_a_sampler_call_a_translation_and_qe_per_pull(tmp_path):
    with _stack() as s:
        base = [
            "build",
            "bandit",
            "--mt",
            s["mt"],
            "--qe",
            f"{s['qe_a']},{s['qe_b']}",
            "--budget",
            "9",
            "--src-lang",
            "en",
            "--tgt-lang",
            "de",
            "--dry-run",
            "--out",
            tmp_path / "b",
        ]
        r = invoke(base + ["--corpus", _topic_corpus(tmp_path), "--topic-column", "topic"])
        assert r.exit_code == 0, r
        for key, spec in (("mt", "mt"), ("qe_a", "qa"), ("qe_b", "qb")):
            assert f"openai:{spec}@{s['servers'][key].url}: 9 calls" in r.stdout, r.stdout
        r = invoke(base + ["--llm-topics", "Law", "--sampler", "llm", "--llm", f"{s['llm']}#price=1/1"])
        assert r.exit_code == 0, r
        assert f"{s['llm']}#price=1/1: 10 calls" in r.stdout  # the topic tree, then one snippet request per pull
        assert f"openai:mt@{s['servers']['mt'].url}: 9 calls" in r.stdout
        assert not any(srv.requests for srv in s["servers"].values()) and not (tmp_path / "b").exists()


def _pulls(out):
    keep = ("step", "topic", "text", "translations", "qe", "difficulty", "phase", "failure")
    return [{k: p[k] for k in keep} for p in sorted(pq.read_table(out / "pulls").to_pylist(), key=lambda p: p["step"])]


def test_bandit_stopped_by_a_budget_resumes_to_the_pull_log_of_an_uninterrupted_search(tmp_path, monkeypatch):
    corpus = _topic_corpus(tmp_path)
    with _stack() as s:
        args = [
            "build",
            "bandit",
            "--corpus",
            corpus,
            "--topic-column",
            "topic",
            "--min-words",
            "3",
            "--mt",
            s["mt"],
            "--qe",
            f"{s['qe_a']},{s['qe_b']}#price=1/2",
            "--src-lang",
            "en",
            "--tgt-lang",
            "de",
            "--budget",
            "10",
            "--batch",
            "2",
            "--k",
            "2",
            "--cap",
            "3",
            "--concurrency",
            "2",
        ]
        full = invoke(args + ["--out", tmp_path / "full"])
        assert full.exit_code == 0, full
        paid = {k: v.usage["requests"] for k, v in s["servers"].items()}
        monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache2"))  # the cut search pays anew
        for srv in s["servers"].values():
            srv.usage.update(requests=0, prompt_tokens=0, completion_tokens=0)
        cut = invoke(["--max-requests", "11", *args, "--out", tmp_path / "cut"])  # the global budget
        assert cut.exit_code == 3 and "error: budget reached: --max-requests 11" in cut.stderr, cut
        assert sum(v.usage["requests"] for v in s["servers"].values()) == 11
        monkeypatch.setenv("MTGAUNTLET_MAX_REQUESTS", "")  # the global option published it (a new process would not)
        m = json.loads((tmp_path / "cut" / "build.json").read_text())
        assert m["status"] == "in_progress" and "max-requests" in m["stopped"]
        assert sum(u["requests"] for u in m["usage"].values()) == 11
        done = len(_pulls(tmp_path / "cut")) if (tmp_path / "cut" / "pulls").exists() else 0
        assert 0 < done < 10 and not (tmp_path / "cut" / "data").exists()
        again = invoke(args + ["--max-requests", "6", "--out", tmp_path / "cut"])  # the command's own budget
        assert again.exit_code == 3, again
        resumed = invoke(args + ["--out", tmp_path / "cut"])
        assert resumed.exit_code == 0, resumed
        assert _pulls(tmp_path / "cut") == _pulls(tmp_path / "full")
        records = [pq.read_table(tmp_path / d / "data").drop(["created_at"]).to_pylist() for d in ("cut", "full")]
        assert records[0] == records[1] and records[0]
        assert {k: v.usage["requests"] for k, v in s["servers"].items()} == paid  # nothing paid twice
        m, f = (json.loads((tmp_path / d / "build.json").read_text()) for d in ("cut", "full"))
        assert m["status"] == "complete" and "stopped" not in m and m["signature"] == f["signature"]
        paid_for = [
            {spec: {k: v for k, v in u.items() if k != "cached"} for spec, u in x["usage"].items()} for x in (m, f)
        ]
        assert paid_for[0] == paid_for[1]  # the runs together paid what the uninterrupted one did (answers of the
        assert m["usage"][f"{s['qe_b'].split(':', 1)[1]}#price=1/2"]["cost_usd"] > 0  # cut step came cached)


@pytest.mark.slow
def test_score_on_ray_counts_the_actors_usage_and_stops_on_their_budget(tmp_path, monkeypatch):
    """Ray actors are other processes: each shard's usage comes back to the driver (Parquet metadata = the
    server's counts), and a budget spent inside an actor is exit 3, resumable, as on the local engine."""
    pytest.importorskip("ray")
    import ray

    from mtgauntlet.engines.ray_engine import start_ray

    monkeypatch.setenv("MTGAUNTLET_RAY_CPUS", "2")
    table = tmp_path / "pairs.tsv"
    table.write_text("src\ttgt\tlp\n" + "".join(f"{s}\t{s.upper()}\ten-es\n" for s in SEEDS), encoding="utf-8")
    start_ray()
    try:
        with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
            spec = f"llm-as-qe:openai:qa@{srv.url}#price=1/2"

            def score(out, *extra):
                return invoke(
                    [
                        "score",
                        "qe",
                        "-i",
                        table,
                        "-o",
                        tmp_path / out,
                        "--qe",
                        spec,
                        "--engine",
                        "ray",
                        "--shard-size",
                        "2",
                        "--actors",
                        "2",
                        *extra,
                    ]
                )

            r = score("full.parquet")
            assert r.exit_code == 0, r
            meta = json.loads(pq.read_schema(tmp_path / "full.parquet").metadata[b"PANDAS_ATTRS"])
            u = meta["mtgauntlet.usage"][f"openai:qa@{srv.url}#price=1/2"]
            assert (u["requests"], u["input_tokens"], u["output_tokens"]) == (
                len(SEEDS),
                srv.usage["prompt_tokens"],
                srv.usage["completion_tokens"],
            )
            assert u["cost_usd"] == pytest.approx(u["input_tokens"] / 1e6 + u["output_tokens"] * 2 / 1e6)
            monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache2"))  # the cut run pays anew
            cut = score("cut.parquet", "--max-requests", "1")
            assert cut.exit_code == 3 and "error: budget reached: --max-requests" in cut.stderr, cut
            assert not (tmp_path / "cut.parquet").exists()
            assert srv.usage["requests"] == len(SEEDS) + 1  # the actors share the budget: never passed
            r = score("cut.parquet")
            assert r.exit_code == 0, r
            assert srv.usage["requests"] == 2 * len(SEEDS)  # nothing was asked twice
            assert pq.read_table(tmp_path / "cut.parquet").equals(pq.read_table(tmp_path / "full.parquet"))
    finally:
        ray.shutdown()


def test_evaluate_commands_stop_on_their_budget_with_exit_3_and_write_nothing(tmp_path):
    with _stack() as s:
        built = invoke(_args(s, tmp_path, "set", steps=2))
        assert built.exit_code == 0, built
        with ScriptedServer(default=lambda m: '"error_modes": ["idioms"],') as judge:
            r = invoke(
                [
                    "evaluate",
                    "breaker",
                    "--set",
                    tmp_path / "set",
                    "--judge",
                    f"openai:j@{judge.url}",
                    "--plot",
                    tmp_path / "curve.png",
                    "--max-requests",
                    "1",
                ]
            )
            assert r.exit_code == 3 and r.stderr.startswith("error: budget reached: --max-requests 1"), r
            assert len(judge.requests) == 1 and not (tmp_path / "curve.png").exists()
    table = tmp_path / "judgments.tsv"
    table.write_text(
        "lp\titem_id\tsrc\tsystem\tscore\n"
        + "".join(
            f"en-de\t{i}\t{src}\t{system}\t{50 + 7 * i + 3 * k}\n"
            for i, src in enumerate(SEEDS)
            for k, system in enumerate(("A", "B"))
        ),
        encoding="utf-8",
    )
    with ScriptedServer(default=_judge) as judge:
        r = invoke(
            [
                "--max-requests",
                "2",
                "evaluate",
                "dec",
                "-j",
                table,
                "--protocol",
                "da",
                "-e",
                f"llm-judge-src:openai:j@{judge.url}",
            ]
        )  # the global budget
        assert r.exit_code == 3 and "error: budget reached: --max-requests 2" in r.stderr and not r.stdout, r
        assert len(judge.requests) == 2
