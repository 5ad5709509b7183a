"""An LLM judge asked for error spans (``llm-as-qe:…#spans=1``) on real data: a few items of Google's TED en-de MQM
file imported with ``gauntlet import mqm-spans``, the judge a scripted server speaking the OpenAI protocol. Its spans
reach ``metric_score.spans`` and the leaderboard's span statistics, checked against a count by hand; an unparseable
answer fails only its item."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import mtgauntlet as mg
from tests.evaluation.ted_spans import imported_ted
from tests.support.openai_server import ScriptedServer

NOT_THERE = "Zebrastreifen"  # a span text no translation holds: dropped, counted, still in the score


@pytest.fixture(scope="module")
def ted(shared_data, tmp_path_factory) -> tuple[Path, list[dict]]:
    """The first 40 rows of Google's TED en-de MQM file, imported with `gauntlet import mqm-spans`."""
    return imported_ted(shared_data, tmp_path_factory.mktemp("ted"), 40)


def _translation(prompt: str) -> str:
    return re.search(r"translation:\n```(.*?)```", prompt, re.S).group(1)


def _judge(bad: str):
    """Marks the translation's first word a major mistranslation; translations of even length also get a minor
    error whose text is not in the translation; the translation ``bad`` gets no error list, ever."""

    def answer(messages) -> str:
        target = _translation(messages[-1]["content"])
        if target == bad:
            return "I would rather not say."
        errors = [{"span": target.split()[0], "category": "accuracy/mistranslation", "severity": "major"}]
        if len(target) % 2 == 0:
            errors.append({"span": NOT_THERE, "category": "fluency/grammar", "severity": "minor"})
        return "Sure:\n" + json.dumps({"errors": errors})

    return answer


def _chars(spans) -> set[int]:
    return {c for s in spans for c in range(s["start"], s["end"])}


def test_judge_spans_reach_metric_score_and_the_leaderboard_span_f1_by_hand(ted, tmp_path):
    releases, records = ted
    bad = records[0]["tgt"]
    assert sum(r["tgt"] == bad for r in records) == 1 and sum(bool(r["spans"]) for r in records) >= 5
    with ScriptedServer(default=_judge(bad)) as srv:
        spec = f"llm-as-qe:openai:judge@{srv.url}#spans=1"
        res = mg.evaluate("metric", releases=releases, metric=spec, out=tmp_path / "res")
        assert res["metrics"][spec]["failed"] == 1  # only the unparseable item (asked three times)
        assert sum(_translation(q["body"]["messages"][-1]["content"]) == bad for q in srv.requests) == 3
        assert "spans=1" in res["metrics"][spec]["signature"]
    stored = mg.query(
        "SELECT record_id, score, failure, spans FROM metric_score",
        releases=releases,
        results=tmp_path / "res",
    )
    by_id = {r: (s, f, sp) for r, s, f, sp in zip(stored["record_id"], stored["score"], stored["failure"],
                                                   stored["spans"])}  # fmt: skip
    ok = [r for r in records if r["tgt"] != bad]
    for r in records:
        score, failure, spans = by_id[r["id"]]
        if r["tgt"] == bad:
            assert pd.isna(score) and "returned no score" in failure and pd.isna(spans)
            continue
        first = r["tgt"].split()[0]
        start = r["tgt"].index(first)
        assert [(s["start"], s["end"], s["severity"]) for s in list(spans)] == [(start, start + len(first), "major")]
        assert score == (-6.0 if len(r["tgt"]) % 2 == 0 else -5.0) and pd.isna(failure)
    # span statistics by hand: predicted = each translation's first word, gold = the raters' spans
    gold = [_chars(r["spans"]) for r in ok]
    pred = [set(range(r["tgt"].index(r["tgt"].split()[0]), r["tgt"].index(r["tgt"].split()[0])
                      + len(r["tgt"].split()[0]))) for r in ok]  # fmt: skip
    matched = sum(len(g & p) for g, p in zip(gold, pred))
    precision, recall = matched / sum(map(len, pred)), matched / sum(map(len, gold))
    df = mg.query(
        f"SELECT statistic, value, n FROM leaderboard WHERE metric = '{spec}' AND gold = 'spans' AND lp = 'en-de'",
        releases=releases,
        results=tmp_path / "res",
    )
    got = {s: (v, n) for s, v, n in zip(df["statistic"], df["value"], df["n"])}
    assert got["span_precision"] == (pytest.approx(precision), len(ok))
    assert got["span_recall"][0] == pytest.approx(recall)
    assert got["span_f1"][0] == pytest.approx(2 * precision * recall / (precision + recall))


def test_json_mode_sends_the_error_schema_and_spans_change_the_signature(ted, tmp_path):
    from mtgauntlet.models.registry import public_spec
    from mtgauntlet.workbench.metrics import make_scorer

    releases, records = ted
    bodies: list[dict] = []

    def answer(messages, body) -> str:
        bodies.append(body)
        target = _translation(messages[-1]["content"])
        return json.dumps({"errors": [{"span": target[-1], "category": "fluency/punctuation", "severity": "minor"}]})

    answer.wants_body = True  # type: ignore[attr-defined]
    with ScriptedServer(default=answer) as srv:
        spec = f"llm-as-qe:openai:judge@{srv.url}#json=1,spans=1,price=1/2"
        res = mg.evaluate("metric", releases=releases, metric=spec, out=tmp_path / "res")
        name = f"llm-as-qe:openai:judge@{srv.url}#json=1,spans=1"  # the public spec: kept, it changes the answer
        assert public_spec(spec) == name and list(res["metrics"]) == [name]
        assert res["metrics"][name]["failed"] == 0 and len(bodies) == len({r["tgt"] for r in records})
        schema = bodies[0]["response_format"]["json_schema"]
        assert schema["name"] == "translation_errors" and "errors" in schema["schema"]["properties"]
        plain = make_scorer(f"llm-as-qe:openai:judge@{srv.url}#json=1").signature
        assert "spans=1" in res["metrics"][name]["signature"] and "spans" not in plain
    stored = mg.query("SELECT score, spans FROM metric_score", releases=releases, results=tmp_path / "res")
    for score, spans in zip(stored["score"], stored["spans"]):  # the last character, a minor punctuation error
        assert score == pytest.approx(-0.1) and len(spans) == 1 and spans[0]["severity"] == "minor"
