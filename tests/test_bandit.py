import json
import math
import random
import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from mtgauntlet.records import load_records
from mtgauntlet.builders.bandit import BanditSearch, BanditState, choose
from mtgauntlet.builders.bandit import topics as T
from mtgauntlet.builders.bandit.algorithms import contextual_score
from mtgauntlet.builders.bandit.sampler import CorpusSampler
from mtgauntlet.builders.bandit.simulate import run_algorithm
from mtgauntlet.cli.main import app
from mtgauntlet.corpora.formats import read_flores

runner = CliRunner()


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
    r = runner.invoke(app, ["simulate", "bandit", "--topics", "20000", "--budget", "30000", "--algorithms",
                            "eps-greedy,brute", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
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
