"""Issue #34 tried again as its author would: variations the round-4 fixes may have missed, through the real entry
points (`gauntlet` and `import mtgauntlet as mg`) against local OpenAI-compatible servers that count what they are
paid (tests/support/openai_server.py). Spec options in other spellings, secrets in other places (a server's error body,
other option names, a URL query), provenance strings with Markdown/HTML, typed errors for other argument types."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import mtgauntlet as mg
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import qe_a, qe_server_answer

KEY = "sk-adversary-5c1e0b77d2"
PASSWORD = "Pw-adv-3e8d1f0a"


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache"))
    for var in ("MTGAUNTLET_CONCURRENCY", "MTGAUNTLET_MAX_COST", "MTGAUNTLET_MAX_REQUESTS", "OPENAI_API_KEY"):
        monkeypatch.setenv(var, "")


def _table(tmp_path, n=6):
    path = tmp_path / "pairs.tsv"
    path.write_text(
        "src\ttgt\tlp\n" + "".join(f"Sentence number {i}.\tFrase {i}.\ten-es\n" for i in range(n)), encoding="utf-8"
    )
    return path


def _score(tmp_path, spec, *extra, out="s.parquet"):
    return invoke(["score", "qe", "-i", _table(tmp_path), "-o", tmp_path / out, "--qe", spec, *extra])


# -- 5. spec options in other spellings ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "opts",
    [
        "#price=-1/2",
        "#price=1e400/1",
        "#price=1/2/3",
        "#price=1",
        "#price=",
        "#concurrency=0",
        "#concurrency=-3",
        "#concurrency=nan",
        "#concurrency=1.5",
        "#timeout=-1",
        "#timeout=inf",
        "#timeout=0",
        "#tpm=nan",
        "#tpm=0",
        "#rpm=0",
        "#rpm=-5",
        "#poll=nan",
        "#poll=-1",
        "#retries=-1",
        "#retries=nan",
        "#retries=1.5",
        "#PRICE=1/2",
        "#price=1/2,PRICE=3/4",
        "#json=2",
        "#batch=maybe",
        "#price",
        "#price=1/2,price=1/2",
        "#max_tokens=-1",
    ],
)
def test_a_bad_spec_option_is_one_line_and_nothing_is_sent(tmp_path, opts):
    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        r = _score(tmp_path, f"llm-as-qe:openai:qa@{srv.url}{opts}")
        assert r.exit_code == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r
        assert not srv.requests, r


# -- 8. secrets in other places ----------------------------------------------------------------------------------
class _EchoingServer:
    """A real server on 127.0.0.1 that refuses every request with 401 and quotes the credential it was sent in its
    error body (as some proxies do): what the client shows of that body must not show the key."""

    def __enter__(self):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                auth = self.headers.get("Authorization", "")
                seen.append(auth)
                body = json.dumps({"error": {"message": f"Incorrect API key provided: {auth}"}}).encode()
                self.send_response(401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize("how", ["env", "key_env", "option"])
def test_a_key_quoted_back_by_the_server_is_masked_in_the_error_line(tmp_path, monkeypatch, how):
    with _EchoingServer() as srv:
        spec = f"llm-as-qe:openai:qa@{srv.url}#retries=0"
        if how == "env":
            monkeypatch.setenv("OPENAI_API_KEY", KEY)
        elif how == "key_env":
            monkeypatch.setenv("MY_PROVIDER_KEY", KEY)
            spec += ",key_env=MY_PROVIDER_KEY"
        else:
            spec += f",key={KEY}"
        r = _score(tmp_path, spec)
    assert srv.seen and srv.seen[0] == f"Bearer {KEY}"
    assert r.exit_code == 2 and "HTTP 401" in r.stderr and "Incorrect API key provided" in r.stderr, r
    assert KEY not in r.output, r


@pytest.mark.parametrize(
    "spec",
    [
        f"llm-as-qe:openai:qa@URL#api_key={KEY}",
        f"llm-as-qe:openai:qa@URL#token={KEY}",
        f"llm-as-qe:openai:qa@URL#Key={KEY}",
        f"llm-as-qe:openai:qa@URL#key={KEY},key=x",
        f"llm-as-qe:openai:qa@URL#keyy={KEY}",
        f"llm-as-qe:openai:qa@URL?api_key={KEY}",
        f"llm-as-qe:openai:qa@URL#key={KEY},prise=1/2",
    ],
)
def test_a_secret_in_a_refused_spec_is_masked_in_the_error_line(tmp_path, spec):
    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        r = _score(tmp_path, spec.replace("URL", srv.url), "--dry-run")
        r2 = _score(tmp_path, spec.replace("URL", srv.url))
    for res in (r, r2):
        assert KEY not in res.output, res
        assert not list(tmp_path.rglob("*.parquet")) or KEY not in "".join(
            p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*") if p.is_file()
        ), res


# -- 14. provenance strings with Markdown/HTML -------------------------------------------------------------------
INJECTIONS = {
    "name": "<img src=x onerror=alert(1)>|[n](javascript:alert(2))",
    "citation": "<script>alert(3)</script> ](javascript:alert(4)) | ``` x",
    "license_name": "<b onmouseover=alert(5)>L</b>",
    "url": "https://example.org/)](javascript:alert(6))",
}


def test_provenance_strings_reach_the_card_and_audit_page_as_inert_text(tmp_path, sample_path):

    build = tmp_path / "subset"
    r = invoke(
        [
            "build",
            "subset",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--estimator",
            "length",
            "--budget",
            "4",
            "--out",
            build,
        ]
    )
    assert r.exit_code == 0, r
    statements = [a for field, value in INJECTIONS.items() for a in ("--provenance", f"sample_es_en:{field}={value}")]
    r = invoke(
        [
            "release",
            build,
            "--name",
            "inj",
            "--version",
            "0.1.0",
            "--out",
            tmp_path / "r",
            "--audit",
            "--provenance",
            "sample_es_en:license=cc-by-4.0",
            *statements,
        ]
    )
    assert r.exit_code == 0, r
    release = tmp_path / "r" / "name=inj" / "version=0.1.0"
    card = (release / "README.md").read_text(encoding="utf-8")
    body = card.split("\n---\n", 1)[1]
    for raw in ("<img", "<script", "<b ", "](javascript:"):
        assert raw not in body, raw
    pages = [p for p in release.rglob("*.html")]
    assert pages
    for page in pages:
        html = page.read_text(encoding="utf-8")
        for raw in ("<img src=x", "<script>alert", "<b onmouseover", 'href="javascript:'):
            assert raw not in html, (page, raw)


# -- 10. typed errors for other argument types ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def frame(sample_path):
    return pd.read_csv(sample_path, sep="\t", dtype=str, keep_default_na=False)


SUBSET = {"src_col": "es", "src_lang": "es", "estimator": "length", "budget": 5}


def _bad_calls(frame, tmp_path):
    build = lambda **kw: mg.build("subset", **{"input": frame, "out": tmp_path / "b", **SUBSET, **kw})  # noqa: E731
    return {
        "builds": lambda: mg.release(5, name="x", version="0.1.0", out=tmp_path / "r"),
        "report": lambda: mg.release(tmp_path, report=3.5, name="x", version="0.1.0", out=tmp_path / "r"),
        "out": lambda: build(out=""),
        "budget": lambda: build(budget=1.5),
        "src_col": lambda: build(src_col=["es"]),
        "phenomena": lambda: mg.build(
            "smaug",
            input=frame,
            out=tmp_path / "s",
            src_col="es",
            ref_col="en",
            src_lang="es",
            tgt_lang="en",
            good_from="reference",
            phenomena={"num"},
        ),
        "input": lambda: build(input=frame.to_numpy()),
        "version": lambda: mg.open_release("x", 1.0),
    }


@pytest.mark.parametrize("what", ["builds", "report", "out", "budget", "src_col", "phenomena", "input", "version"])
def test_other_bad_arguments_are_one_typed_line_naming_them(frame, tmp_path, monkeypatch, what):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(mg.GauntletError) as err:
        _bad_calls(frame, tmp_path)[what]()
    message = str(err.value)
    assert "\n" not in message and what in message, message
    assert not (tmp_path / "build.json").exists() and not (tmp_path / "r").exists()


def test_an_empty_out_is_refused_not_the_current_directory(tmp_path, sample_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = invoke(
        [
            "build",
            "subset",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--estimator",
            "length",
            "--budget",
            "3",
            "--out",
            "",
        ]
    )
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "empty path" in r.stderr, r
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache"] or not any(
        p.name in ("build.json", "data", "usage.jsonl") for p in tmp_path.iterdir()
    )


# -- 1-5. the money path through other commands -------------------------------------------------------------------
def _judge(messages) -> str:
    text = messages[-1]["content"].rsplit("\n\n", 1)[-1]
    return f"Reasoning: long words.\n[[[{min(120, 7 * len(text.split()))}, B2 (Upper Intermediate)]]]"


def _chat(srv):
    return [r for r in srv.requests if r["path"].endswith("/chat/completions")]


def test_a_failed_score_run_keeps_its_answers_and_the_rerun_pays_only_the_rest(tmp_path):
    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        srv.script = [("ok", None)] * 4 + [("status", 400)]
        failed = _score(tmp_path, f"llm-as-qe:openai:qa@{srv.url}#price=10/10,concurrency=1,retries=0")
        assert failed.exit_code == 2 and "HTTP 400" in failed.stderr, failed
        done = _score(tmp_path, f"llm-as-qe:openai:qa@{srv.url}#price=10/10,concurrency=1,retries=0")
        assert done.exit_code == 0, done
        assert srv.paid_twice() == 0, srv.paid


@pytest.mark.parametrize("concurrency", [1, 8])
def test_max_cost_is_never_passed_at_any_concurrency(tmp_path, concurrency):
    with ScriptedServer(default=qe_server_answer(qe_a), latency=0.02) as srv:
        path = tmp_path / "pairs.tsv"
        path.write_text(
            "src\ttgt\tlp\n" + "".join(f"Sentence number {i} is here.\tFrase {i}.\ten-es\n" for i in range(40)),
            encoding="utf-8",
        )
        r = invoke(
            [
                "--max-cost",
                "5",
                "score",
                "qe",
                "-i",
                path,
                "-o",
                tmp_path / "s.parquet",
                "--qe",
                f"llm-as-qe:openai:qa@{srv.url}#price=1000/1000,concurrency={concurrency}",
            ]
        )
        assert r.exit_code == 3 and "budget reached" in r.stderr, r
        assert 0 < srv.cost((1000, 1000)) <= 5, srv.usage


def test_a_subset_judge_that_fails_is_in_build_json_after_the_rerun(tmp_path, sample_path):
    price = (10.0, 10.0)
    with ScriptedServer(default=_judge) as srv:
        args = [
            "build",
            "subset",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--estimator",
            f"llm-judge-src:openai:j@{srv.url}#price=10/10,retries=0,concurrency=1",
            "--budget",
            "4",
            "--limit",
            "12",
            "--out",
            tmp_path / "b",
        ]
        srv.script = [("ok", None)] * 5 + [("status", 400)]
        failed = invoke(args)
        assert failed.exit_code == 2, failed
        done = invoke(args)
        assert done.exit_code == 0, done
        assert srv.paid_twice() == 0, srv.paid
        paid = srv.cost(price)
    usage = json.loads((tmp_path / "b" / "build.json").read_text())["usage"]
    (u,) = usage.values()
    assert u["requests"] == srv.usage["requests"] and round(u["cost_usd"], 2) == round(paid, 2), (u, srv.usage)


@pytest.mark.parametrize("bad", ["many", -5, 10**400, [1]])
def test_bad_usage_in_batch_results_keeps_the_answer_and_is_counted_invalid(tmp_path, bad):
    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:

        def mangle(lines):
            first = json.loads(lines[0])
            first["response"]["body"]["usage"] = {"prompt_tokens": bad, "completion_tokens": bad}
            return [json.dumps(first), *lines[1:]]

        srv.mangle_batch = mangle
        spec = f"llm-as-qe:openai:qa@{srv.url}#price=10/10,batch=1,poll=0.05"
        r = _score(tmp_path, spec)
        assert r.exit_code == 0, r
        asked = len(srv.batches)
        again = _score(tmp_path, spec, out="again.parquet")
        assert again.exit_code == 0 and len(srv.batches) == asked, again
    import pyarrow.parquet as pq

    meta = json.loads(pq.read_schema(tmp_path / "s.parquet").metadata[b"PANDAS_ATTRS"])
    (u,) = meta["mtgauntlet.usage"].values()
    assert u["invalid_usage"] >= 1 and u["cost_usd"] >= 0, u


# -- 1. kills of other commands: subset with an LLM judge, score qe -----------------------------------------------
def _kill_at(args, srv, kill_at, sig):
    import os
    import subprocess
    import sys
    import time

    from tests.support.cli import REPO

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mtgauntlet.cli.main", *map(str, args)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while srv.usage["requests"] < kill_at:
            assert proc.poll() is None, f"ended before the kill: {proc.stderr.read()[-2000:]!r}"
            assert time.monotonic() < deadline, "never reached the kill point"
            time.sleep(0.005)
        in_flight = srv.in_flight
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0, "finished before the signal arrived"
    return in_flight


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGINT"])
@pytest.mark.parametrize("concurrency", [1, 4])
def test_a_killed_subset_judge_build_pays_again_only_what_was_in_flight(tmp_path, sample_path, sig, concurrency):
    import signal

    with ScriptedServer(default=_judge, latency=0.03) as srv:
        args = [
            "build",
            "subset",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--estimator",
            f"llm-judge-src:openai:j@{srv.url}#price=10/10,concurrency={concurrency}",
            "--budget",
            "4",
            "--limit",
            "24",
            "--shard-size",
            "24",
            "--out",
            tmp_path / "b",
        ]
        in_flight = _kill_at(args, srv, 10, getattr(signal, sig))
        done = invoke(args)
        assert done.exit_code == 0, done
        assert srv.paid_twice() <= in_flight + concurrency, (srv.paid_twice(), in_flight)
        paid, cost = srv.usage["requests"], srv.cost((10.0, 10.0))
    (u,) = json.loads((tmp_path / "b" / "build.json").read_text())["usage"].values()
    assert 0 <= paid - u["requests"] <= in_flight + concurrency, (u, paid)
    assert abs(u["cost_usd"] - cost) < 0.005 + (in_flight + concurrency) * 0.01, (u, cost)


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM"])
def test_a_killed_score_run_keeps_every_answer_it_read(tmp_path, sig):
    import signal

    with ScriptedServer(default=qe_server_answer(qe_a), latency=0.03) as srv:
        path = tmp_path / "pairs.tsv"
        path.write_text(
            "src\ttgt\tlp\n" + "".join(f"Sentence number {i} is here.\tFrase {i}.\ten-es\n" for i in range(20)),
            encoding="utf-8",
        )
        args = [
            "score",
            "qe",
            "-i",
            path,
            "-o",
            tmp_path / "s.parquet",
            "--qe",
            f"llm-as-qe:openai:qa@{srv.url}#price=10/10,concurrency=2",
        ]
        in_flight = _kill_at(args, srv, 12, getattr(signal, sig))
        done = invoke(args)
        assert done.exit_code == 0, done
        assert srv.paid_twice() <= in_flight + 2, (srv.paid_twice(), in_flight)


# -- 8. secrets through zeroshot, evaluate breaker --judge, score --dry-run and -v ----------------------------------
def _files_holding(root, secrets) -> list[str]:
    import pyarrow.parquet as pq

    found = []
    for path in (p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        texts = [data]
        if data[:4] == b"PAR1":
            table = pq.read_table(path)
            texts.append(
                json.dumps(
                    [
                        {k.decode(): v.decode("utf-8", "replace") for k, v in (table.schema.metadata or {}).items()},
                        table.to_pylist(),
                    ],
                    default=str,
                ).encode()
            )
        found += [f"{path.relative_to(root)}: {s}" for s in secrets if any(s.encode() in t for t in texts)]
    return found


def _userinfo(url):
    return url.replace("http://", f"http://alice:{PASSWORD}@", 1)


def test_zeroshot_and_evaluate_breaker_judge_publish_no_credential(tmp_path):
    from tests.support.scripted_roles import scripted_stack, seeded_editor

    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\nThe dog barks.\nTax law is complicated.\n", encoding="utf-8")
    outputs = []
    with scripted_stack(editor_fn=seeded_editor()) as s:
        srv = s["servers"]
        llm = f"openai:editor@{_userinfo(srv['llm'].url)}#key={KEY}"
        qe = f"llm-as-qe:openai:qa@{_userinfo(srv['qe_a'].url)},{s['qe_b']}#key={KEY}"
        common = ["--seeds", seeds, "--llm", llm, "--mt", f"{s['mt']}#key={KEY}", "--qe", qe]
        for extra in (["--dry-run"], ["-v"]):
            args = ["build", "zeroshot", *common, "--variant", "min", "--generations", "2", "--out", tmp_path / "zs"]
            r = invoke([*args, *extra] if extra != ["-v"] else ["-v", *args])
            outputs.append(r.output)
            assert r.exit_code == 0, r
        with ScriptedServer(default=lambda m: '"error_modes": ["idioms", "terminology"],') as judge:
            r = invoke(
                [
                    "-v",
                    "evaluate",
                    "breaker",
                    "--set",
                    tmp_path / "zs",
                    "--judge",
                    f"openai:j@{_userinfo(judge.url)}#key={KEY}",
                    "--json",
                ]
            )
            outputs.append(r.output)
            assert r.exit_code == 0, r
            r = invoke(
                [
                    "evaluate",
                    "breaker",
                    "--set",
                    tmp_path / "zs",
                    "--judge",
                    f"openai:j@{_userinfo(judge.url)}#key={KEY}",
                    "--plot",
                    tmp_path / "eval.png",
                ]
            )
            outputs.append(r.output)
            assert r.exit_code == 0, r
            auth = {r["headers"].get("Authorization") for r in judge.requests}
        r = invoke(["-v", "score", "qe", "-i", _table(tmp_path), "-o", tmp_path / "q.parquet", "--qe", qe, "--dry-run"])
        outputs.append(r.output)
        assert r.exit_code == 0, r
    assert len(auth) == 1 and auth.pop().startswith("Basic ")
    assert [s for s in (KEY, PASSWORD) if any(s in out for out in outputs)] == []
    assert _files_holding(tmp_path, (KEY, PASSWORD)) == []


# -- 5. --max-cost without a price, through other commands and spellings ---------------------------------------------
def test_max_cost_without_a_price_is_refused_before_any_request_everywhere(tmp_path, sample_path, monkeypatch):
    from tests.support.scripted_roles import translate

    with ScriptedServer(default=translate) as mt, ScriptedServer(default=_judge) as judge:
        runs = {
            "smaug": [
                "--max-cost",
                "5",
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
                "4",
                "--phenomena",
                "num",
                "--translator",
                f"llm-as-translator:openai:mt@{mt.url}",
                "--out",
                tmp_path / "smaug",
            ],
            "subset": [
                "build",
                "subset",
                "--input",
                sample_path,
                "--src-col",
                "es",
                "--src-lang",
                "es",
                "--estimator",
                f"llm-judge-src:openai:j@{judge.url}",
                "--budget",
                "3",
                "--max-cost",
                "5",
                "--out",
                tmp_path / "subset",
            ],
            "difficulty": [
                "score",
                "difficulty",
                "-i",
                sample_path,
                "--src-col",
                "es",
                "--src-lang",
                "es",
                "--estimator",
                f"llm-judge-src:openai:j@{judge.url}#batch=1",
                "-o",
                tmp_path / "d.parquet",
                "--max-cost",
                "5",
            ],
        }
        for name, args in runs.items():
            r = invoke(args)
            assert r.exit_code == 2 and r.stderr.startswith("error: ") and "price" in r.stderr, (name, r)
        monkeypatch.setenv("MTGAUNTLET_MAX_COST", "5")
        r = invoke(runs["subset"][:-4] + runs["subset"][-2:])  # the budget from the environment
        assert r.exit_code == 2 and "price" in r.stderr, r
        assert not mt.requests and not judge.requests


# -- 3/4. usage a server leaves out or writes oddly -------------------------------------------------------------------
@pytest.mark.parametrize(
    "bad",
    [
        None,
        "many",
        {"prompt_tokens": True, "completion_tokens": True},
        {"prompt_tokens": 1.5e308, "completion_tokens": 1.5e308},
        {},
    ],
    ids=["null", "text", "bools", "huge", "empty"],
)
def test_usage_a_server_leaves_out_never_lets_max_cost_be_passed(tmp_path, bad):
    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        srv.script = [("usage", bad)] * 200
        path = tmp_path / "pairs.tsv"
        path.write_text(
            "src\ttgt\tlp\n" + "".join(f"Sentence number {i} is here.\tFrase {i}.\ten-es\n" for i in range(60)),
            encoding="utf-8",
        )
        r = invoke(
            [
                "--max-cost",
                "2",
                "score",
                "qe",
                "-i",
                path,
                "-o",
                tmp_path / "s.parquet",
                "--qe",
                f"llm-as-qe:openai:qa@{srv.url}#price=1000/1000,concurrency=1",
            ]
        )
        assert srv.cost((1000, 1000)) <= 2, (srv.usage, r)
        assert r.exit_code == 3 and "budget reached" in r.stderr, r


# -- 9/11. other in-memory inputs: a name only labels them, and a silent call is silent -------------------------------
@pytest.mark.parametrize("kind", ["dataset", "records"])
def test_input_name_only_labels_a_dataset_or_a_list_of_dicts(frame, sample_path, tmp_path, kind, capfd):
    import datasets

    data = datasets.Dataset.from_pandas(frame) if kind == "dataset" else frame.to_dict("records")
    capfd.readouterr()
    named = mg.build("subset", input=data, input_name="flores200_devtest", out=tmp_path / "named", **SUBSET)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    plain = mg.build("subset", input=sample_path, out=tmp_path / "file", **SUBSET).to_pandas()
    assert set(named.to_pandas()["source_dataset"]) == {"flores200_devtest"}
    assert named.to_pandas()["text"].tolist() == plain["text"].tolist()


def test_score_of_a_shuffled_dataset_prints_no_bars(frame, tmp_path, capfd):
    import datasets

    pairs = pd.DataFrame({"src": frame["es"], "tgt": frame["en"]})
    shuffled = datasets.Dataset.from_pandas(pairs).shuffle(seed=1).select(range(10))
    capfd.readouterr()
    scored = mg.score(
        "difficulty", input=shuffled, src_col="src", src_lang="es", estimator="length", out=tmp_path / "d.parquet"
    )
    out, err = capfd.readouterr()
    assert (out, err) == ("", "") and scored is not None


# -- 14. provenance in a recipe ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "dataset, field, value, why",
    [
        ("sample_es_en", "url", "javascript:alert(1)", "http(s)"),
        ("sample_es_en", "hub_id", "../../x", "hub_id"),
        ("nosuch_dataset", "license", "mit", "nosuch_dataset"),
    ],
)
def test_a_recipe_provenance_is_checked_as_the_option_is(
    tmp_path, sample_path, monkeypatch, dataset, field, value, why
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "texts.tsv").write_text(sample_path.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "r.yaml").write_text(
        f"""\
