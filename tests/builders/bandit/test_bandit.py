import json
import math
import random
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest

from mtgauntlet.builders.bandit import BanditSearch, BanditState, choose
from mtgauntlet.builders.bandit import topics as T
from mtgauntlet.builders.bandit.algorithms import contextual_score
from mtgauntlet.builders.bandit.sampler import CorpusSampler
from mtgauntlet.builders.bandit.simulate import run_algorithm
from mtgauntlet.builders.options.breaker import MTBreakerOptions
from mtgauntlet.corpora.formats import read_flores
from mtgauntlet.options import options_of
from mtgauntlet.records import load_records
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer


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
    r = invoke(
        ["simulate", "bandit", "--topics", "20000", "--budget", "30000", "--algorithms", "eps-greedy,brute", "--json"]
    )
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
    kw = dict(
        mt=["apertium"],
        qe="roundtrip",
        algorithm="eps-greedy",
        budget=14,
        k=3,
        cap=3,
        seed=5,
        src_lang="en",
        tgt_lang="es",
        source="flores",
    )
    full = BanditSearch(topics, sampler, **kw).run(tmp_path / "full")
    with pytest.raises(KeyboardInterrupt):
        BanditSearch(topics, _Interrupting(sampler, 6), **kw).run(tmp_path / "cut")
    resumed = BanditSearch(topics, sampler, **kw).run(tmp_path / "cut")
    assert resumed["top_topics"] == full["top_topics"]
    import pyarrow.parquet as pq

    log = lambda d: [  # noqa: E731
        (r["topic"], r["source_id"], r["difficulty"])
        for r in sorted(pq.read_table(d / "pulls").to_pylist(), key=lambda r: r["step"])
    ]
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
    path.write_text(
        "topic\tdifficulty\n" + "".join(f"{t}\t{d}\n" for t, v in pool.items() for d in v) + "t1\t\n", encoding="utf-8"
    )  # an unscored sample is left out
    r = invoke(
        [
            "evaluate",
            "bandit",
            "--pool",
            str(path),
            "--budgets",
            "30,60,100",
            "--k",
            "3",
            "--algorithms",
            "brute,greedy,eps-greedy,greedy-10%",
            "--repeats",
            "4",
            "--json",
            "--plot",
            str(tmp_path / "fig2.png"),
        ]
    )
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert (tmp_path / "fig2.png").stat().st_size > 1000
    best = sorted(truth.values(), reverse=True)
    assert res["oracle"]["top1"] == pytest.approx(best[0]) and res["oracle"]["topk"] == pytest.approx(sum(best[:3]) / 3)
    assert res["unscored_samples_left_out"] == 1 and res["samples"] == 30 * 25
    for row in res["rows"]:
        for algo in ("brute", "greedy", "eps-greedy", "greedy-10%"):
            assert (
                row[algo]["top1"] <= res["oracle"]["top1"] + 1e-9 and row[algo]["topk"] <= res["oracle"]["topk"] + 1e-9
            )
    assert greedy_beats_brute(res)
    # a topic whose first sample happens to be very hard is selected, but reported with its TRUE mean (20), never
    # the optimistic observed 100
    small = {"a": [30.0] * 25, "b": [40.0] * 25, "c": [50.0] * 25, "trap": [100.0] * 5 + [0.0] * 20}
    got = [replay(small, ["greedy"], [4], k=1, repeats=1, seed=s)["rows"][0]["greedy"]["top1"] for s in range(40)]
    assert set(got) == {50.0, 20.0}


def greedy_beats_brute(res) -> bool:
    last = res["rows"][-1]  # 100 pulls over 30 topics: exploitation pays, greedy on 10% of the topics misses
    return (
        last["eps-greedy"]["topk"] > last["brute"]["topk"]
        and last["greedy"]["topk"] > last["brute"]["topk"]
        and last["greedy-10%"]["topk"] < last["greedy"]["topk"]
    )


