import json
import math
import random
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest

from mtgauntlet.records import load_records
from mtgauntlet.builders.bandit import BanditSearch, BanditState, choose
from mtgauntlet.builders.bandit import topics as T
from mtgauntlet.builders.bandit.algorithms import contextual_score
from mtgauntlet.builders.bandit.sampler import CorpusSampler
from mtgauntlet.builders.bandit.simulate import run_algorithm
from mtgauntlet.corpora.formats import read_flores
from tests.cli import invoke
from tests.openai_server import ScriptedServer



def _search(algorithm, means, budget, seed, cap=10, sd=0.15, b=1):
    rng = random.Random(seed)
    state = BanditState(len(means))
    while state.pulls < budget:
        picks = choose(algorithm, state, rng, cap=cap, epsilon=0.7, b=min(b, budget - state.pulls))
        if not picks:
            break
        for t in picks:
            state.update(t, rng.gauss(means[t], sd))
    return state


def _arms(seed):
    r = random.Random(1000 + seed)
    means = [r.uniform(0.2, 0.7) for _ in range(50)]
    best = r.randrange(50)
    means[best] = 0.9
    return means, best


def test_eps_greedy_finds_best_of_50_arms_with_300_pulls():
    hits = {"eps-greedy": 0, "brute": 0, "greedy": 0, "ucb": 0}
    for seed in range(100):
        means, best = _arms(seed)
        for algo in hits:
            state = _search(algo, means, 300, seed)
            assert state.pulls == 300 and max(state.counts) <= 10  # budget and cap respected
            hits[algo] += state.top_k(1) == [best]
    assert hits["eps-greedy"] >= 90
    assert hits["brute"] < hits["eps-greedy"]


def test_batched_variant_respects_budget_and_cap():
    means, _ = _arms(0)
    state = _search("eps-greedy", means, 97, 1, cap=3, b=8)
    assert state.pulls == 97 and max(state.counts) <= 3


def test_contextual_score_equals_hand_computation():
    state = BanditState(4)
    for t, ds in {1: [0.6], 2: [0.2, 0.4], 3: [0.9]}.items():
        for d in ds:
            state.update(t, d)
    neigh = [(1, 0.5), (2, 0.25), (3, 0.0)]
    # topic 0 never sampled: beta = 0; neighbours with sim > 0 and samples: 1 (0.5, mean 0.6), 2 (0.25, mean 0.3)
    w1, w2 = math.exp(0.5), math.exp(0.25)
    expected = (w1 * 0.6 + w2 * 0.3) / (w1 + w2)
    assert contextual_score(state, 0, neigh) == pytest.approx(expected)
    # topic 1 sampled once: beta = 0.5 between its mean and its neighbours' softmax average
    assert contextual_score(state, 1, [(2, 1.0), (3, 1.0)]) == pytest.approx(0.5 * 0.6 + 0.5 * (0.3 + 0.9) / 2)
    assert contextual_score(state, 0, [(1, 0.5)]) is None  # fewer than two scoreable neighbours
    assert contextual_score(state, 2, neigh) == pytest.approx(0.3)  # two samples: own mean only


def test_topics_from_taxonomy_and_jaccard(tmp_path):
    p = tmp_path / "tax.yaml"
    p.write_text("law:\n  tax law: {}\n  criminal law:\n    - prison vs jail\nmusic:\n  - baroque harpsichord music\n")
    ts = T.from_taxonomy(p)
    names = [t.name for t in ts]
    assert names == ["law", "tax law", "criminal law", "prison vs jail", "music", "baroque harpsichord music"]
    assert ts[3].path == ["law", "criminal law", "prison vs jail"]
    nb = T.neighbours(ts)
    assert dict(nb[1])[2] == pytest.approx(T.jaccard({"tax", "law"}, {"criminal", "law"}))


