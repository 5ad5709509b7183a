"""Bootstrap intervals, paired permutation tests and significance clusters, on cases whose distribution is known
by hand."""

import math

import numpy as np
import pytest

from mtgauntlet.errors import GauntletError
from mtgauntlet.evaluation.statistics import (
    bootstrap_ci,
    pair_accuracy,
    paired_permutation_test,
    seg_pearson,
    significance_clusters,
)
from mtgauntlet.evaluation.statistics.clusters import assign_ranks


def _mean(x):
    return float(np.mean(x))


def test_bootstrap_interval_of_a_two_item_mean():
    # items 0 and 1: a resample's mean is 0, .5 or 1 with probability 1/4, 1/2, 1/4.
    # 95%: the 2.5% and 97.5% quantiles fall in the 0 and 1 blocks -> (0, 1).
    assert bootstrap_ci(_mean, [0.0, 1.0], n_resamples=1000) == (0.0, 1.0)
    # 40%: quantiles .3 and .7 both fall in the .5 block (P(0) = .25 < .3, P(<= .5) = .75 > .7) -> (.5, .5)
    assert bootstrap_ci(_mean, [0.0, 1.0], n_resamples=1000, confidence=0.4) == (0.5, 0.5)


def test_bootstrap_resamples_items_jointly_and_drops_nan_resamples():
    # every item has good > bad: every resample has accuracy 1, whatever rows it draws
    assert bootstrap_ci(pair_accuracy, [2, 3, 4], [1, 1, 1], n_resamples=50) == (1.0, 1.0)
    # a single scored item (the other is missing): each resample is all-missing (NaN, dropped) or accuracy 1
    assert bootstrap_ci(pair_accuracy, [2.0, None], [1.0, 0.0], n_resamples=50) == (1.0, 1.0)
    assert all(math.isnan(v) for v in bootstrap_ci(pair_accuracy, [None], [1.0], n_resamples=10))
    a = bootstrap_ci(pair_accuracy, [2, 0, 4, 1], [1, 1, 1, 3], n_resamples=200, seed=7)
    assert a == bootstrap_ci(pair_accuracy, [2, 0, 4, 1], [1, 1, 1, 3], n_resamples=200, seed=7)
    with pytest.raises(GauntletError, match="lengths differ"):
        bootstrap_ci(pair_accuracy, [1, 2], [1])
    with pytest.raises(GauntletError, match="confidence"):
        bootstrap_ci(_mean, [1.0], confidence=95)


