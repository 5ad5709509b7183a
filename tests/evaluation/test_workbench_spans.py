"""A span metric end to end: Google's TED MQM spans imported, a metric run elsewhere read with ``-m file:PATH``
(JSON lines: lp, seg_id, system, score, spans), and the span statistics on the leaderboard: the gold spans given back
score span_f1 = 1, half of them the recall counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mtgauntlet as mg
from tests.evaluation.ted_spans import imported_ted
from tests.support.cli import invoke


@pytest.fixture(scope="module")
def ted(shared_data, tmp_path_factory) -> tuple[Path, list[dict]]:
    """The first 120 rows of Google's TED en-de MQM file, imported with `gauntlet import mqm-spans`."""
    return imported_ted(shared_data, tmp_path_factory.mktemp("ted"), 120)


def _write(path: Path, records: list[dict], spans_of) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for r in records:
            spans = [{"start": s["start"], "end": s["end"], "severity": s["severity"]} for s in spans_of(r)]
            score = r["scores"][0]["value"]
            f.write(json.dumps({"lp": r["lp"], "seg_id": r["seg_id"], "system": r["system"], "score": score,
                                "spans": spans}) + "\n")  # fmt: skip
    return path


def _span_stats(releases: Path, results: Path, metric: str) -> dict:
    df = mg.query(
        f"SELECT statistic, value, n FROM leaderboard WHERE metric = '{metric}' AND gold = 'spans' AND lp = 'en-de'",
        releases=releases,
        results=results,
    )
    return {s: (v, n) for s, v, n in zip(df["statistic"], df["value"], df["n"])}


def _chars(spans) -> set[int]:
    return {c for s in spans for c in range(s["start"], s["end"])}


def test_gold_spans_given_back_score_one_and_half_of_them_the_recall_by_hand(ted, tmp_path):
    releases, records = ted
    assert sum(bool(r["spans"]) for r in records) >= 20
    gold = tmp_path / "gold.jsonl"
    _write(gold, records, lambda r: r["spans"])
    half = tmp_path / "half.jsonl"
    _write(half, records, lambda r: r["spans"][: len(r["spans"]) // 2])  # the first half of each item's spans
    res = mg.evaluate("metric", releases=releases, metric=[f"file:{gold}", f"file:{half}"], out=tmp_path / "res")
    assert res["metrics"][f"file:{gold}"]["computed"] == len(records)
    got = _span_stats(releases, tmp_path / "res", f"file:{gold}")
    assert {k: v for k, (v, _) in got.items()} == {
        "span_precision": 1.0,
        "span_recall": 1.0,
        "span_f1": 1.0,
        "span_f1_severity": 1.0,
        "error_free_f1": 1.0,
    }
    assert got["span_f1"][1] == len(records)
    # by hand: characters inside a gold span, and those inside the first half of each item's spans
    gold_chars = sum(len(_chars(r["spans"])) for r in records)
    half_chars = sum(len(_chars(r["spans"][: len(r["spans"]) // 2])) for r in records)
    got = _span_stats(releases, tmp_path / "res", f"file:{half}")
    assert got["span_precision"][0] == 1.0
    assert got["span_recall"][0] == pytest.approx(half_chars / gold_chars)
    assert got["span_f1"][0] == pytest.approx(2 * half_chars / (gold_chars + half_chars))
    # the file's scores are the metric's scores: the MQM itself correlates perfectly
    df = mg.query(
        f"SELECT value FROM leaderboard WHERE metric = 'file:{gold}' AND statistic = 'seg_pearson' "
        "AND grouping = 'none' AND gold = 'mqm'",
        releases=releases,
        results=tmp_path / "res",
    )
    assert df["value"][0] == pytest.approx(1.0)
    stored = mg.query(
        f"SELECT spans FROM metric_score WHERE metric = 'file:{gold}' AND len(spans) > 0 LIMIT 1",
        releases=releases,
        results=tmp_path / "res",
    )
    assert set(stored["spans"][0][0]) >= {"start", "end", "severity"}
    # a second run reuses the stored scores and spans (nothing computed) and, with other resamples, recomputes the
    # statistics from them
    again = mg.evaluate("metric", releases=releases, metric=[f"file:{gold}"], out=tmp_path / "res", ci_resamples=200)
    assert again["metrics"][f"file:{gold}"]["computed"] == 0
    assert _span_stats(releases, tmp_path / "res", f"file:{gold}")["span_f1"][0] == 1.0


def test_a_bad_file_line_is_one_line_naming_file_and_line(ted, tmp_path):
    releases, _ = ted
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"lp": "en-de", "seg_id": "1", "system": "A", "spans": [{"start": 3}]}\n', encoding="utf-8")
    r = invoke(["evaluate", "metric", "--releases", releases, "-m", f"file:{bad}", "--out", tmp_path / "res"])
    assert (
        r.exit_code == 2
        and r.exception == f"error: {bad}, line 1, field 'spans': spans: each needs integer start and end"
    )


def test_error_free_f1_of_a_metric_without_spans_from_a_threshold(ted, tmp_path):
    releases, records = ted
    mg.evaluate("metric", releases=releases, metric=["col:mqm"], out=tmp_path / "res", error_free_threshold=-0.5)
    got = _span_stats(releases, tmp_path / "res", "col:mqm")
    assert set(got) == {"error_free_f1"}
    # by hand: error-free = no gold span; said error-free = MQM strictly above -0.5
    free = [not r["spans"] for r in records]
    said = [r["scores"][0]["value"] > -0.5 for r in records]
    tp = sum(f and s for f, s in zip(free, said))
    fp = sum(s and not f for f, s in zip(free, said))
    fn = sum(f and not s for f, s in zip(free, said))
    assert got["error_free_f1"] == (pytest.approx(2 * tp / (2 * tp + fp + fn)), len(records))
