"""Human-judgment statistics on small matrices worked out by hand, cross-checked with scipy where it has the same
statistic, and on real WMT23 MQM scores."""

import gzip
import math
from itertools import combinations

import numpy as np
import pytest

from mtgauntlet.errors import GauntletError
from mtgauntlet.evaluation.statistics import (
    seg_acc_eq,
    seg_kendall,
    seg_pearson,
    sys_pairwise_accuracy,
    sys_pearson,
    sys_soft_pairwise_accuracy,
    system_scores,
)
from mtgauntlet.evaluation.statistics.pair_counts import long_counts, strict_inversions
from mtgauntlet.evaluation.statistics.tie_calibration import _triangle_pairs

scipy_stats = pytest.importorskip("scipy.stats")

# Two systems, three items; B's third item has no human score, so it takes no part anywhere.
HUMAN = {"A": [1.0, 2.0, 3.0], "B": [3.0, 2.0, None]}
METRIC = {"A": [1.0, 3.0, 2.0], "B": [2.0, 2.0, 5.0]}
# Scored (human, metric) entries: p1 = A1 (1, 1), p2 = A2 (2, 3), p3 = A3 (3, 2), p4 = B1 (3, 2), p5 = B2 (2, 2).


def test_pearson_by_hand_in_each_grouping():
    # none: h = 1, 2, 3, 3, 2 (mean 2.2), m = 1, 3, 2, 2, 2 (mean 2); dh = -1.2, -.2, .8, .8, -.2; dm = -1, 1, 0, 0, 0
    # sum dh dm = 1.2 - .2 = 1; sum dh^2 = 1.44 + .04 + .64 + .64 + .04 = 2.8; sum dm^2 = 2; r = 1 / sqrt(5.6)
    assert seg_pearson(METRIC, HUMAN, "none") == (pytest.approx(1 / math.sqrt(5.6)), 5)
    # sys: A: h 1, 2, 3 vs m 1, 3, 2 -> dh -1, 0, 1, dm -1, 1, 0 -> 1 / sqrt(2 * 2) = .5; B: m 2, 2 constant -> NaN,
    # left out of the average: (0.5, 1 group)
    assert seg_pearson(METRIC, HUMAN, "sys") == (pytest.approx(0.5), 1)
    # item: item 1: h 1, 3 vs m 1, 2 -> r = 1; item 2: h 2, 2 constant -> NaN; item 3: one entry -> skipped
    assert seg_pearson(METRIC, HUMAN, "item") == (pytest.approx(1.0), 1)


def test_kendall_variants_by_hand():
    # the 10 pairs of p1..p5: p1p2 p1p3 p1p4 p1p5 concordant (C = 4); p2p3 p2p4 discordant (D = 2);
    # p2p5 human tie only (T_h = 1); p3p5 p4p5 metric tie only (T_m = 2); p3p4 tied in both (T_hm = 1)
    tau_b = (4 - 2) / math.sqrt((4 + 2 + 1) * (4 + 2 + 2))  # 2 / sqrt(56)
    tau_c = 2 * (4 - 2) / (5**2 * (3 - 1) / 3)  # n = 5, 3 distinct values each side: 12 / 50
    assert seg_kendall(METRIC, HUMAN, "none", "b") == (pytest.approx(tau_b), 5)
    assert seg_kendall(METRIC, HUMAN, "none", "c") == (pytest.approx(0.24), 5)
    assert tau_c == pytest.approx(0.24)
    assert seg_kendall(METRIC, HUMAN, "none", "23") == (pytest.approx((4 + 1 - 2 - 1 - 2) / 10), 5)  # 0
    assert seg_kendall(METRIC, HUMAN, "none", "acc23") == (pytest.approx((4 + 1) / 10), 5)
    h, m = [1, 2, 3, 3, 2], [1, 3, 2, 2, 2]
    assert tau_b == pytest.approx(scipy_stats.kendalltau(h, m, variant="b").statistic)
    assert tau_c == pytest.approx(scipy_stats.kendalltau(h, m, variant="c").statistic)
    # sys: A alone (B's metric scores tie in the one pair: tau-b undefined): A pairs (1,1)(2,3): C, (1,1)(3,2): C,
    # (2,3)(3,2): D -> (2 - 1) / sqrt(3 * 3) = 1/3
    assert seg_kendall(METRIC, HUMAN, "sys", "b") == (pytest.approx(1 / 3), 1)
    # "23" is defined with ties: B's pair (3,2)(2,2) is a metric tie -> -1; A: (2 - 1) / 3; mean = (1/3 - 1) / 2
    assert seg_kendall(METRIC, HUMAN, "sys", "23") == (pytest.approx((1 / 3 - 1) / 2), 2)