def test_paired_permutation_test_by_hand():
    # identical metrics: every resample's difference is 0 >= |0|: p = (1 + R) / (1 + R) = 1
    same = [[1.0, 2.0, 3.0], [0.0, 2.5, 1.0]]
    assert paired_permutation_test(pair_accuracy, same, same, n_resamples=99) == 1.0
    # one item, A right (accuracy 1) and B wrong (0): swapping gives -1, not swapping +1; |+-1| >= 1 always: p = 1
    assert paired_permutation_test(pair_accuracy, [[1.0], [0.0]], [[0.0], [1.0]], n_resamples=99) == 1.0
    # two such items: delta' = 1 (no swap), 0 (one swap, probability 1/2) or -1 (both): P(|delta'| >= 1) = 1/2
    p = paired_permutation_test(pair_accuracy, [[1.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [1.0, 1.0]], n_resamples=2000)
    assert p == pytest.approx(0.5, abs=0.04)
    # ten such items: only "no swap" or "all swapped" (2 / 1024) are as extreme: p = (1 + ~0.4) / 201
    ten = paired_permutation_test(pair_accuracy, [[1.0] * 10, [0.0] * 10], [[0.0] * 10, [1.0] * 10], n_resamples=200)
    assert 1 / 201 <= ten <= 4 / 201
    assert math.isnan(paired_permutation_test(pair_accuracy, [[None], [1.0]], [[1.0], [0.0]], n_resamples=5))
    with pytest.raises(GauntletError, match="columns"):
        paired_permutation_test(pair_accuracy, [[1.0]], [[1.0], [0.0]])


def test_assign_ranks_breaks_a_cluster_only_on_a_loss_within_it():
    p = np.full((4, 4), np.nan)
    p[0, 1], p[0, 2], p[0, 3] = 0.2, 0.01, 0.001
    p[1, 2], p[1, 3], p[2, 3] = 0.3, 0.04, 0.5
    # metric 1: p[0, 1] = .2 > .05, joins cluster 1; metric 2: p[0, 2] = .01 <= .05, opens cluster 2;
    # metric 3: only metric 2 is in its cluster, p[2, 3] = .5: stays in cluster 2 (its loss to metric 1 is not counted)
    assert assign_ranks(p, 0.05) == [1, 1, 2, 2]
    assert assign_ranks(p, 0.0001) == [1, 1, 1, 1]


def test_significance_clusters_separate_a_good_metric_from_a_poor_one():
    rng = np.random.default_rng(0)
    human = {s: list(rng.normal(size=25)) for s in "ABC"}
    metrics = {
        "close": {s: list(np.array(v) + rng.normal(0, 0.1, 25)) for s, v in human.items()},
        "close_too": {s: list(np.array(v) * 3 + rng.normal(0, 0.3, 25)) for s, v in human.items()},
        "noise": {s: list(rng.normal(size=25)) for s in "ABC"},
        "constant": {s: [1.0] * 25 for s in "ABC"},
    }
    human["A"][0] = None  # a missing human score takes part nowhere

    def statistic(m, h):
        return seg_pearson(m, h, "none")

    rows = significance_clusters(metrics, human, statistic, n_resamples=100)
    assert [r["metric"] for r in rows][2:] == ["noise", "constant"]
    assert {r["metric"] for r in rows[:2]} == {"close", "close_too"}
    assert [r["rank"] for r in rows] == [1, 1, 2, None]  # Pearson of a constant metric is undefined
    assert rows[0]["value"] == statistic(metrics[rows[0]["metric"]], human)[0]
    assert rows[:3] == significance_clusters(metrics, human, statistic, n_resamples=100)[:3]  # seeded


def test_significance_clusters_compare_metrics_over_the_systems_they_share():
    rng = np.random.default_rng(1)
    human = {s: list(rng.normal(size=12)) for s in "ABCD"}
    metrics = {
        "all_four": {s: list(np.array(v) + rng.normal(0, 0.2, 12)) for s, v in human.items()},
        "three": {s: list(rng.normal(size=12)) for s in "ABC"},  # scored no output of system D
    }

    def statistic(m, h):
        return seg_pearson(m, h, "none")

    rows = significance_clusters(metrics, human, statistic, n_resamples=50)
    assert [(r["metric"], r["rank"]) for r in rows] == [("all_four", 1), ("three", 2)]


@pytest.mark.parametrize("draws_per_block", [4_000_000, 100])  # all resamples at once, or two or so per block
def test_pair_bootstrap_cis_are_bootstrap_ci_of_accuracy_and_aces_tau(shared_data, monkeypatch, draws_per_block):
    """The workbench's one-pass intervals equal the generic bootstrap's on real scores (chrF of WMT23 systems'
    outputs, two systems as good and bad, with ties and missing scores)."""
    from sacrebleu.metrics import CHRF

    from mtgauntlet.evaluation.statistics import resampling
    from mtgauntlet.evaluation.statistics.pairs import aces_tau
    from mtgauntlet.evaluation.statistics.resampling import pair_bootstrap_cis
    from tests.evaluation.workbench_sets import wmt23_subset

    monkeypatch.setattr(resampling, "DRAWS_PER_BLOCK", draws_per_block)

    rows = wmt23_subset(shared_data, segments=40)
    by_seg: dict[str, list] = {}
    for r in rows:
        by_seg.setdefault(r["seg_id"], []).append(CHRF().sentence_score(r["tgt"], [r["ref"]]).score)
    pairs = [(s[0], s[1]) for s in by_seg.values() if len(s) >= 2]
    good = [g for g, _ in pairs] + [5.0, None, 7.0]
    bad = [b for _, b in pairs] + [5.0, 3.0, None]
    for n, seed in ((200, 0), (50, 3)):
        acc, tau = pair_bootstrap_cis(good, bad, n_resamples=n, seed=seed)
        assert acc == bootstrap_ci(pair_accuracy, good, bad, n_resamples=n, seed=seed)
        assert tau == bootstrap_ci(aces_tau, good, bad, n_resamples=n, seed=seed)
    assert acc[0] < acc[1]
    assert all(math.isnan(v) for ci in pair_bootstrap_cis([None], [1.0], n_resamples=5) for v in ci)
