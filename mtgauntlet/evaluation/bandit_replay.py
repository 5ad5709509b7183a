"""Bandit search evaluated on real data by replay (the bandit paper's Figure 2 protocol).

A pool is pre-scored with N samples per topic (the paper: 25; ``gauntlet build bandit --prescore 25``); topics
with fewer than ``min_samples`` scored samples (default 25: the paper discards topics that cannot reach 25 texts)
are left out and counted. The
algorithms are then replayed over it: a pull on a topic returns the next of its pooled samples (in an order
shuffled per repeat, without replacement; a topic whose samples are used up is exhausted), and the search runs
with the project's own topic-choosing code (:func:`mtgauntlet.builders.bandit.algorithms.choose`). At each budget
the topics the algorithm would select (top-k by *observed* mean) are scored by their *true* difficulty: the mean
of all their pooled samples — not the optimistic observed mean of the few samples the search drew. The oracle is
the top-k by true difficulty. "greedy-10%" is the paper's baseline: greedy on a random 10% of the topics.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtgauntlet.builders.bandit.algorithms import ALGORITHMS, BanditState, choose
from mtgauntlet.errors import GauntletError, InputError

REPLAY_ALGORITHMS = ALGORITHMS + ("greedy-10%",)
DEFAULT_PULLS_PER_TOPIC = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)
MIN_SAMPLES = 25  # the paper keeps only topics that reach 25 texts


def load_pool(path: str | Path, min_samples: int = MIN_SAMPLES) -> tuple[dict[str, list[float]], int, dict[str, int]]:
    """Per-topic difficulties of a pre-scored pool: a bandit build directory (its pull log) or a table with
    ``topic`` and ``difficulty`` columns. Rows without a difficulty (failed pulls) are left out and counted;
    topics with fewer than ``min_samples`` scored samples are left out and returned with their sample counts:
    ``(pool, unscored rows, {small topic: samples})``."""
    if min_samples < 1:
        raise GauntletError("--min-samples must be >= 1")
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = Path(path)
    if p.is_dir():
        files = sorted((p / "pulls").glob("*.parquet")) or sorted(p.glob("*.parquet"))
        if not files:
            raise InputError("no pull log (pulls/*.parquet) in this directory", file=str(p))
        rows = pa.concat_tables([pq.read_table(f, columns=["topic", "difficulty"]) for f in files]).to_pylist()
    else:
        from mtgauntlet.corpora.readers import read_rows

        rows = read_rows(str(p), required=["topic", "difficulty"]).rows
    pool: dict[str, list[float]] = {}
    missing = 0
    for r in rows:
        d = r.get("difficulty")
        if d is None or d == "" or (isinstance(d, float) and math.isnan(d)):
            missing += 1
            continue
        try:
            value = float(d)
        except (TypeError, ValueError):
            raise InputError(
                f"difficulty {d!r} is not a number", file=str(p), line=r.get("_line"), field="difficulty"
            ) from None
        pool.setdefault(str(r["topic"]), []).append(value)
    if not pool:
        raise InputError("the pool holds no scored sample", file=str(p))
    small = {t: len(v) for t, v in sorted(pool.items()) if len(v) < min_samples}
    if len(small) == len(pool):
        raise InputError(
            f"no topic of the pool has {min_samples} scored samples (the most: "
            f"{max(small.values())}); pre-score more (--prescore) or lower --min-samples",
            file=str(p),
        )
    return {t: v for t, v in pool.items() if t not in small}, missing, small


def _run(
    algorithm: str,
    values: list[list[float]],
    budgets: Sequence[int],
    rng: random.Random,
    *,
    k: int,
    cap: float,
    epsilon: float,
    neighbours,
) -> list[list[int]]:
    """Replay one search; the observed top-k (topic indices) at each budget."""
    state = BanditState(len(values))
    cursor = [0] * len(values)
    picks_at: list[list[int]] = []
    for budget in budgets:
        while state.pulls < budget:
            picks = choose(algorithm, state, rng, cap=cap, epsilon=epsilon, b=1, neighbours=neighbours)
            if not picks:
                break
            t = picks[0]
            if cursor[t] >= len(values[t]):
                state.exhausted.add(t)
                continue
            state.update(t, values[t][cursor[t]])
            cursor[t] += 1
        picks_at.append(state.top_k(k))
    return picks_at


def replay(
    pool: dict[str, list[float]],
    algorithms: Sequence[str],
    budgets: Sequence[int],
    *,
    k: int = 10,
    cap: float = 10,
    epsilon: float = 0.7,
    repeats: int = 5,
    seed: int = 13,
) -> dict[str, Any]:
    """True mean difficulty of the top-1 and top-k selected by each algorithm at each budget, averaged over
    ``repeats`` replays (each with its own sample order and algorithm randomness)."""
    from mtgauntlet.builders.bandit.topics import Topic
    from mtgauntlet.builders.bandit.topics import neighbours as topic_neighbours
    from mtgauntlet.core.builds import item_rng

    unknown = [a for a in algorithms if a not in REPLAY_ALGORITHMS]
    if unknown:
        raise GauntletError(f"unknown algorithm(s) {', '.join(unknown)}; choose from {', '.join(REPLAY_ALGORITHMS)}")
    if repeats < 1 or k < 1:
        raise GauntletError("--repeats and --k must be >= 1")
    names = sorted(pool)
    truth = np.array([float(np.mean(pool[n])) for n in names])
    order = np.argsort(-truth, kind="stable")
    budgets = sorted({int(b) for b in budgets if b >= 1})
    if not budgets:
        raise GauntletError("give at least one budget >= 1 pull")
    neigh = topic_neighbours([Topic(n, [n]) for n in names]) if "contextual" in algorithms else None
    sums = {a: np.zeros((len(budgets), 2)) for a in algorithms}
    for rep in range(repeats):
        rng = item_rng(seed, rep)
        values = [rng.sample(pool[n], len(pool[n])) for n in names]  # this repeat's sample order per topic
        subset = sorted(rng.sample(range(len(names)), max(1, round(0.1 * len(names)))))
        for algo in algorithms:
            algo_rng = random.Random(rng.random())
            if algo == "greedy-10%":
                tops = [
                    [subset[t] for t in top]
                    for top in _run(
                        "greedy",
                        [values[i] for i in subset],
                        budgets,
                        algo_rng,
                        k=k,
                        cap=cap,
                        epsilon=epsilon,
                        neighbours=None,
                    )
                ]
            else:
                tops = _run(algo, values, budgets, algo_rng, k=k, cap=cap, epsilon=epsilon, neighbours=neigh)
            for j, top in enumerate(tops):
                if top:
                    sums[algo][j] += (truth[top[0]], truth[top].mean())
                else:
                    sums[algo][j] += (np.nan, np.nan)
    rows = []
    for j, b in enumerate(budgets):
        row: dict[str, Any] = {"budget": b, "pulls_per_topic": b / len(names)}
        for algo in algorithms:
            top1, topk = sums[algo][j] / repeats
            row[algo] = {"top1": float(top1), "topk": float(topk)}
        rows.append(row)
    return {
        "topics": len(names),
        "samples": int(sum(len(v) for v in pool.values())),
        "k": k,
        "cap": None if cap == math.inf else cap,
        "repeats": repeats,
        "oracle": {"top1": float(truth[order[0]]), "topk": float(truth[order[:k]].mean())},
        "oracle_topics": [names[i] for i in order[:k]],
        "rows": rows,
    }


def plot(result: dict[str, Any], path: str | Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    algos = [a for a in rows[0] if a not in ("budget", "pulls_per_topic")]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), dpi=100)
    for ax, key, label in ((axes[0], "top1", "top-1"), (axes[1], "topk", f"top-{result['k']}")):
        x = [r["budget"] for r in rows]
        ax.axhline(result["oracle"][key], color="k", linestyle="--", label="oracle")
        for a in algos:
            ax.plot(x, [r[a][key] for r in rows], marker="o", label=a)
        ax.set_xlabel("budget (pulls)")
        ax.set_ylabel(f"true mean difficulty of selected {label}")
        ax.set_title(f"replay on {result['topics']:,} pre-scored topics")
    axes[0].legend()
    from mtgauntlet.evaluation.breaker_analysis import save_figure

    return save_figure(fig, path)
