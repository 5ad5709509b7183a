"""Issue #40 (items 1-5, 8, 9) and #41 (the budget's small items), each through the real entry point against a local
OpenAI-compatible server that counts what it is paid: budgets that throttle at concurrency 8, a stop line that says
what was paid, requests journalled before they are sent, batch lines billed but never returned, one spec-list
parser, an unset key variable, a budget that does not outlive its command. The whole matrix of endings over every
paid command is tests/models/test_paid_runs_matrix.py."""

from __future__ import annotations

import json
import os
import re

import pyarrow.parquet as pq
import pytest

import mtgauntlet as mg
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import qe_a, qe_server_answer

PRICE = (1000.0, 1000.0)  # a request costs ~0.06 USD, its worst case ~0.5 USD


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache"))
    for var in ("MTGAUNTLET_CONCURRENCY", "MTGAUNTLET_MAX_COST", "MTGAUNTLET_MAX_REQUESTS", "OPENAI_API_KEY"):
        monkeypatch.setenv(var, "")


def _table(tmp_path, n=12):
    path = tmp_path / "pairs.tsv"
    rows = "".join(f"Sentence number {i} is here.\tFrase {i}.\ten-es\n" for i in range(n))
    path.write_text("src\ttgt\tlp\n" + rows, encoding="utf-8")
    return path


def _score(tmp_path, srv, opts="", *extra, out="s.parquet", n=12):
    spec = f"llm-as-qe:openai:qa@{srv.url}#price={PRICE[0]:g}/{PRICE[1]:g}{opts}"
    return invoke(["score", "qe", "-i", _table(tmp_path, n), "-o", tmp_path / out, "--qe", spec, *extra])


def _usage(path):
    (u,) = json.loads(pq.read_schema(path).metadata[b"PANDAS_ATTRS"])["mtgauntlet.usage"].values()
    return u


def _journal(tmp_path, out="s.parquet"):
    path = tmp_path / f"{out}.work" / "usage.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_at_concurrency_8_a_budget_waits_for_the_requests_in_flight_instead_of_stopping(tmp_path):
    """Item 1: eight worst cases in flight do not fit in the cap, but the job does: it used to stop at a tenth of
    its cap; now the ninth request waits for room and the job finishes, never billed more than the cap."""
    with ScriptedServer(default=qe_server_answer(qe_a), latency=0.02) as srv:
        r = _score(tmp_path, srv, ",concurrency=8", "--max-cost", "4")
        assert r.exit_code == 0, r.output  # it stopped after 2 requests (0.36 USD): 3 worst cases pass 4 USD
        assert srv.usage["requests"] == 12 and srv.cost(PRICE) <= 4
        assert srv.max_in_flight < 8  # it throttled


def test_a_stopped_run_spent_within_one_worst_case_of_its_cap_and_says_what_was_paid(tmp_path):
    """Items 1-2: stopped only when the next request cannot fit with nothing in flight; the line states what was
    paid (answered), what is unanswered and the cap (it said 'spent 0.0000 USD' when 1.98 USD was paid)."""
    with ScriptedServer(default=qe_server_answer(qe_a), latency=0.02) as srv:
        r = _score(tmp_path, srv, ",concurrency=8", "--max-cost", "2.5", n=40)
        assert r.exit_code == 3, r.output
        worst = max(line["sent_usd"] for line in _journal(tmp_path) if "sent" in line)
        billed = srv.cost(PRICE)
        assert 2.5 - worst <= billed <= 2.5, (billed, worst)
        m = re.search(r"--max-cost 2.5 USD; paid (\d+\.\d{4}) USD \(answered\), 0 in flight, 0 unanswered", r.stderr)
        assert m and abs(float(m.group(1)) - billed) < 1e-4, r.stderr


def test_a_request_that_never_came_back_is_unanswered_with_its_worst_case(tmp_path):
    """Item 4: each request is journalled before it is sent; one that times out (the server may have billed it)
    stays in the totals as unanswered, with what it may have cost at most."""
    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        srv.script = [("sleep", 1.5)]
        r = _score(tmp_path, srv, ",concurrency=1,timeout=0.3,retries=0", n=3)
        assert r.exit_code == 2, r.output
        lines = _journal(tmp_path)
        assert lines[0]["sent"] == 1 and lines[0]["sent_usd"] > 0  # written before the answer (which never came)
        r = _score(tmp_path, srv, ",concurrency=1,timeout=0.3,retries=0", n=3)
        assert r.exit_code == 0, r.output
        u = _usage(tmp_path / "s.parquet")
        assert u["unanswered"] == 1 and u["unanswered_max_usd"] == pytest.approx(lines[0]["sent_usd"])
        billed = srv.cost(PRICE)  # the slow answer was billed after the client had given up on it
        assert u["cost_usd"] <= billed <= u["cost_usd"] + u["unanswered_max_usd"]