def test_acc_eq_at_epsilon_zero_wins_when_ties_only_hurt():
    # metric differences among p1..p5: 0, 1, 2. eps = 0: (C + T_hm) / 10 = 5 / 10.
    # eps = 1: p1p3, p1p4, p1p5 lose their concordance (human scores differ), p2p5 becomes tied in both:
    # C = 1 (p1p2), T_hm = 2 (p2p5, p3p4) -> .3; eps = 2: everything a metric tie, T_hm = 2 -> .2
    assert seg_acc_eq(METRIC, HUMAN, "none") == (pytest.approx(0.5), 10, 0.0)


def test_acc_eq_finds_the_threshold_that_maximises_the_mean_over_items():
    # item 1 over three systems: human 1, 1, 2; metric .5, .625, 1 (differences .125, .5, .375)
    #   eps < .125: pair (1, 2) human tie only, two concordant pairs -> 2/3; at eps = .125 it is tied in both -> 1;
    #   at .375 the pair (2, 3) turns metric-tie only -> 2/3; at .5 -> 1/3
    # item 2: human 1, 2, 3; metric .5, .75, 1 (differences .25, .25, .5): 1 below eps .25, then 1/3, then 0
    # mean: eps 0 -> (2/3 + 1) / 2 = 5/6; eps .125 -> (1 + 1) / 2 = 1 (the best); eps .25 -> (1 + 1/3) / 2
    human = {"s1": [1, 1], "s2": [1, 2], "s3": [2, 3]}
    metric = {"s1": [0.5, 0.5], "s2": [0.625, 0.75], "s3": [1.0, 1.0]}
    assert seg_acc_eq(metric, human, "item") == (pytest.approx(1.0), 6, 0.125)
    # without calibration (acc23 at eps 0) the same data scores 5/6
    assert seg_kendall(metric, human, "item", "acc23")[0] == pytest.approx(5 / 6)


def _acc_eq_brute_force(metric, human, grouping):
    """acc_eq at every candidate threshold, each pair and group enumerated in Python, for comparison."""
    systems = sorted(metric)
    m = np.array([[np.nan if v is None else v for v in metric[s]] for s in systems], float)
    h = np.array([[np.nan if v is None else v for v in human[s]] for s in systems], float)
    rows = {"none": (m.reshape(1, -1), h.reshape(1, -1)), "sys": (m, h), "item": (m.T, h.T)}[grouping]
    groups = []
    for mr, hr in zip(*rows):
        ok = ~(np.isnan(mr) | np.isnan(hr))
        pairs = [(a, b) for a, b in combinations(zip(hr[ok], mr[ok]), 2)]
        if pairs:
            groups.append(pairs)
    if not groups:
        return float("nan"), float("nan")
    candidates = sorted({0.0} | {abs(a[1] - b[1]) for g in groups for a, b in g})
    best = (-1.0, None)
    for eps in candidates:
        accs = []
        for g in groups:
            good = sum(
                (abs(a[1] - b[1]) <= eps and a[0] == b[0])
                or (abs(a[1] - b[1]) > eps and (a[0] - b[0]) * (a[1] - b[1]) > 0)
                for a, b in g
            )
            accs.append(good / len(g))
        if np.mean(accs) > best[0] + 1e-12:
            best = (float(np.mean(accs)), eps)
    return best


def test_acc_eq_sweep_equals_the_brute_force_search_with_ties_and_missing_scores():
    rng = np.random.default_rng(2)
    for _ in range(25):
        n_sys, n_items = int(rng.integers(2, 6)), int(rng.integers(1, 9))
        metric = {f"s{i}": [float(v) for v in np.round(rng.normal(size=n_items), 1)] for i in range(n_sys)}
        human = {f"s{i}": [float(v) for v in rng.integers(0, 3, n_items)] for i in range(n_sys)}
        for s, scores in metric.items():
            for k in range(n_items):
                if rng.random() < 0.15:
                    human[s][k] = None
                if rng.random() < 0.1:
                    scores[k] = float("nan")
        for grouping in ("item", "sys", "none"):
            acc, _, eps = seg_acc_eq(metric, human, grouping)
            want_acc, want_eps = _acc_eq_brute_force(metric, human, grouping)
            if math.isnan(want_acc):
                assert math.isnan(acc)
            else:
                assert acc == pytest.approx(want_acc) and eps == want_eps


def test_acc_eq_sampling_is_seeded_and_smaller():
    rng = np.random.default_rng(0)
    human = {f"s{i}": list(rng.integers(0, 5, 200).astype(float)) for i in range(3)}
    metric = {s: list(np.array(v) + rng.normal(0, 1, 200)) for s, v in human.items()}
    full = seg_acc_eq(metric, human, "sys")
    a, b = seg_acc_eq(metric, human, "sys", 0.2, seed=3), seg_acc_eq(metric, human, "sys", 0.2, seed=3)
    assert a == b and full[1] == 3 * 199 * 100 and 0.15 * full[1] < a[1] < 0.25 * full[1]
    assert a[0] == pytest.approx(full[0], abs=0.03)
    with pytest.raises(GauntletError, match="sample_rate"):
        seg_acc_eq(metric, human, "sys", 0.0)


