"""Challenge-set statistics on small vectors worked out by hand: accuracy, ACES's tau and score, SMAUG's tau and d."""

import math

import numpy as np
import pytest

from mtgauntlet.errors import GauntletError
from mtgauntlet.evaluation.statistics import (
    ACES_WEIGHTS,
    aces_category_taus,
    aces_score,
    aces_tau,
    pair_accuracy,
    smaug_tau_d,
)

# item:  1      2      3      4        5
GOOD = [3.0, 2.0, 1.0, None, 5.0]
BAD = [1.0, 2.0, 4.0, 0.0, float("nan")]
# item 1: 3 > 1 concordant; item 2: 2 == 2 a tie, a failure; item 3: 1 < 4 discordant;
# items 4 and 5 have a missing score: left out. So 1 success of 3 scored items.


def test_accuracy_counts_a_tie_as_a_failure_and_leaves_missing_scores_out():
    assert pair_accuracy(GOOD, BAD) == pytest.approx(1 / 3)
    assert pair_accuracy([2.0], [2.0]) == 0.0  # a lone tie: 0 of 1
    assert math.isnan(pair_accuracy([None, 1.0], [0.0, None]))  # nothing scored on both sides


def test_aces_tau_counts_a_tie_as_discordant():
    # C = 1 (item 1), D = 2 (item 2 tied, item 3 discordant): (1 - 2) / (1 + 2)
    assert aces_tau(GOOD, BAD) == pytest.approx(-1 / 3)
    assert aces_tau([1.0, 1.0], [1.0, 1.0]) == -1.0  # all ties: all discordant
    assert aces_tau(GOOD, BAD) == pytest.approx(2 * pair_accuracy(GOOD, BAD) - 1)
    assert math.isnan(aces_tau([], []))


def test_smaug_tau_and_d_by_hand():
    good, bad = [0.9, 0.5, 0.2, 0.7, None], [0.1, 0.5, 0.6, 0.3, 0.2]
    # concordant: 0.9 > 0.1 (diff 0.8) and 0.7 > 0.3 (diff 0.4); 0.5 == 0.5 tie and 0.2 < 0.6 discordant; the None
    # item left out. tau = (2 - 2) / 4 = 0; d = mean(0.8 / 0.8, 0.4 / 0.8) = 0.75 with lo, hi = 0.1, 0.9
    tau, d = smaug_tau_d(good, bad, 0.1, 0.9)
    assert tau == 0.0 and d == pytest.approx(0.75)
    tau, d = smaug_tau_d([0.1], [0.2], 0.0, 1.0)  # no concordant item: d undefined, not 0
    assert tau == -1.0 and math.isnan(d)


def test_aces_weights_are_aces_own():
    assert ACES_WEIGHTS == {
        "addition": 5,
        "omission": 5,
        "mistranslation": 5,
        "overtranslation": 5,
        "undertranslation": 5,
        "untranslated": 1,
        "do not translate": 1,
        "real-world knowledge": 1,
        "wrong language": 1,
        "punctuation": 0.1,
    }


def test_aces_score_is_the_weighted_sum_over_the_categories_present():
    # 5 * 0.5 + 0.1 * (-1.0) + 1 * 0.2 = 2.5 - 0.1 + 0.2 = 2.6; the NaN category adds nothing
    assert aces_score(
        {"addition": 0.5, "punctuation": -1.0, "untranslated": 0.2, "omission": float("nan")}
    ) == pytest.approx(2.6)
    # all ten categories at tau = 1: 5 * 5 + 4 * 1 + 0.1 = 29.1, ACES's maximum
    assert aces_score({c: 1.0 for c in ACES_WEIGHTS}) == pytest.approx(29.1)
    assert math.isnan(aces_score({}))
    with pytest.raises(GauntletError, match="'hallucination'"):
        aces_score({"hallucination": 1.0})


def test_aces_category_taus_are_the_mean_over_their_phenomena():
    category_of = {
        "addition": "addition",
        "nonsense": "mistranslation",
        "hallucination-number-level-1": "mistranslation",
        "copy-source": "untranslated",
    }
    taus = {
        "addition": 0.2,
        "nonsense": 0.8,
        "hallucination-number-level-1": 0.4,
        "copy-source": float("nan"),
        "not-mapped": 1.0,
    }
    # mistranslation = (0.8 + 0.4) / 2 = 0.6; copy-source has no tau, not-mapped no category: both left out
    got = aces_category_taus(taus, category_of)
    assert got == pytest.approx({"addition": 0.2, "mistranslation": 0.6})
    assert aces_score(got) == pytest.approx(5 * 0.2 + 5 * 0.6)


def test_numpy_input_and_length_mismatch():
    assert pair_accuracy(np.array([1.0, 2.0]), np.array([0.0, 3.0])) == 0.5
    with pytest.raises(GauntletError, match="differ in length"):
        pair_accuracy([1.0], [1.0, 2.0])
