"""The vectorised bootstrap over items and the vectorised permutation tests equal the plain computation: a resample
given as item counts gives the statistic of the matrix with those items repeated; a permutation p-value equals the
loop that swaps the same entries one resample at a time."""

from __future__ import annotations

import numpy as np
import pytest

from mtgauntlet.evaluation.statistics import human as H
from mtgauntlet.evaluation.statistics import item_bootstrap as B
from mtgauntlet.evaluation.statistics import perm_both as P
from mtgauntlet.evaluation.statistics.pair_counts import group_counts

RNG = np.random.default_rng(7)
M = np.round(RNG.normal(size=(5, 9)), 1)  # 5 systems x 9 items, rounded: ties in the metric
Hm = np.round(M + RNG.normal(size=(5, 9)), 0)  # ties in the human scores
M[1, 3] = np.nan  # a missing metric score
Hm[2, 5] = np.nan  # a missing human score


def _dicts(m, h):
    return {f"s{k}": m[k] for k in range(len(m))}, {f"s{k}": h[k] for k in range(len(h))}


def _repeat(counts_row):
    cols = np.repeat(np.arange(len(counts_row)), counts_row.astype(int))
    return M[:, cols], Hm[:, cols]


def test_item_counts_draw_n_items_per_resample():
    c = B.item_counts(9, 50, seed=3)
    assert c.shape == (50, 9) and (c.sum(1) == 9).all() and (c >= 0).all()
    assert (B.item_counts(9, 50, seed=3) == c).all()  # seeded


@pytest.mark.parametrize("grouping", ["none", "sys", "item"])
def test_pearson_on_a_resample_is_pearson_of_the_repeated_items(grouping):
    valid = ~(np.isnan(M) | np.isnan(Hm))
    mv, hv = np.where(valid, M, np.nan), np.where(valid, Hm, np.nan)
    counts = np.array([np.ones(9), [2, 0, 1, 1, 0, 3, 1, 0, 1]])
    got = B.pearson_resamples(mv, hv, grouping, counts)
    for row, value in zip(counts, got):
        m, h = _repeat(row)
        assert value == pytest.approx(H.seg_pearson(*_dicts(m, h), grouping)[0], abs=1e-12)


def test_item_grouped_kendall_and_acc_eq_resamples_are_means_over_the_drawn_items():
    valid = ~(np.isnan(M) | np.isnan(Hm))
    mv, hv = np.where(valid, M, np.nan), np.where(valid, Hm, np.nan)
    per_item = H.kendall_from_counts(group_counts(hv.T, mv.T), "b", mv.T, hv.T)
    counts = np.array([np.ones(9), [2, 0, 1, 1, 0, 3, 1, 0, 1]])
    got = B.item_mean_resamples(per_item, counts)
    for row, value in zip(counts, got):
        assert value == pytest.approx(H.seg_kendall(*_dicts(*_repeat(row)), "item", "b")[0], abs=1e-12)
    acc, _, eps = H.seg_acc_eq(*_dicts(M, Hm), "item")
    assert B.item_mean_resamples(B.acc_eq_per_item(mv, hv, eps), counts[:1])[0] == pytest.approx(acc, abs=1e-12)


def test_system_level_resamples():
    valid = ~(np.isnan(M) | np.isnan(Hm))
    counts = np.array([np.ones(9), [2, 0, 1, 1, 0, 3, 1, 0, 1]])
    msys, hsys = B.system_mean_resamples(M, valid, counts), B.system_mean_resamples(Hm, valid, counts)
    for k, row in enumerate(counts):
        m, h = _repeat(row)
        ok = ~(np.isnan(m) | np.isnan(h))
        want_m = H.system_scores({f"s{i}": np.where(ok[i], m[i], np.nan) for i in range(5)})
        want_h = H.system_scores({f"s{i}": np.where(ok[i], h[i], np.nan) for i in range(5)})
        assert msys[k] == pytest.approx([want_m[f"s{i}"] for i in range(5)])
        agree, pairs = B.pairwise_agreement_resamples(msys[k : k + 1], hsys[k : k + 1])
        acc, n = H.sys_pairwise_accuracy(want_m, want_h)
        assert (agree[0] / pairs[0], pairs[0]) == (pytest.approx(acc), n)
        assert B.rows_pearson(msys[k : k + 1], hsys[k : k + 1])[0] == pytest.approx(H.sys_pearson(want_m, want_h)[0])


def test_percentile_interval_leaves_nan_out():
    assert B.percentile_interval(np.array([np.nan, 1.0, 2.0, 3.0]), 0.5) == (1.5, 2.5)
    lo, hi = B.percentile_interval(np.array([np.nan]))
    assert np.isnan(lo) and np.isnan(hi)


def _z(x, usable):
    v = x[usable]
    return np.where(usable, (x - v.mean()) / v.std(), 0.0)