def test_simulation_kernel_budget_cap_and_quality():
    rng = np.random.default_rng(0)
    mu = rng.normal(30, 10, 5000)
    res = {a: run_algorithm(a, mu, 15.0, 10_000, 10, 10, 0.7, 1, 3) for a in ("eps-greedy", "brute", "greedy")}
    for r in res.values():
        assert r["pulls"] == 10_000 and r["max_pulls_per_topic"] <= 10
    assert res["eps-greedy"]["topk_true_mean"] > res["brute"]["topk_true_mean"]
    r = invoke(["simulate", "bandit", "--topics", "20000", "--budget", "30000", "--algorithms",
                            "eps-greedy,brute", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert set(data["algorithms"]) == {"eps-greedy", "brute"}
    assert data["algorithms"]["eps-greedy"]["pulls"] == 30000 and data["oracle_topk_mean"] > 0
    assert data["algorithms"]["eps-greedy"]["topk_true_mean"] <= data["oracle_topk_mean"]


class _Interrupting:
    def __init__(self, inner, after):
        self.inner, self.after, self.n, self.rows = inner, after, 0, inner.rows

    def sample(self, t, used, rng):
        self.n += 1
        if self.n > self.after:
            raise KeyboardInterrupt
        return self.inner.sample(t, used, rng)


@pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium not installed")
def test_real_search_on_flores_resumes_identically(tmp_path, shared_data):
    rows = read_flores(shared_data / "flores200-devtest/flores200_devtest.tsv.gz", src="en", tgt="es").rows
    topics = T.from_column(rows, "topic")
    sampler = CorpusSampler(rows, topics, label_key="topic")
    kw = dict(mt=["apertium"], qe="roundtrip", algorithm="eps-greedy", budget=14, k=3, cap=3, seed=5,
              src_lang="en", tgt_lang="es", source="flores")
    full = BanditSearch(topics, sampler, **kw).run(tmp_path / "full")
    with pytest.raises(KeyboardInterrupt):
        BanditSearch(topics, _Interrupting(sampler, 6), **kw).run(tmp_path / "cut")
    resumed = BanditSearch(topics, sampler, **kw).run(tmp_path / "cut")
    assert resumed["top_topics"] == full["top_topics"]
    import pyarrow.parquet as pq

    log = lambda d: [(r["topic"], r["source_id"], r["difficulty"]) for r in  # noqa: E731
                     sorted(pq.read_table(d / "pulls").to_pylist(), key=lambda r: r["step"])]
    assert log(tmp_path / "cut") == log(tmp_path / "full")
    recs = load_records(tmp_path / "full").to_pylist()
    assert {r["topic"] for r in recs} == {t["topic"] for t in full["top_topics"]}
    assert all(r["provenance_url"] and r["source_dataset"] == "flores200-devtest" for r in recs)
    assert full["counts"]["pulls"] == 14


# -- issue 19 items 9-10, issue 17: paper-faithful algorithms, calibrated simulation, replay, CLI end to end ----
def test_contextual_explores_among_all_unsampled_topics_while_one_is_unscoreable():
    # topics 0, 1 sampled; topic 2 is scoreable (two sampled neighbours), topic 3 is not (no neighbour):
    # Algorithm 5 then picks uniformly among ALL unsampled topics (2 and 3), not only the unscoreable one
    state = BanditState(4)
    state.update(0, 30.0)
    state.update(1, 50.0)
    neigh = [[(2, 0.5)], [(2, 0.5)], [(0, 0.5), (1, 0.5)], []]
    assert contextual_score(state, 2, neigh[2]) is not None and contextual_score(state, 3, neigh[3]) is None
    picks = {choose("contextual", state, random.Random(s), neighbours=neigh)[0] for s in range(40)}
    assert picks == {2, 3}
    state.update(3, 10.0)  # now every topic is scoreable: exploit the best contextual score
    assert choose("contextual", state, random.Random(0), neighbours=neigh, cap=1) == [2]


def test_ucb_bonus_is_scaled_to_the_0_100_difficulty():
    state = BanditState(2)
    for d in (60.0, 61.0, 59.0, 60.0, 60.0, 60.0, 60.0, 60.0):
        state.update(0, d)  # well known, mean 60
    state.update(1, 55.0)  # pulled once, mean 55: with bonus 100*sqrt(2 ln n / n_t) it is worth another look
    assert choose("ucb", state, random.Random(0)) == [1]
    assert 55.0 + math.sqrt(2 * math.log(9)) < 60.0 + math.sqrt(2 * math.log(9) / 8)  # unscaled UCB1 would not


def test_simulation_defaults_match_the_papers_scaling():
    r = invoke(["simulate", "bandit", "--sizes", "3200,32000,320000", "--json"])
    assert r.exit_code == 0, r.output
    top10 = [row["oracle_topk"] for row in json.loads(r.stdout)["scaling"]]
    top1 = json.loads(r.stdout)["scaling"][0]["oracle_top1"]
    # Figure 5: the synthetic process is more conservative than real data (3.2k topics: top-1 36, top-10 25)
    assert 18 <= top10[0] <= 25 and top1 <= 36
    steps = [b - a for a, b in zip(top10, top10[1:])]  # "a 10-fold increase in topic set size leads to +5"
    assert all(3 <= s <= 7.5 for s in steps) and 4 <= sum(steps) / len(steps) <= 6.5


def test_item_difficulty_is_clipped_to_0_100_and_true_means_are_exact():
    from mtgauntlet.builders.bandit.simulate import true_means

    mu = np.full(200, -40.0)
    res = run_algorithm("brute", mu, 12.0, 400, 5, 10, 0.7, 1, 3)
    assert res["topk_observed_mean"] == 0.0 and res["topk_true_mean"] == pytest.approx(float(true_means(mu, 12)[0]))
    draws = np.clip(np.random.default_rng(0).normal(3.0, 12.0, 400_000), 0, 100)
    assert float(true_means(np.array([3.0]), 12.0)[0]) == pytest.approx(draws.mean(), abs=0.05)


def test_replay_reports_true_difficulty_of_the_selected_topics(tmp_path):
    from mtgauntlet.evaluation.bandit_replay import replay

    rng = random.Random(4)
    pool = {f"t{i}": [min(100.0, max(0.0, rng.gauss(3 * i, 15))) for _ in range(25)] for i in range(30)}
    truth = {t: sum(v) / len(v) for t, v in pool.items()}
    path = tmp_path / "pool.tsv"
    path.write_text("topic\tdifficulty\n" + "".join(f"{t}\t{d}\n" for t, v in pool.items() for d in v) +
                    "t1\t\n", encoding="utf-8")  # an unscored sample is left out
    r = invoke(["evaluate", "bandit", "--pool", str(path), "--budgets", "30,60,100", "--k", "3",
                            "--algorithms", "brute,greedy,eps-greedy,greedy-10%", "--repeats", "4", "--json",
                            "--plot", str(tmp_path / "fig2.png")])
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert (tmp_path / "fig2.png").stat().st_size > 1000
    best = sorted(truth.values(), reverse=True)
    assert res["oracle"]["top1"] == pytest.approx(best[0]) and res["oracle"]["topk"] == pytest.approx(sum(best[:3]) / 3)
    assert res["unscored_samples_left_out"] == 1 and res["samples"] == 30 * 25
    for row in res["rows"]:
        for algo in ("brute", "greedy", "eps-greedy", "greedy-10%"):
            assert row[algo]["top1"] <= res["oracle"]["top1"] + 1e-9 and row[algo]["topk"] <= res["oracle"]["topk"] + 1e-9
    assert greedy_beats_brute(res)
    # a topic whose first sample happens to be very hard is selected, but reported with its TRUE mean (20), never
    # the optimistic observed 100
    small = {"a": [30.0] * 25, "b": [40.0] * 25, "c": [50.0] * 25, "trap": [100.0] * 5 + [0.0] * 20}
    got = [replay(small, ["greedy"], [4], k=1, repeats=1, seed=s)["rows"][0]["greedy"]["top1"] for s in range(40)]
    assert set(got) == {50.0, 20.0}


def greedy_beats_brute(res) -> bool:
    last = res["rows"][-1]  # 100 pulls over 30 topics: exploitation pays, greedy on 10% of the topics misses
    return (last["eps-greedy"]["topk"] > last["brute"]["topk"] and last["greedy"]["topk"] > last["brute"]["topk"]
            and last["greedy-10%"]["topk"] < last["greedy"]["topk"])


def test_cli_bandit_end_to_end_without_apertium(tmp_path):
    from tests.scripted_roles import QE_FAILS_ON, cli, scripted_stack

    words = ["harbour", "ledger", "tenancy", "estate", "remainder", "jail", "prison", "court", "statute", "removal"]
    rows = [(f"topic {t}", f"The {words[(t + i) % 10]} case number {i} was discussed at length"
             + (f" {QE_FAILS_ON}" if (t, i) == (1, 0) else "")) for t in range(6) for i in range(3)]
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("src\ttopic\n" + "".join(f"{s}\t{t}\n" for t, s in rows), encoding="utf-8")
    with scripted_stack() as s:
        common = ["--corpus", str(corpus), "--topic-column", "topic", "--min-words", "3", "--mt", s["mt"],
                  "--qe", f"{s['qe_a']},{s['qe_b']}", "--src-lang", "en", "--tgt-lang", "de"]
        code, out, err = cli("build", "bandit", *common, "--budget", "9", "--k", "2",
                                  "--cap", "2", "--out", str(tmp_path / "search"))
        assert code == 0, err
        # the progress display of every build (a bar on a terminal, else a line per 30 s and at the end)
        assert err.count("build bandit (pulls): 9/9") == 1 and "pulls 1/9" not in err
        m = json.loads((tmp_path / "search" / "build.json").read_text())
        assert m["counts"]["pulls"] == 9 and "|qe:llm-as-qe:" in m["signature"]
        pulls = pq.read_table(tmp_path / "search" / "pulls").to_pylist()
        failed = [p for p in pulls if p["phase"] == "failed"]
        assert m["counts"]["qe_failures"] == len(failed) and m["counts"]["scored_pulls"] == 9 - len(failed)
        assert all(p["difficulty"] is None and QE_FAILS_ON in p["text"] for p in failed)
        for p in pulls:
            if p["difficulty"] is not None:
                comps = p["qe_components"][0]
                assert p["difficulty"] == pytest.approx(100 - sum(comps) / 2)
        # pre-score a pool (3 samples per topic), then replay the algorithms over it
        code, out, err = cli("build", "bandit", *common, "--prescore", "3",
                                  "--out", str(tmp_path / "pool"))
        assert code == 0, err
        assert json.loads((tmp_path / "pool" / "build.json").read_text())["counts"]["pulls"] == 18
        code, out, err = cli("evaluate", "bandit", "--pool", str(tmp_path / "pool"),
                                  "--k", "2", "--cap", "2", "--algorithms", "greedy,eps-greedy,contextual",
                                  "--repeats", "2")
        assert code == 0, err
        assert "oracle top-1" in out and "1 unscored left out" in out
    with ScriptedServer(default=lambda m: "```python\n{}\n```") as empty:
        code, out, err = cli("build", "bandit", "--llm-topics", "Law", "--llm",
                                  f"openai:o@{empty.url}", "--corpus", str(corpus), "--out", str(tmp_path / "x"))
    assert code == 2 and "error: the LLM" in err and "gave no topic" in err


# -- issue 30 item 11: Figure 3 (eps-greedy near the oracle by ~1.5 pulls per topic) and the Figure 4 panel --------
def test_figure3_eps_greedy_reaches_the_oracle_by_1_5_pulls_per_topic():
    # the paper: "close to oracle difficulty with approximately 1.5 samples per topic"; with the old within-topic
    # sd of 12 the cap-10 observed means stay too noisy (about 3 below the oracle however large the budget)
    def run(*extra):
        r = invoke(["simulate", "bandit", "--topics", "100000", "--budget", "150000", "--algorithms", "eps-greedy",
                    "--json", *extra])
        assert r.exit_code == 0, r.output
        data = json.loads(r.stdout)
        return data["oracle_topk_mean"] - data["algorithms"]["eps-greedy"]["topk_true_mean"], data
    gap, data = run()
    assert data["mixture"]["sigma"] == 5.0 and 0 <= gap <= 0.6
    noisy_gap, _ = run("--sigma", "12")
    assert noisy_gap > 2.0


def test_mixture_panel_plots_topic_difficulty_not_raw_locations(tmp_path):
    from mtgauntlet.builders.bandit.simulate import Mixture, budget_curve, mixture_panel, plot

    mixture = Mixture()
    mu = mixture.sample_means(50_000, np.random.default_rng(13))
    assert (mu < 0).mean() > 0.05  # the raw locations the panel used to plot
    panel = mixture_panel(mu, mixture, k=10)
    assert panel["difficulty"].min() >= 0 and panel["difficulty"].max() <= 100
    assert panel["xs"].min() >= 0 and panel["xs"].max() <= 100 and (panel["density"] >= 0).all()
    assert np.trapezoid(panel["density"], panel["xs"]) == pytest.approx(1.0, abs=0.03)
    hist, edges = np.histogram(panel["difficulty"], bins=40, range=(0, panel["xs"][-1]), density=True)
    centres = (edges[1:] + edges[:-1]) / 2  # the mixture curve carried onto the difficulty scale fits the histogram
    assert np.abs(np.interp(centres[2:], panel["xs"], panel["density"]) - hist[2:]).max() < 0.01
    assert panel["oracle_topk"] == pytest.approx(np.sort(panel["difficulty"])[-10:].mean())
    curve = budget_curve(2000, [0.5, 1.0], ["eps-greedy"], k=10)
    assert plot(curve, tmp_path / "fig3.png").stat().st_size > 10_000
