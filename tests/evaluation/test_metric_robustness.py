"""Metric robustness aggregates of the SMAUG paper: mean ± std of tau over language pairs per phenomenon
(Figures 4-7), Pearson correlation of tau and d over (metric, lp) points (Figure 8), and the tie rule."""

import json

import numpy as np
import pytest

from mtgauntlet.evaluation.metric_robustness import PairSet, evaluate, tau_and_d, tau_d_correlation, tau_over_lps
from tests.support.cli import invoke


def test_ties_discordant_or_ignored():
    good, bad = [0.9, 0.5, 0.4, 0.1], [0.1, 0.3, 0.4, 0.6]  # C = 2, one tie, D = 1
    assert tau_and_d(good, bad, 0.1, 0.9)[:4:2] == (0.0, 2)  # tie discordant: (2 - 2) / 4
    tau, d, c, dis = tau_and_d(good, bad, 0.1, 0.9, ties="ignore")
    assert (c, dis) == (2, 1) and tau == pytest.approx(1 / 3)  # SMAUG eq. 1 as written: (2 - 1) / 3
    assert d == pytest.approx(((0.9 - 0.1) + (0.5 - 0.3)) / 2 / 0.8)  # d does not depend on the tie rule
    assert np.isnan(tau_and_d([1.0], [1.0], 0, 1, ties="ignore")[0])


def _pairs():
    # two lps x two phenomena, four pairs each; scores for two metrics in columns m1_g/m1_b, m2_g/m2_b
    rows = []
    for lp in ("es-en", "pt-en"):
        for ph in ("ne", "num"):
            rows += [(lp, ph)] * 4
    n = len(rows)
    return PairSet(
        src=[""] * n,
        ref=[""] * n,
        good=["g"] * n,
        bad=["b"] * n,
        phenomenon=[p for _, p in rows],
        lp=[lp for lp, _ in rows],
        src_lang=[lp[:2] for lp, _ in rows],
        tgt_lang=["en"] * n,
        extra={},
    )


def test_tau_over_lps_and_figure_8_correlation_by_hand():
    pairs = _pairs()
    # metric 1: es-en ne 4/4 concordant, num 2/4; pt-en ne 3/4, num 0/4 (tau 1, 0, 0.5, -1)
    conc1 = [1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0]
    conc2 = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0]  # tau 1, 1, 1, -0.5
    results = []
    for name, conc, top in (("m1", conc1, 0.8), ("m2", conc2, 0.9)):
        good = [top if c else 0.2 for c in conc]
        bad = [0.3 if c else 0.6 for c in conc]
        results += [{"metric": name, **r} for r in evaluate(pairs, good, bad)]
    agg = {(a["metric"], a["phenomenon"]): a for a in tau_over_lps(results)}
    assert agg[("m1", "ne")]["tau_mean"] == pytest.approx(0.75)
    assert agg[("m1", "ne")]["tau_std"] == pytest.approx(np.std([1.0, 0.5], ddof=1))
    assert agg[("m1", "num")]["tau_mean"] == pytest.approx(-0.5) and agg[("m1", "num")]["lps"] == 2
    assert agg[("m2", "num")]["tau_std"] == pytest.approx(np.std([1.0, -0.5], ddof=1))
    corr = tau_d_correlation(results)
    # points: (metric, lp) -> mean over ne, num of tau and of d; d = 0.5 on every concordant pair (span 0.6).
    # m1 pt-en num has no concordant pair: d is undefined (0/0), so that row leaves the point's d mean (paper
    # eq. 2), not entered as d = 0; its tau of -1 stays in the point's tau mean (the point is over all phenomena)
    taus = {
        ("m1", "es-en"): (1 + 0) / 2,
        ("m1", "pt-en"): (0.5 - 1) / 2,
        ("m2", "es-en"): 1.0,
        ("m2", "pt-en"): (1 - 0.5) / 2,
    }
    d1, d2 = 0.5 / 0.6, 0.6 / 0.7  # m2's good scores are 0.9: span 0.7
    ds = {("m1", "es-en"): d1, ("m1", "pt-en"): d1, ("m2", "es-en"): d2, ("m2", "pt-en"): d2}
    keys = sorted(taus)
    assert corr["n_points"] == 4 and corr["left_out"] == 1
    assert (corr["tau_terms"], corr["d_terms"], corr["tau_left_out"]) == (8, 7, 0)
    pt = next(p for p in corr["points"] if (p["metric"], p["lp"]) == ("m1", "pt-en"))
    assert (pt["n_tau"], pt["n_d"]) == (2, 1) and pt["tau"] == pytest.approx(-0.25)
    assert [(p["metric"], p["lp"]) for p in corr["points"]] == keys
    assert corr["pearson_r"] == pytest.approx(np.corrcoef([taus[k] for k in keys], [ds[k] for k in keys])[0, 1])