def test_pair_counts_and_triangle_indexing_match_enumeration():
    rng = np.random.default_rng(1)
    for n in (2, 3, 40, 300):
        h, m = rng.integers(0, 4, n).astype(float), rng.integers(0, 6, n).astype(float)
        want = np.zeros(5, int)
        for i, j in combinations(range(n), 2):
            dh, dm = h[i] - h[j], m[i] - m[j]
            want[0 if dh * dm > 0 else 1 if dh * dm < 0 else 2 if dm else 3 if dh else 4] += 1
        assert long_counts(h, m).tolist() == want.tolist()
        v = rng.integers(0, 9, n)
        assert strict_inversions(v) == sum(v[i] > v[j] for i, j in combinations(range(n), 2))
        i, j = _triangle_pairs(n, np.arange(n * (n - 1) // 2))
        assert [(a, b) for a, b in zip(i, j)] == list(combinations(range(n), 2))


def test_metric_none_is_missing_too_and_bad_arguments_are_one_line_errors():
    metric = {"A": [1.0, 3.0, None], "B": [2.0, 2.0, 5.0]}
    # A3 has no metric score: p1 (1, 1), p2 (2, 3), p4 (3, 2), p5 (2, 2) remain; means 2 and 2;
    # dh = -1, 0, 1, 0; dm = -1, 1, 0, 0; r = 1 / sqrt(2 * 2) = .5 over 4 entries
    assert seg_pearson(metric, HUMAN, "none") == (pytest.approx(0.5), 4)
    with pytest.raises(GauntletError, match="grouping"):
        seg_pearson(METRIC, HUMAN, "doc")
    with pytest.raises(GauntletError, match="variant"):
        seg_kendall(METRIC, HUMAN, "none", "a")
    with pytest.raises(GauntletError, match="same items"):
        seg_pearson({"A": [1.0]}, HUMAN)
    with pytest.raises(GauntletError, match="no system in common"):
        seg_pearson({"C": [1.0, 2.0, 3.0]}, HUMAN)


def test_system_level_accuracy_and_pearson_by_hand():
    assert system_scores({"A": [1, None, 3], "B": [float("nan")]}) == {
        "A": 2.0,
        "B": pytest.approx(float("nan"), nan_ok=True),
    }
    metric_sys = {"A": 0.3, "B": 0.1, "C": 0.2, "D": None}
    human_sys = {"A": 3.0, "B": 2.0, "C": 2.0, "E": 1.0}
    # systems A, B, C (D has no score, E no metric score). A-B: + / + agree; A-C: + / + agree;
    # B-C: metric -.1, human 0 (a human tie, not a metric tie): disagree -> 2 of 3
    assert sys_pairwise_accuracy(metric_sys, human_sys) == (pytest.approx(2 / 3), 3)
    assert sys_pairwise_accuracy({"A": 1, "B": 1}, {"A": 5, "B": 5}) == (1.0, 1)  # tied on both sides agrees
    # m = .3, .1, .2 (mean .2), h = 3, 2, 2 (mean 7/3): sum dm dh = .1 * 2/3 + .1 * 1/3 = .1;
    # sum dm^2 = .02, sum dh^2 = 2/3; r = .1 / sqrt(.02 * 2/3) = sqrt(3) / 2
    assert sys_pearson(metric_sys, human_sys) == (pytest.approx(math.sqrt(3) / 2), 3)
    assert sys_pearson(metric_sys, human_sys)[0] == pytest.approx(
        scipy_stats.pearsonr([0.3, 0.1, 0.2], [3, 2, 2]).statistic
    )


def _exact_p(d):
    """P(sum of randomly signed d >= sum(d)) over all 2^n sign vectors."""
    signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * len(d))).reshape(len(d), -1).T
    return float((signs @ d >= d.sum() - 1e-9).mean())