@pytest.mark.parametrize("grouping", ["none", "sys", "item"])
def test_seg_pearson_permutation_equals_the_loop(grouping):
    other = np.round(M + RNG.normal(scale=2, size=M.shape), 1)
    n = 60
    got = P.seg_pearson_p_value(M, other, Hm, grouping, n, np.random.default_rng(1))
    usable = ~(np.isnan(M) | np.isnan(other) | np.isnan(Hm))
    z1, z2 = _z(M, usable), _z(other, usable)
    h = np.where(usable, Hm, np.nan)

    def stat(m):
        return H.seg_pearson(*_dicts(np.where(usable, m, np.nan), h), grouping)[0]

    observed = stat(z1) - stat(z2)
    swaps = np.random.default_rng(1).random((n, *M.shape)) < 0.5  # the same draws (one block)
    count = 0
    for s in swaps:
        a, b = np.where(s, z2, z1), np.where(s, z1, z2)
        count += stat(a) - stat(b) >= observed - 1e-12 * (abs(observed) + 1)
    assert got == count / n


def test_system_and_pair_permutations():
    ms, other, hs = np.array([1.0, 2, 3, 4, 5]), np.array([2.0, 1, 3, 5, 4]), np.array([1.0, 2, 3, 4, 6])
    p = P.system_p_value("sys_pairwise_accuracy", ms, other, hs, 400, np.random.default_rng(0))
    # by hand: ms orders all 10 pairs like hs; other gets 8; a swap of k systems' scores changes the count
    assert 0 < p < 0.5
    assert P.system_p_value("sys_pearson", ms, ms, hs, 10, np.random.default_rng(0)) == 1.0  # equal metrics
    a, b = np.ones(4), np.zeros(4)  # A right on 4 pairs, B on none: only the all-kept permutation reaches +1
    p = P.pair_accuracy_p_value(a, b, 20_000, np.random.default_rng(0))
    assert p == pytest.approx(1 / 16, abs=0.01)
    ranks = P.assign_clusters({"a": 1.0, "b": 0.9, "c": 0.1, "d": float("nan")}, lambda x, y: 0.01 if y == "c" else 0.5)
    assert ranks == {"a": 1, "b": 1, "c": 2}


@pytest.mark.parametrize(
    "better, worse",
    [
        # 0/1 successes with ties and a missing score: the binomial draw over the disagreeing items
        ([1, 1, 1, 0, 0, 1, 1, 0, np.nan, 1, 1, 0], [0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0]),
        # differences of several sizes: the sign flips in blocks
        ([0.9, 0.4, 1.0, 0.0, 0.7, 0.3, 0.8], [0.1, 0.6, 0.0, 0.0, 0.2, 0.3, 0.1]),
    ],
)
def test_pair_accuracy_p_value_is_the_exact_sign_flip_p_value(better, worse):
    b, w = np.array(better, float), np.array(worse, float)
    keep = ~(np.isnan(b) | np.isnan(w))
    d = (b - w)[keep]
    flips = np.array(np.meshgrid(*[[-1.0, 1.0]] * len(d))).reshape(len(d), -1).T  # every sign vector
    exact = float(((flips @ d) / len(d) >= d.mean() - 1e-12).mean())
    got = P.pair_accuracy_p_value(b, w, 40_000, np.random.default_rng(2))
    assert got == pytest.approx(exact, abs=0.01)
    assert P.pair_accuracy_p_value(b, b, 10, np.random.default_rng(0)) == 1.0  # equal metrics: every resample ties


def test_pooled_accuracy_permutation_equals_the_loop():
    from mtgauntlet.evaluation.statistics.human import sys_pairwise_accuracy

    rng = np.random.default_rng(3)
    human = [rng.normal(size=5), rng.normal(size=4)]
    better = [h + rng.normal(scale=0.3, size=len(h)) for h in human]
    worse = [h + rng.normal(scale=1.5, size=len(h)) for h in human]
    n = 200
    got = P.pooled_accuracy_p_value(better, worse, human, n, np.random.default_rng(5))
    every = np.concatenate(better), np.concatenate(worse)
    z1, z2 = [(x - x.mean()) / x.std() for x in every]

    def pooled(z):
        start, agree, pairs = 0, 0.0, 0
        for h in human:
            part = z[start : start + len(h)]
            start += len(h)
            acc, k = sys_pairwise_accuracy(dict(enumerate(part)), dict(enumerate(h)))
            agree, pairs = agree + acc * k, pairs + k
        return agree / pairs

    observed = pooled(z1) - pooled(z2)
    swaps = np.random.default_rng(5).random((n, len(z1))) < 0.5
    count = sum(pooled(np.where(s, z2, z1)) - pooled(np.where(s, z1, z2)) >= observed - 1e-12 for s in swaps)
    assert got == count / n