def test_d_without_a_concordant_pair_is_undefined_not_zero():
    tau, d, c, dis = tau_and_d([0.1, 0.2], [0.5, 0.6], 0.1, 0.6)
    assert (tau, c, dis) == (-1.0, 0, 2) and np.isnan(d)
    pairs = _pairs()
    rows = evaluate(pairs, [0.2] * 16, [0.7] * 16)  # every pair discordant
    assert rows and all(r["d"] is None and r["tau"] == -1.0 for r in rows)
    corr = tau_d_correlation([{"metric": "m", **r} for r in rows])
    assert corr["n_points"] == 0 and corr["left_out"] == 4 and corr["pearson_r"] is None
    assert corr["tau_terms"] == 4 and all(p["tau"] == -1.0 and p["d"] is None for p in corr["points"])
    agg = tau_over_lps([{"metric": "m", **r} for r in rows])
    assert all(a["d_mean"] is None for a in agg)


def test_figure_8_point_averages_tau_over_every_phenomenon():
    """A phenomenon a metric always gets wrong (tau -1, d undefined) pulls its point's tau down: tau -1 and +1
    average to 0, not to 1.0 (the point used to leave the failing phenomenon's tau out with its d)."""
    pairs = _pairs()
    # per lp: ne 4/4 concordant (tau 1), num 0/4 (tau -1, d undefined)
    conc = [1, 1, 1, 1, 0, 0, 0, 0] * 2
    results = [
        {"metric": "m", **r}
        for r in evaluate(pairs, [0.9 if c else 0.1 for c in conc], [0.2 if c else 0.5 for c in conc])
    ]
    corr = tau_d_correlation(results)
    assert [p["tau"] for p in corr["points"]] == [0.0, 0.0]
    assert [(p["n_tau"], p["n_d"]) for p in corr["points"]] == [(2, 1), (2, 1)]
    assert (corr["tau_terms"], corr["d_terms"], corr["left_out"]) == (4, 2, 2)


def test_evaluate_metric_cli_aggregates_on_demetr(shared_data):
    r = invoke(
        [
            "evaluate",
            "metric",
            "--set",
            str(shared_data / "demetr/demetr_dev.jsonl.gz"),
            "-m",
            "chrf",
            "-m",
            "bleu",
            "--lp",
            "de-en,es-en,fr-en",
            "--ties",
            "ignore",
            "--phenomena",
            "critical_id8_negation,critical_id10_numbers_replaced",
            "--json",
        ]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["ties"] == "ignore" and data["metrics"] == ["chrf", "bleu"]
    res = [x for x in data["results"] if x["phenomenon"] != "all"]
    assert len(res) == 2 * 3 * 2 and all(x["n"] > 0 for x in res)  # numbers: only items DEMETR could perturb
    for a in data["tau_over_lps"]:
        taus = [x["tau"] for x in data["results"] if (x["metric"], x["phenomenon"]) == (a["metric"], a["phenomenon"])]
        assert a["lps"] == 3 and a["tau_mean"] == pytest.approx(np.mean(taus))
        assert a["tau_std"] == pytest.approx(np.std(taus, ddof=1))
    corr = data["tau_d_correlation"]
    pts = {(p["metric"], p["lp"]): p for p in corr["points"]}
    assert corr["n_points"] == 6
    for (m, lp), p in pts.items():
        mine = [x for x in res if (x["metric"], x["lp"]) == (m, lp)]
        assert p["tau"] == pytest.approx(np.mean([x["tau"] for x in mine]))
    assert corr["pearson_r"] == pytest.approx(
        np.corrcoef([p["tau"] for p in pts.values()], [p["d"] for p in pts.values()])[0, 1]
    )
    # ties ignored: concordant + discordant + ties == n on every row
    assert all(x["concordant"] + x["discordant"] + x["ties"] == x["n"] for x in data["results"])
    r = invoke(["evaluate", "metric", "--set", str(shared_data / "demetr/demetr_dev.jsonl.gz"), "--ties", "sometimes"])
    assert r.exit_code == 2 and "--ties" in r.output