def test_batch_lines_billed_but_never_returned_are_unanswered(tmp_path):
    """Item 5: a partial batch output (6 of 18 billed lines dropped) counts the dropped ones as unanswered."""
    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        srv.mangle_batch = lambda lines: lines[:12]
        r = _score(tmp_path, srv, ",batch=1,poll=0.05", n=18)
        assert r.exit_code == 2 and "no answer in the output file" in r.stderr, r.output
        totals = {"sent": 0, "settled": 0}
        for line in _journal(tmp_path):
            for key in totals:
                totals[key] += line.get(key, 0)
        assert totals == {"sent": 18, "settled": 12}
        srv.mangle_batch = None
        r = _score(tmp_path, srv, ",batch=1,poll=0.05", n=18)
        assert r.exit_code == 0, r.output
        u = _usage(tmp_path / "s.parquet")
        assert u["requests"] == 18 and u["unanswered"] == 6
        assert u["cost_usd"] <= srv.cost(PRICE) <= u["cost_usd"] + u["unanswered_max_usd"]


def test_a_priced_judge_keeps_its_options_in_a_metric_list(tmp_path):
    """Item 8: ``-m llm-as-qe:...#price=1/2,json=1,chrf`` was split at every comma ("unknown backend 'json=1'")."""
    aces = tmp_path / "aces.tsv"
    aces.write_text(
        "source\tgood-translation\tincorrect-translation\treference\tphenomena\tlangpair\n"
        + "".join(f"Frase {i}.\tSentence {i}.\tSentence {i + 1}.\tSentence {i}.\tnumber\tes-en\n" for i in range(4)),
        encoding="utf-8",
    )
    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        spec = f"llm-as-qe:openai:qa@{srv.url}#price=1/2,rpm=6000,key=sk-not-shown-1234"
        r = invoke(["evaluate", "metric", "--set", aces, "-m", f"{spec},chrf", "--json"])
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout)["metrics"] == [f"llm-as-qe:openai:qa@{srv.url}", "chrf"]  # public names
        assert srv.requests and "sk-not-shown-1234" not in r.output


@pytest.mark.parametrize(
    "value, specs",
    [
        ("llm-as-qe:openai:m@http://h/v1#price=1/2,json=1", ["llm-as-qe:openai:m@http://h/v1#price=1/2,json=1"]),
        ("a#x=1,y=2,qe,hf:m#error=25", ["a#x=1,y=2", "qe", "hf:m#error=25"]),
        (["col:good,bad", "chrf", "qe#fast,model=/p/q.npz"], ["col:good,bad", "chrf", "qe#fast,model=/p/q.npz"]),
        ("chrf, bleu,,chrf", ["chrf", "bleu"]),
    ],
)
def test_one_spec_list_parser_keeps_each_specs_options(value, specs):
    from mtgauntlet.api.evaluating import spec_list
    from mtgauntlet.api.metric_workbench import metric_specs

    assert metric_specs(value) == specs
    if not any(s.startswith("col:") or s in ("chrf", "bleu") for s in specs):
        assert spec_list(value) == specs


def test_an_unset_key_variable_is_one_line_before_anything_is_sent(tmp_path, monkeypatch):
    """Item 9: ``#key_env=NOPE_NOT_SET`` sent every request without a key."""
    monkeypatch.delenv("NOPE_NOT_SET", raising=False)
    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        r = _score(tmp_path, srv, ",key_env=NOPE_NOT_SET")
        assert r.exit_code == 2 and "#key_env names the variable NOPE_NOT_SET, which is not set" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and not srv.requests


def test_a_command_line_budget_does_not_outlive_its_command(tmp_path):
    """#41: ``gauntlet --max-requests`` went through os.environ, so the next call in the same process was capped."""
    from mtgauntlet.cli.main import run

    with ScriptedServer(default=qe_server_answer(qe_a)) as srv:
        spec = f"llm-as-qe:openai:qa@{srv.url}#price=1/1"
        args = ["score", "qe", "-i", str(_table(tmp_path, 3)), "-o", str(tmp_path / "a.parquet"), "--qe", spec]
        assert run(["-q", "--max-requests", "1", *args]) == 3
        assert "MTGAUNTLET_MAX_REQUESTS" not in os.environ or not os.environ["MTGAUNTLET_MAX_REQUESTS"]
        df = mg.score("qe", input=str(_table(tmp_path, 3)), qe=spec)
        assert df["qe"].notna().all()


def test_a_per_character_api_is_counted_in_characters():
    """#41: a per-character backend's units were labelled tokens."""
    from mtgauntlet.core.usage import LEDGER
    from mtgauntlet.core.usage_report import report, since, summary_line

    before = LEDGER.snapshot()
    LEDGER.register("chartr:http://127.0.0.1:9#price=20/0", None, "characters")
    LEDGER.add("chartr:http://127.0.0.1:9#price=20/0", requests=1, input_tokens=42)
    line = summary_line(report(since(before)))
    assert "42 in / 0 out characters" in line and "tokens" not in line


def test_the_budget_help_names_every_paid_backend():
    """#41: --max-cost help said 'openai: requests' (any paid backend counts) and did not state the drain bound."""
    r = invoke(["--help"])
    text = " ".join(r.output.split())
    assert "openai: requests" not in text and "any paid backend" in text and "60 s" in text