recipe: 1
release:
  name: prov
  version: 0.1.0
  provenance:
    {dataset}:
      {field}: "{value}"
builds:
  hardest:
    builder: subset
    input: texts.tsv
    src-col: es
    src-lang: es
    budget: 3
    estimator: length
""",
        encoding="utf-8",
    )
    r = invoke(["run", "r.yaml", "--work", "w", "--releases", "rel"])
    assert r.exit_code == 2 and r.exception.startswith("error: ") and why in r.exception, r
    assert not (tmp_path / "rel" / "name=prov").exists()


def test_a_bandit_search_publishes_no_credential(tmp_path):
    from tests.models.test_usage import _topic_corpus
    from tests.support.scripted_roles import scripted_stack, seeded_editor

    with scripted_stack(editor_fn=seeded_editor()) as s:
        srv = s["servers"]
        mt = f"llm-as-translator:openai:mt@{_userinfo(srv['mt'].url)}#key={KEY},price=1/2"
        qe = f"llm-as-qe:openai:qa@{_userinfo(srv['qe_a'].url)},{s['qe_b']}#key={KEY}"
        args = [
            "build",
            "bandit",
            "--corpus",
            _topic_corpus(tmp_path),
            "--topic-column",
            "topic",
            "--min-words",
            "3",
            "--mt",
            mt,
            "--qe",
            qe,
            "--src-lang",
            "en",
            "--tgt-lang",
            "de",
            "--budget",
            "6",
            "--batch",
            "2",
            "--k",
            "2",
            "--cap",
            "3",
            "--out",
            tmp_path / "b",
        ]
        outputs = [invoke([*args, "--dry-run"]), invoke(["-v", *args])]
        assert all(r.exit_code == 0 for r in outputs), outputs
        assert srv["mt"].requests and srv["qe_b"].requests
    assert [s for s in (KEY, PASSWORD) if any(s in r.output for r in outputs)] == []
    assert _files_holding(tmp_path, (KEY, PASSWORD)) == []


@pytest.mark.parametrize("builder", ["mtbreaker", "bandit"])
def test_an_mt_list_keeps_each_specs_options_and_never_shows_a_key(tmp_path, builder):
    """``--mt A#price=1/2,key=K`` used to be split at every comma: ``key=K`` became a spec of its own, refused with
    an error line that showed the key."""
    from tests.models.test_usage import _seeds, _topic_corpus
    from tests.support.scripted_roles import scripted_stack, seeded_editor

    with scripted_stack(editor_fn=seeded_editor()) as s:
        mt = f"{s['mt']}#price=1/2,key={KEY},timeout=30"
        if builder == "mtbreaker":
            args = [
                "build",
                "mtbreaker",
                "--seeds",
                _seeds(tmp_path),
                "--variant",
                "seeded+qe",
                "--steps",
                "2",
                "--llm",
                s["llm"],
                "--mt",
                mt,
                "--qe",
                f"{s['qe_a']},{s['qe_b']}",
                "--no-language-guard",
            ]
        else:
            args = [
                "build",
                "bandit",
                "--corpus",
                _topic_corpus(tmp_path),
                "--topic-column",
                "topic",
                "--min-words",
                "3",
                "--mt",
                mt,
                "--qe",
                s["qe_a"],
                "--src-lang",
                "en",
                "--tgt-lang",
                "de",
                "--budget",
                "4",
                "--batch",
                "2",
                "--k",
                "2",
                "--cap",
                "3",
            ]
        r = invoke([*args, "--out", tmp_path / "b"])
        assert r.exit_code == 0, r
        sent = [q for q in s["servers"]["mt"].requests if q["path"].endswith("/chat/completions")]
        assert sent and {q["headers"].get("Authorization") for q in sent} == {f"Bearer {KEY}"}
    assert KEY not in r.output and _files_holding(tmp_path, (KEY,)) == []
    usage = json.loads((tmp_path / "b" / "build.json").read_text())["usage"]
    assert any(u.get("cost_usd") for spec, u in usage.items() if "openai:mt@" in spec), usage  # the price applied


def test_a_secret_option_is_masked_wherever_it_starts():
    from mtgauntlet.core.spec_public import redact_secrets

    for text in (
        f"unknown backend 'key={KEY}' in spec 'key={KEY}'",
        f"key={KEY}",
        f"spec (token={KEY})",
        f'"api_key={KEY}"',
        f"got auth={KEY} here",
    ):
        assert KEY not in redact_secrets(text), text
    assert redact_secrets("max_tokens=5 monkey=x") == "max_tokens=5 monkey=x"


# -- 2. cached answers apart from paid ones ---------------------------------------------------------------------------
def test_a_build_answered_from_the_cache_pays_and_counts_nothing_as_paid(tmp_path, sample_path):
    with ScriptedServer(default=_judge) as srv:

        def args(out):
            return [
                "build",
                "subset",
                "--input",
                sample_path,
                "--src-col",
                "es",
                "--src-lang",
                "es",
                "--tgt-lang",
                "en",
                "--estimator",
                f"llm-judge-src:openai:j@{srv.url}#price=10/10",
                "--budget",
                "4",
                "--limit",
                "8",
                "--out",
                tmp_path / out,
            ]

        assert invoke(args("first")).exit_code == 0
        paid = srv.usage["requests"]
        r = invoke(args("second"))
        assert r.exit_code == 0 and srv.usage["requests"] == paid, r
    (first,) = json.loads((tmp_path / "first" / "build.json").read_text())["usage"].values()
    (second,) = json.loads((tmp_path / "second" / "build.json").read_text())["usage"].values()
    assert first["requests"] == paid and first["cost_usd"] > 0
    assert second["requests"] == 0 and second["cached"] == paid and not second.get("cost_usd"), second


# -- 8. a credential in a publish URL ---------------------------------------------------------------------------------
def test_a_credential_in_a_publish_url_is_masked_and_written_nowhere(tmp_path, sample_path):
    build = tmp_path / "b"
    assert (
        invoke(
            [
                "build",
                "subset",
                "--input",
                sample_path,
                "--src-col",
                "es",
                "--src-lang",
                "es",
                "--estimator",
                "length",
                "--budget",
                "3",
                "--out",
                build,
            ]
        ).exit_code
        == 0
    )
    assert invoke(["release", build, "--name", "pub", "--version", "0.1.0", "--out", tmp_path / "r"]).exit_code == 0
    release = tmp_path / "r" / "name=pub" / "version=0.1.0"
    r = invoke(["publish", release, "--repo", f"http://alice:{PASSWORD}@127.0.0.1:9/x.git"])
    assert r.exit_code != 0 and r.exception.startswith("error: "), r
    assert PASSWORD not in r.output, r
    assert _files_holding(tmp_path, (PASSWORD,)) == []


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGINT"])
def test_a_killed_smaug_build_with_an_llm_translator_pays_again_only_what_was_in_flight(tmp_path, sample_path, sig):
    import signal

    from tests.support.scripted_roles import translate

    with ScriptedServer(default=translate, latency=0.03) as srv:
        args = [
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
            "24",
            "--phenomena",
            "num,del",
            "--translator",
            f"llm-as-translator:openai:mt@{srv.url}#price=10/10,concurrency=2",
            "--out",
            tmp_path / "b",
        ]
        in_flight = _kill_at(args, srv, 8, getattr(signal, sig))
        done = invoke(args)
        assert done.exit_code == 0, done
        assert srv.paid_twice() <= in_flight + 2, (srv.paid_twice(), in_flight)
        paid, cost = srv.usage["requests"], srv.cost((10.0, 10.0))
    usage = json.loads((tmp_path / "b" / "build.json").read_text())["usage"]
    (u,) = [u for spec, u in usage.items() if "openai:mt@" in spec]
    assert 0 <= paid - u["requests"] <= in_flight + 2, (u, paid)
    assert u["cost_usd"] <= cost + 1e-9 and cost - u["cost_usd"] <= (in_flight + 2) * 0.01, (u, cost)


# -- 7. cost-only options change no bandit record and no pull -----------------------------------------------------------
def test_a_price_or_pace_on_bandit_specs_changes_no_record_and_no_pull(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from tests.models.test_usage import _topic_corpus
    from tests.support.scripted_roles import scripted_stack, seeded_editor

    out = {}
    with scripted_stack(editor_fn=seeded_editor()) as s:
        for name, opts in (("plain", ""), ("paid", "#price=1/2,concurrency=3,timeout=40")):
            monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / f"cache-{name}"))
            r = invoke(
                [
                    "build",
                    "bandit",
                    "--corpus",
                    _topic_corpus(tmp_path),
                    "--topic-column",
                    "topic",
                    "--min-words",
                    "3",
                    "--mt",
                    s["mt"] + opts,
                    "--qe",
                    f"{s['qe_a']}{opts},{s['qe_b']}",
                    "--src-lang",
                    "en",
                    "--tgt-lang",
                    "de",
                    "--budget",
                    "4",
                    "--batch",
                    "2",
                    "--k",
                    "2",
                    "--cap",
                    "3",
                    "--out",
                    tmp_path / name,
                ]
            )
            assert r.exit_code == 0, r
            out[name] = [
                pq.read_table(tmp_path / name / d).drop(["created_at"]).to_pylist()
                if "created_at" in pq.read_schema(next((tmp_path / name / d).rglob("*.parquet"))).names
                else pq.read_table(tmp_path / name / d).to_pylist()
                for d in ("data", "pulls")
            ]
    assert out["paid"] == out["plain"] and out["plain"][0]


@pytest.mark.parametrize(
    "userinfo, user, password",
    [
        (f"alice:{PASSWORD}", "alice", PASSWORD),
        (f"alice:{PASSWORD}@x", "alice", f"{PASSWORD}@x"),  # an unencoded '@' in the password
        (f"alice:{PASSWORD}%40x", "alice", f"{PASSWORD}@x"),  # a percent-encoded one
        (f"{PASSWORD}", PASSWORD, ""),  # the key as the user name
    ],
)
def test_user_info_in_other_spellings_reaches_only_the_authorization_header(tmp_path, userinfo, user, password):
    import base64

    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        url = srv.url.replace("http://", f"HTTP://{userinfo}@", 1)
        r = invoke(
            [
                "-v",
                "score",
                "qe",
                "-i",
                _table(tmp_path),
                "-o",
                tmp_path / "s.parquet",
                "--qe",
                f"llm-as-qe:openai:qa@{url}#price=1/2",
            ]
        )
        assert r.exit_code == 0, r
        sent = {q["headers"].get("Authorization") for q in _chat(srv)}
    assert sent == {"Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}
    assert PASSWORD not in r.output, r
    assert _files_holding(tmp_path, (PASSWORD,)) == []


# -- 14. a source named by its file: no Hub link made of it ------------------------------------------------------------
def test_a_source_dataset_name_from_a_file_is_no_hub_link_and_inert_everywhere(tmp_path, sample_path):
    import yaml

    name = "x'\"); DROP TABLE t;--<img src=x onerror=alert(1)>|[a](javascript:b)"
    odd = tmp_path / f"{name}.tsv"
    odd.write_text(sample_path.read_text(encoding="utf-8"), encoding="utf-8")
    plain = tmp_path / "my_corpus.tsv"
    frame = pd.read_csv(sample_path, sep="\t", dtype=str, keep_default_na=False)
    frame.assign(es=frame["es"] + " Otra vez.").to_csv(plain, sep="\t", index=False)  # other texts, other ids
    for src, out in ((odd, "odd"), (plain, "plain")):
        r = invoke(
            [
                "build",
                "subset",
                "--input",
                src,
                "--src-col",
                "es",
                "--src-lang",
                "es",
                "--estimator",
                "length",
                "--budget",
                "3",
                "--out",
                tmp_path / out,
            ]
        )
        assert r.exit_code == 0, r
    r = invoke(
        [
            "release",
            tmp_path / "odd",
            tmp_path / "plain",
            "--name",
            "odd",
            "--version",
            "0.1.0",
            "--audit",
            "--out",
            tmp_path / "r",
            "--provenance",
            "my_corpus:license=mit",
        ]
    )
    assert r.exit_code == 0, r
    release = tmp_path / "r" / "name=odd" / "version=0.1.0"
    card = (release / "README.md").read_text(encoding="utf-8")
    header = yaml.safe_load(card.split("---\n")[1])
    assert sorted(header["source_datasets"]) == ["extended|my_corpus", "extended|other"], header["source_datasets"]
    assert "<img" not in card and "<img" not in (release / "report.html").read_text(encoding="utf-8")
    r = invoke(
        [
            "query",
            "--releases",
            tmp_path / "r",
            f"SELECT count(*) AS n FROM selected_text WHERE source_dataset = '{name.replace(chr(39), chr(39) * 2)}'",
        ]
    )
    assert r.exit_code == 0 and "3" in r.stdout, r


def test_evaluate_spec_lists_keep_each_specs_options():
    """``evaluate dec --estimator`` / ``evaluate breaker --mt``: a spec's options after ``#`` stay with it (they
    were split at every comma: ``key=K`` became a spec of its own)."""
    from mtgauntlet.api.evaluating import spec_list

    assert spec_list("llm-judge:openai:m@http://127.0.0.1:9/v1#price=1/2,key=K,length") == [
        "llm-judge:openai:m@http://127.0.0.1:9/v1#price=1/2,key=K",
        "length",
    ]
    assert spec_list(["apertium", "openai:m@http://127.0.0.1:9/v1#json=1,timeout=5"]) == [
        "apertium",
        "openai:m@http://127.0.0.1:9/v1#json=1,timeout=5",
    ]
    assert spec_list(None) == []
