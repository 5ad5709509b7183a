"""Span statistics on vectors worked out by hand: character-level micro-averaged precision, recall and F1, the
severity-weighted F1, overlapping spans, empty and missing predictions, and WMT26's error-free F1 (ties at the
threshold included)."""

from __future__ import annotations

import math

import pytest

from mtgauntlet.evaluation.statistics.spans import error_free_f1, severity_weight, span_counts, span_scores

GOLD = [[(0, 4, "major")], [], [(0, 3, "minor")], []]
PRED = [[(2, 6, "minor")], [], [], [(1, 2, "major")]]


def test_micro_averaged_character_counts():
    # item 1: gold chars 0-3, predicted 2-5 -> 2 matched; item 3: 3 gold chars missed; item 4: 1 false char
    assert span_counts(GOLD, PRED) == {
        "gold": 7.0,
        "pred": 5.0,
        "match": 2.0,
        "gold_w": 4 * 5 + 3 * 1.0,
        "pred_w": 4 * 1 + 1 * 5.0,
        "match_w": 2 * 1.0,  # a major gold char matched by a minor prediction earns the minor weight
    }
    s = span_scores(GOLD, PRED)
    assert s["span_precision"] == pytest.approx(2 / 5)
    assert s["span_recall"] == pytest.approx(2 / 7)
    assert s["span_f1"] == pytest.approx(2 * 2 / (7 + 5))
    assert s["span_f1_severity"] == pytest.approx(2 * 2 / (23 + 9))


def test_gold_given_back_scores_one_and_half_of_it_the_recall_by_hand():
    gold = [[(0, 4, "major"), (10, 12, "minor")], [(3, 9, "minor")], []]
    s = span_scores(gold, gold)
    assert s == {"span_precision": 1.0, "span_recall": 1.0, "span_f1": 1.0, "span_f1_severity": 1.0}
    half = [[(0, 4, "major")], [], []]  # 4 of the 4 + 2 + 6 = 12 gold characters
    s = span_scores(gold, half)
    assert (s["span_precision"], s["span_recall"]) == (1.0, pytest.approx(4 / 12))
    assert s["span_f1"] == pytest.approx(2 * 4 / (12 + 4))


def test_overlaps_count_each_character_once_and_empty_or_missing_predictions():
    assert span_counts([[(0, 4, None), (2, 6, None)]], [[(5, 8, None)]])["gold"] == 6.0  # chars 0-5, once each
    s = span_scores([[(0, 2, "minor")]], [[]])  # predicts no error: nothing predicted, nothing found
    assert math.isnan(s["span_precision"]) and s["span_recall"] == 0.0 and s["span_f1"] == 0.0
    s = span_scores([[(0, 2, "minor")], [(0, 1, "minor")]], [None, [(0, 1, "minor")]])  # no answer: left out
    assert (s["span_recall"], s["span_precision"]) == (1.0, 1.0)
    assert math.isnan(span_scores([[], []], [[], []])["span_f1"])  # nothing to find, nothing found
    assert (severity_weight("Major"), severity_weight(None), severity_weight("Neutral")) == (5.0, 1.0, 0.0)


def test_error_free_f1_from_spans_and_from_a_score_threshold():
    gold = [[], [], [(0, 1, "minor")], []]
    # item 1 TP (free, no span), item 2 FN (free, a span), item 3 FP (an error, no span), item 4 no answer
    assert error_free_f1(gold, [[], [(0, 1, None)], [], None]) == (pytest.approx(2 / 4), 3)
    # scores over 70 say error-free: TP items 1 and 4, FN item 2, FP item 3; a score equal to it does not
    assert error_free_f1(gold, scores=[90, 50, 95, 80], threshold=70) == (pytest.approx(4 / 6), 4)
    assert error_free_f1(gold, scores=[70, 50, 95, 80], threshold=70) == (pytest.approx(2 / 5), 4)
    value, n = error_free_f1([[(0, 1, None)]], [[(0, 1, None)]])
    assert math.isnan(value) and n == 1  # no error-free item, none said: undefined