def test_cli_bandit_end_to_end_without_apertium(tmp_path):
    from tests.support.scripted_roles import QE_FAILS_ON, cli, scripted_stack

    words = ["harbour", "ledger", "tenancy", "estate", "remainder", "jail", "prison", "court", "statute", "removal"]
    rows = [
        (
            f"topic {t}",
            f"The {words[(t + i) % 10]} case number {i} was discussed at length"
            + (f" {QE_FAILS_ON}" if (t, i) == (1, 0) else ""),
        )
        for t in range(6)
        for i in range(3)
    ]
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("src\ttopic\n" + "".join(f"{s}\t{t}\n" for t, s in rows), encoding="utf-8")
    with scripted_stack() as s:
        common = [
            "--corpus",
            str(corpus),
            "--topic-column",
            "topic",
            "--min-words",
            "3",
            "--mt",
            s["mt"],
            "--qe",
            f"{s['qe_a']},{s['qe_b']}",
            "--src-lang",
            "en",
            "--tgt-lang",
            "de",
        ]
        code, out, err = cli(
            "build", "bandit", *common, "--budget", "9", "--k", "2", "--cap", "2", "--out", str(tmp_path / "search")
        )
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
        code, out, err = cli("build", "bandit", *common, "--prescore", "3", "--out", str(tmp_path / "pool"))
        assert code == 0, err
        assert json.loads((tmp_path / "pool" / "build.json").read_text())["counts"]["pulls"] == 18
        code, out, err = cli(
            "evaluate",
            "bandit",
            "--pool",
            str(tmp_path / "pool"),
            "--k",
            "2",
            "--cap",
            "2",
            "--algorithms",
            "greedy,eps-greedy,contextual",
            "--repeats",
            "2",
            "--min-samples",
            "3",
        )
        assert code == 0, err
        # topic 1's failed pull leaves it 2 scored samples: under --min-samples, left out and counted
        assert "oracle top-1" in out and "1 unscored left out; 1 topics under 3 samples left out" in out
        assert "pool: 5 topics" in out
    with ScriptedServer(default=lambda m: "```python\n{}\n```") as empty:
        code, out, err = cli(
            "build",
            "bandit",
            "--llm-topics",
            "Law",
            "--llm",
            f"openai:o@{empty.url}",
            "--corpus",
            str(corpus),
            "--out",
            str(tmp_path / "x"),
        )
    assert code == 2 and "error: the LLM" in err and "gave no topic" in err


# -- issue 30 item 11: Figure 3 (eps-greedy near the oracle by ~1.5 pulls per topic) and the Figure 4 panel --------
def test_figure3_eps_greedy_reaches_the_oracle_by_1_5_pulls_per_topic():
    # the paper: "close to oracle difficulty with approximately 1.5 samples per topic"; with the old within-topic
    # sd of 12 the cap-10 observed means stay too noisy (about 3 below the oracle however large the budget)
    def run(*extra):
        r = invoke(
            [
                "simulate",
                "bandit",
                "--topics",
                "100000",
                "--budget",
                "150000",
                "--algorithms",
                "eps-greedy",
                "--json",
                *extra,
            ]
        )
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