def test_soft_pairwise_accuracy_against_exact_permutation_p_values():
    human = {"A": [1.0, 1.0], "B": [0.0, 0.0]}
    # one pair: human d = (1, 1): p_h = P(both signs +) = 1/4; metric reversed, d = (-1, -1): any sign vector gives
    # a sum >= -2, p_m = 1; SPA = 1 - |1/4 - 1| = 1/4 (up to resampling: 4000 draws, sd about .007)
    spa, n = sys_soft_pairwise_accuracy({"A": [0.0, 0.0], "B": [1.0, 1.0]}, human, n_resamples=4000)
    assert n == 1 and spa == pytest.approx(0.25, abs=0.025)
    # a metric that is an increasing affine map of the human scores has the very same p-values: SPA = 1 exactly
    rng = np.random.default_rng(5)
    human = {s: list(rng.normal(size=6)) for s in "ABCD"}
    assert sys_soft_pairwise_accuracy({s: [2 * v + 1 for v in x] for s, x in human.items()}, human, 200) == (1.0, 6)
    # against p-values by full enumeration of the 2^6 swaps
    metric = {s: list(np.array(v) + rng.normal(size=6)) for s, v in human.items()}
    exact = []
    for a, b in combinations("ABCD", 2):
        p_h = _exact_p(np.array(human[a]) - np.array(human[b]))
        p_m = _exact_p(np.array(metric[a]) - np.array(metric[b]))
        exact.append(1 - abs(p_h - p_m))
    spa, n = sys_soft_pairwise_accuracy(metric, human, n_resamples=20000)
    assert n == 6 and spa == pytest.approx(np.mean(exact), abs=0.02)


def test_soft_pairwise_accuracy_keeps_only_items_every_system_has():
    human = {"A": [1.0, 2.0, None], "B": [0.0, 1.0, 5.0]}
    metric = {"A": [1.0, 0.0, 3.0], "B": [0.0, 1.0, 1.0]}
    trimmed = {s: v[:2] for s, v in human.items()}, {s: v[:2] for s, v in metric.items()}
    assert sys_soft_pairwise_accuracy(metric, human, 300) == sys_soft_pairwise_accuracy(trimmed[1], trimmed[0], 300)


@pytest.fixture(scope="module")
def wmt23_en_de(shared_data):
    """chrF and MQM of the first 40 en-de segments of WMT23 (real data), as system -> item score matrices."""
    from sacrebleu.metrics import CHRF

    chrf = CHRF()
    rows = {}
    with gzip.open(shared_data / "wmt23-mqm-mtme" / "wmt23_mtme_seg_scores.tsv.gz", "rt", encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(header, line.rstrip("\n").split("\t")))
            if r["lp"] == "en-de" and int(r["seg_id"]) < 40 and r["is_human_ref"] == "0" and r["mqm"]:
                rows[(r["system"], int(r["seg_id"]))] = (
                    float(r["mqm"]),
                    chrf.sentence_score(r["tgt"], [r["ref"]]).score,
                )
    systems = sorted({s for s, _ in rows})
    items = sorted({i for _, i in rows})
    human = {s: [rows[(s, i)][0] if (s, i) in rows else None for i in items] for s in systems}
    metric = {s: [rows[(s, i)][1] if (s, i) in rows else None for i in items] for s in systems}
    return metric, human


def _scored_per_item(human, metric):
    systems = list(human)
    return [
        sum(human[s][k] is not None and metric[s][k] is not None for s in systems)
        for k in range(len(human[systems[0]]))
    ]


def test_real_wmt23_scores_match_scipy(wmt23_en_de):
    metric, human = wmt23_en_de
    flat = [(h, m) for s in human for h, m in zip(human[s], metric[s]) if h is not None and m is not None]
    fh, fm = np.array(flat).T
    assert seg_pearson(metric, human, "none")[0] == pytest.approx(scipy_stats.pearsonr(fh, fm).statistic)
    assert seg_kendall(metric, human, "none", "b")[0] == pytest.approx(scipy_stats.kendalltau(fh, fm).statistic)
    per_item = []
    for k in range(len(next(iter(human.values())))):
        col = [(human[s][k], metric[s][k]) for s in human if human[s][k] is not None]
        if len(col) > 1:
            tau = scipy_stats.kendalltau(*np.array(col).T).statistic
            if not math.isnan(tau):
                per_item.append(tau)
    assert seg_kendall(metric, human, "item", "b") == (pytest.approx(np.mean(per_item)), len(per_item))
    acc, n_pairs, eps = seg_acc_eq(metric, human, "item")
    assert n_pairs == sum(n * (n - 1) // 2 for n in _scored_per_item(human, metric))
    assert acc >= seg_kendall(metric, human, "item", "acc23")[0] and eps >= 0  # calibration never loses
    assert 0.4 < acc < 0.8  # chrF is a weak segment-level metric, not a random or perfect one


def test_acc_eq_refuses_more_pairs_than_it_holds_and_says_which_sample_rate_fits(monkeypatch):
    from mtgauntlet.evaluation.statistics import tie_calibration

    monkeypatch.setattr(tie_calibration, "MAX_PAIRS", 100)
    human = {s: list(range(20)) for s in "AB"}  # by system: 2 groups x 190 pairs = 380 pairs
    with pytest.raises(GauntletError, match=r"about 380 pairs.*sample_rate of at most 0\.26"):
        seg_acc_eq(human, human, "sys")
    assert seg_acc_eq(human, human, "sys", sample_rate=0.2)[0] == pytest.approx(1.0)  # perfect, whatever is drawn
