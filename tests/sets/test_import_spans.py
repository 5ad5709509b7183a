"""Google's MQM error-span format: one row per error, the span marked <v>…</v> in the target, No-error rows; each
(lp, seg_id, system) becomes a human_score whose spans are character offsets into the unmarked target and whose mqm
is Google's score. The real TED file imports and its scores equal Google's own per-segment averages."""

from __future__ import annotations

import gzip

import pytest

import mtgauntlet as mg
from mtgauntlet.sets.formats.mqm_spans import mqm_weight, unmark
from tests.sets.helpers import records, write_tsv

HEADER = ["system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity", "comment"]
KEY = ("lp", "seg_id", "system")


def test_unmark_gives_offsets_into_the_plain_text():
    assert unmark("Ich <v>möchte</v> Sie <v>alle</v>.") == ("Ich möchte Sie alle.", [(4, 10), (15, 19)])
    assert unmark("kein Fehler") == ("kein Fehler", [])
    assert (mqm_weight("Fluency/Punctuation", "Minor"), mqm_weight("Accuracy/Omission", "Major")) == (0.1, 5.0)
    assert (mqm_weight("No-error", "No-error"), mqm_weight("Non-translation!", "Major")) == (0.0, 25.0)


def test_rows_per_error_become_one_record_with_spans_and_the_mqm_score(tmp_path):
    rows = [
        ["A", "t1", "1", "1", "r1", "Hi you.", "<v>Hallo</v> du.", "Style/Awkward", "Minor", ""],
        ["A", "t1", "1", "1", "r1", "Hi you.", "Hallo <v>du</v>.", "Accuracy/Mistranslation", "Major", ""],
        ["A", "t1", "1", "1", "r2", "Hi you.", "Hallo du<v>.</v>", "Fluency/Punctuation", "Minor", ""],
        ["B", "t1", "1", "1", "r1", "Hi you.", "Hallo Sie.", "No-error", "No-error", ""],
        ["B", "t1", "1", "2", "r1", "<v>Bye</v>.", "Tschüss.", "Accuracy/Omission", "Major", ""],
    ]
    src = write_tsv(tmp_path / "mqm_test_ende.tsv", HEADER, rows)
    rel = mg.import_set("mqm-spans", src, name="s", version="1.0.0", out=tmp_path / "rel", provenance=["license=mit"])
    got = records(rel.path, KEY)
    a = got[("en-de", "1", "A")]
    assert (a["tgt"], a["src"]) == ("Hallo du.", "Hi you.")
    assert [(s["start"], s["end"], s["severity"], s["rater"]) for s in a["spans"]] == [
        (0, 5, "Minor", "r1"),
        (6, 8, "Major", "r1"),
        (8, 9, "Minor", "r2"),
    ]
    # r1: 1 + 5 = 6, r2: 0.1 -> mean over the two raters, negated
    assert a["scores"] == [{"name": "mqm", "value": pytest.approx(-3.05)}]
    b1 = got[("en-de", "1", "B")]
    assert b1["spans"] == [] and b1["scores"] == [{"name": "mqm", "value": 0.0}]
    b2 = got[("en-de", "2", "B")]  # an omission marked in the source: in the score, no target span
    assert b2["spans"] == [] and b2["src"] == "Bye." and b2["scores"][0]["value"] == -5.0
    assert rel.manifest["builds"][0]["counts"]["skipped"] == {
        "error without a target span (in the MQM score, no span)": 1
    }


def test_a_target_that_differs_between_rows_is_one_line_naming_the_line(tmp_path):
    rows = [
        ["A", "t", "1", "1", "r1", "Hi.", "<v>Hallo</v>.", "Style/Awkward", "Minor", ""],
        ["A", "t", "1", "1", "r2", "Hi.", "Hallo!", "No-error", "No-error", ""],
    ]
    src = write_tsv(tmp_path / "mqm_x_ende.tsv", HEADER, rows)
    with pytest.raises(mg.GauntletError, match="line 3.*differs from line 2"):
        mg.import_set("mqm-spans", src, name="s", version="1.0.0", out=tmp_path / "rel", provenance=["license=mit"])


def test_google_ted_spans_import_with_googles_scores(shared_data, tmp_path):
    raw = shared_data / "google-wmt-mqm" / "raw"
    rel = mg.import_set(
        "mqm-spans", raw / "mqm_ted_ende.tsv.gz", name="ted", version="1.0.0", out=tmp_path / "rel",
        provenance=["license=apache-2.0"],
    )  # fmt: skip
    got = {(r["system"], r["seg_id"]): r for r in records(rel.path, KEY).values()}
    assert len(got) == 7406  # wmt21-ted en-de: 529 segments x 14 systems
    compared = 0
    with gzip.open(raw / "mqm_ted_ende.avg_seg_scores.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            system, score, seg = line.split()
            if (system, seg) in got:
                compared += 1
                assert got[(system, seg)]["scores"][0]["value"] == pytest.approx(float(score), abs=1e-9)
    assert compared > 6000
    r = got[("Facebook-AI", "1")]
    assert [r["tgt"][s["start"] : s["end"]] for s in r["spans"]] == ["in Betracht zu ziehen"]


def test_span_aces_marked_spans_become_offsets():
    from mtgauntlet.sets.formats.challenge_tsv import marked_spans

    got = marked_spans("Er hat <v>keinen</v> Hund.", "Er hat keinen Hund.")
    assert [(s["start"], s["end"]) for s in got] == [(7, 13)]
    assert [(s["start"], s["end"]) for s in marked_spans("Hund", "Er hat keinen Hund.")] == [(14, 18)]
    assert marked_spans("e", "Er hat keinen Hund.") is None  # ambiguous: more than once
    assert marked_spans("Er <v>hat</v>", "Er hatte") is None  # marks another text
    assert marked_spans(None, "x") is None