# -- issue 30 item 8: the paper's 25-text minimum, LLM sampler retries, the paper's QE prompt ----------------
def test_replay_pool_leaves_out_topics_under_min_samples(tmp_path):
    from mtgauntlet.evaluation.bandit_replay import load_pool
    from tests.support.scripted_roles import cli

    rows = [("full", 10.0 + i) for i in range(25)] + [("short", 90.0)] * 24 + [("short", "")]
    path = tmp_path / "pool.tsv"
    path.write_text("topic\tdifficulty\n" + "".join(f"{t}\t{d}\n" for t, d in rows), encoding="utf-8")
    pool, missing, small = load_pool(path)
    assert set(pool) == {"full"} and small == {"short": 24} and missing == 1  # the paper: 25 texts or discarded
    assert set(load_pool(path, min_samples=24)[0]) == {"full", "short"}
    code, out, err = cli("evaluate", "bandit", "--pool", str(path), "--k", "1", "--budgets", "5", "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["topics"] == 1 and res["small_topics_left_out"] == 1 and res["min_samples"] == 25
    assert res["oracle"]["top1"] == pytest.approx(22.0)  # "short" (difficulty 90) no longer wins
    code, out, err = cli("evaluate", "bandit", "--pool", str(path), "--min-samples", "26")
    assert code == 2 and err.startswith("error: ") and "no topic of the pool has 26 scored samples" in err
    assert len(err.strip().splitlines()) == 1


def test_llm_sampler_retries_an_unparseable_answer_before_exhausting_a_topic():
    from mtgauntlet.builders.bandit.sampler import LLMSampler
    from mtgauntlet.models import registry

    good = json.dumps(
        {
            "extracted_snippets": [
                {"text": "The harbour tenancy case was heard on Monday morning.", "source_url": "http://example.com/a"}
            ]
        }
    )
    with ScriptedServer(default=lambda m: good) as srv:
        sampler = LLMSampler(registry.load("llm", f"openai:s@{srv.url}"), min_words=5)
        srv.script = [("ok", "I could not find anything, sorry.")]
        got = sampler.sample(T.Topic("tax law", ["tax law"]), set(), random.Random(1))
        assert got["text"].startswith("The harbour") and len(srv.requests) == 2
        assert sampler.failures == {"sampler_failures": 1, "sampler_retries": 1, "sampler_calls": 2}
        srv.script = [("ok", "nothing")] * 3  # every try unparseable: exhausted after 1 + 2 retries, counted
        assert sampler.sample(T.Topic("music", ["music"]), set(), random.Random(2)) is None
        assert len(srv.requests) == 5 and sampler.failures == {
            "sampler_failures": 4,
            "sampler_retries": 3,
            "sampler_calls": 5,
        }


def test_bandit_llm_qe_asks_with_the_bandit_papers_prompt(tmp_path):
    from mtgauntlet.builders.base import Item
    from mtgauntlet.builders.mtbreaker import MTBreakerBuilder
    from mtgauntlet.core.builds import item_rng
    from tests.support.scripted_roles import cli, scripted_stack

    corpus = tmp_path / "corpus.tsv"
    corpus.write_text(
        "src\ttopic\n" + "".join(f"The ledger entry {i} was written by the clerk\tt{i % 2}\n" for i in range(4)),
        encoding="utf-8",
    )
    with scripted_stack() as s:
        code, out, err = cli(
            "build",
            "bandit",
            "--corpus",
            str(corpus),
            "--topic-column",
            "topic",
            "--min-words",
            "3",
            "--mt",
            s["mt"],
            "--qe",
            s["qe_a"],
            "--budget",
            "3",
            "--k",
            "1",
            "--out",
            str(tmp_path / "b"),
        )
        assert code == 0, err
        asked = [r["body"]["messages"][-1]["content"] for r in s["servers"]["qe_a"].requests]
        assert len(asked) == 3 and all(
            a.startswith("Evaluate the quality of the translation on a scale from 0 to 100.")
            and "Don't think for too long (max 10 sentences)." in a
            for a in asked
        )
        s["servers"]["qe_a"].requests.clear()  # MT-breaker in the same process keeps its own paper's prompt
        MTBreakerBuilder(options_of(MTBreakerOptions, llm=s["llm"], mt=[s["mt"]], qe=s["qe_a"], steps=1)).process(
            Item(0, {"src": "The clerk wrote a new ledger entry."}), item_rng(1, 0)
        )
        mtb = [r["body"]["messages"][-1]["content"] for r in s["servers"]["qe_a"].requests]
        assert mtb and all("scale from 0 100" in a and "max 10 sentences" not in a for a in mtb)


def _ontologist(messages):
    """A scripted ontologist: the full tree its prompt asks for (root, depth, branching), names unique by path."""
    import re

    prompt = messages[-1]["content"]
    root = re.search(r"The root of the tree must be '([^']+)'", prompt).group(1)
    levels = int(re.search(r"must have a depth of (\d+)", prompt).group(1))
    branching = int(re.search(r"must generate exactly (\d+) unique", prompt).group(1))

    def grow(name, depth):
        return {} if depth == 0 else {f"{name}.{i}": grow(f"{name}.{i}", depth - 1) for i in range(1, branching + 1)}

    return "```python\n" + repr({root: grow(root, levels)}) + "\n```"


def test_llm_topics_grow_the_papers_tree(tmp_path):
    """The bandit paper grows five root domains, five subtopics per topic, five levels with the roots: 3,905 topics
    (3.2k after dropping those under 25 texts). --llm-topics paper --topic-levels 4 --topic-branching 5 asks for that
    tree (one ontologist prompt per root, with room for its answer); the default stays 2 levels (31 per root)."""
    from mtgauntlet.builders.bandit import topics as T
    from mtgauntlet.models import registry
    from tests.support.openai_server import ScriptedServer

    with ScriptedServer(default=_ontologist) as srv:
        llm = registry.load("llm", f"openai:o@{srv.url}")
        topics = T.from_llm_domains(llm, T.domains_of("paper"), levels=4, branching=5)
        assert len(topics) == 5 * (1 + 5 + 25 + 125 + 625) == 3905
        assert [t.name for t in topics if len(t.path) == 1] == ["science", "business", "law", "education", "culture"]
        assert max(len(t.path) for t in topics) == 5  # five levels, the roots included
        assert len(srv.requests) == 5 and all(r["body"]["max_tokens"] >= 24 * 781 for r in srv.requests)
        assert len(T.from_llm_domains(llm, ["law"])) == 31  # the default: 2 levels beneath the root
        r = invoke(
            [
                "build",
                "bandit",
                "--llm-topics",
                "paper",
                "--topic-levels",
                "4",
                "--llm",
                f"openai:o@{srv.url}",
                "--sampler",
                "llm",
                "--mt",
                f"llm-as-translator:openai:mt@{srv.url}",
                "--qe",
                f"llm-as-qe:openai:qe@{srv.url}",
                "--budget",
                "10",
                "--dry-run",
                "--out",
                tmp_path / "b",
            ]
        )
        assert r.exit_code == 0, r.output
        # the LLM: 5 trees + 10 sampler pulls; the dry run sends nothing
        assert f"openai:o@{srv.url}: 15 calls" in r.stdout and len(srv.requests) == 6


def test_llm_sampler_keeps_the_papers_20_to_40_word_snippets(tmp_path):
    """The paper's samples are 20-40 words: a snippet outside the band is not used; an answer with none in the band
    is asked again, then counted (sampler_length_failures); the card says the sampler had no search grounding."""
    from mtgauntlet.builders.bandit.sampler import LLMSampler
    from mtgauntlet.cards.card import build_notes
    from mtgauntlet.models import registry
    from tests.support.scripted_roles import cli, scripted_stack

    def snippet(n, tag):
        return {"text": " ".join([tag] + ["word"] * (n - 1)), "source_url": f"http://example.com/{tag}"}

    short, long_, fit = snippet(12, "short"), snippet(55, "long"), snippet(30, "fit")
    answer = lambda snippets: json.dumps({"extracted_snippets": snippets})  # noqa: E731
    with ScriptedServer(default=lambda m: answer([short, fit, long_])) as srv:
        sampler = LLMSampler(registry.load("llm", f"openai:s@{srv.url}"))
        assert sampler.sample(T.Topic("tax law", ["tax law"]), set(), random.Random(1))["text"].startswith("fit")
        srv.script = [("ok", answer([short, long_]))]  # none in the band: asked again
        got = sampler.sample(T.Topic("music", ["music"]), {fit["text"]}, random.Random(2))
        assert got is None and len(srv.requests) == 4  # 1 + 1 retry, then only drawn/off-length snippets: 2 retries
        assert sampler.failures["sampler_length_failures"] == 3 and sampler.failures["sampler_retries"] == 2
        taxonomy = tmp_path / "topics.yaml"
        taxonomy.write_text("- tax law\n- music\n", encoding="utf-8")
        with scripted_stack() as s:
            code, out, err = cli(
                "build",
                "bandit",
                "--topics",
                str(taxonomy),
                "--llm",
                f"openai:o@{srv.url}",
                "--sampler",
                "llm",
                "--mt",
                s["mt"],
                "--qe",
                s["qe_a"],
                "--budget",
                "2",
                "--k",
                "1",
                "--out",
                str(tmp_path / "b"),
            )
    assert code == 0, err
    manifest = json.loads((tmp_path / "b" / "build.json").read_text())
    assert manifest["counts"]["sampler_length_failures"] >= 1 and "|words:20-40|" in manifest["signature"]
    assert any("without web-search grounding" in n for n in build_notes({"builds": [manifest]}))


def test_within_topic_sd_is_estimated_from_real_per_item_scores(shared_data):
    """Figure 3's sigma from data (issue #37.6): pooled within-document sd of 100 - mean DA+SQM of a 3-system crowd on
    WMT23 en-de and zh-en; averaging more systems shrinks it, and grouping by the coarser domain widens it."""
    from mtgauntlet.evaluation.topic_noise import pooled_within_sd, read_mtme, within_topic_sd

    sd, dof = pooled_within_sd([[1.0, 3.0], [10.0, 10.0, 13.0], [7.0]])
    assert dof == 3 and sd == pytest.approx(math.sqrt((2.0 + 6.0) / 3))  # (n-1) s^2: 1 x 2, 2 x 3; a singleton adds 0
    rows = read_mtme(shared_data / "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz", lps=("en-de", "zh-en"))
    assert {r["lp"] for r in rows} == {"en-de", "zh-en"} and all(r["is_human_ref"] == "0" for r in rows)
    three = within_topic_sd(rows, crowd=3, repeats=5)
    every = within_topic_sd(rows, crowd=None)
    domain = within_topic_sd(rows, crowd=3, repeats=5, group="domain")
    assert 4.0 < three["sigma"] < 9.0 and every["sigma"] < three["sigma"] < domain["sigma"]
    assert every["per_lp"]["en-de"]["systems"] == 12 and every["per_lp"]["zh-en"]["systems"] == 15
