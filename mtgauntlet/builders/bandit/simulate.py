"""Synthetic bandit topic search at scale (paper section 3.3).

Topic locations mu_t come from a 3-component Gaussian mixture (the defaults below, or fitted to a real
search's pull log with ``fit_mixture``); an item of topic t has difficulty N(mu_t, sigma^2) clipped to
[0, 100] (difficulty = 100 - QE cannot leave that range), so a topic's true difficulty is the mean of that
clipped normal (:func:`true_means`), which is what the oracle and the reported "true" top-k use.

Default calibration (the paper's Figure 5 and its caption): on real data, 3.2k topics give an oracle top-1 of
36 and top-10 of 25, the synthetic process is *more conservative* than that, and a 10-fold larger topic set
adds about +5 difficulty. The default mixture (weights 0.4/0.3/0.3, means 5/9/3.5, sds 2/3/7.5) gives, over 20
seeds, an oracle top-10 of about 23 at 3.2k topics (top-1 about 27), 28.5 at 32k and 33 at 320k (+5.5, +4.5):
a bulk of easy topics (median true difficulty 6, like FLORES/WMT domains) and a wide
component that makes the tail. The within-topic sd (5) is calibrated to Figure 3 (eps-greedy close to the
oracle by about 1.5 pulls per topic; the paper estimates it from data it does not give; it hardly moves the
Figure 5 oracle). ``--fit`` replaces it by a mixture fitted to a real search's pull log. The
algorithms run as numba-compiled loops (a binary max-heap of observed means makes each exploitation
O(log T)), so 1M topics x 1.5M pulls take about a second. A pure-Python path (the same code, not
compiled) runs where numba is missing, much slower.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtgauntlet.builders.bandit.sim_kernels import brute, eps_greedy, ucb

SIM_ALGORITHMS = ("brute", "greedy", "eps-greedy", "ucb")
UCB_MAX_TOPICS = 100_000  # UCB rescans every topic per pull


@dataclass
class Mixture:
    weights: Sequence[float] = (0.4, 0.3, 0.3)
    means: Sequence[float] = (5.0, 9.0, 3.5)
    sds: Sequence[float] = (2.0, 3.0, 7.5)
    sigma: float = 5.0  # within-topic sd of item difficulty (before clipping; calibrated to Figure 3, see docs)
    fitted_from: str | None = None

    def sample_means(self, n: int, rng: np.random.Generator) -> np.ndarray:
        comp = rng.choice(len(self.weights), size=n, p=np.asarray(self.weights) / np.sum(self.weights))
        return np.asarray(self.means)[comp] + np.asarray(self.sds)[comp] * rng.standard_normal(n)


def true_means(mu: np.ndarray, sigma: float, lo: float = 0.0, hi: float = 100.0) -> np.ndarray:
    """E[clip(X, lo, hi)] for X ~ N(mu, sigma^2): a topic's true mean difficulty under the clipped process."""
    from scipy.special import ndtr

    mu = np.asarray(mu, dtype=float)
    if sigma <= 0:
        return np.clip(mu, lo, hi)
    a, b = (lo - mu) / sigma, (hi - mu) / sigma
    pdf = lambda z: np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)  # noqa: E731
    return lo * ndtr(a) + hi * (1 - ndtr(b)) + mu * (ndtr(b) - ndtr(a)) + sigma * (pdf(a) - pdf(b))


def fit_mixture(topic_means: Sequence[float], within_sd: float, source: str = "") -> Mixture:
    from sklearn.mixture import GaussianMixture

    x = np.asarray(topic_means, dtype=float).reshape(-1, 1)
    gm = GaussianMixture(n_components=min(3, len(x)), random_state=0).fit(x)
    order = np.argsort(gm.means_[:, 0])
    return Mixture(
        weights=tuple(gm.weights_[order]),
        means=tuple(gm.means_[order, 0]),
        sds=tuple(np.sqrt(gm.covariances_.reshape(-1)[order])),
        sigma=float(within_sd),
        fitted_from=source,
    )


def fit_from_pull_log(path) -> Mixture:
    """Fit the mixture to the per-topic mean difficulties of a real search (OUT/pulls)."""
    from pathlib import Path

    import pyarrow as pa
    import pyarrow.parquet as pq

    from mtgauntlet.errors import InputError

    files = sorted(Path(path).glob("pulls/*.parquet")) or sorted(Path(path).glob("*.parquet"))
    if not files:
        raise InputError(
            "no pull log here (expected OUT/pulls/*.parquet of a bandit search)", file=str(path), field="--fit"
        )
    try:
        table = pa.concat_tables([pq.read_table(f, columns=["topic", "difficulty"]) for f in files])
    except (OSError, KeyError, pa.ArrowException) as exc:
        raise InputError(f"not a bandit pull log ({exc})", file=str(path), field="--fit") from None
    rows = [r for r in table.to_pylist() if r["difficulty"] is not None]
    if not rows:
        raise InputError("the pull log holds no scored pull", file=str(path), field="--fit")
    by: dict[str, list[float]] = {}
    for r in rows:
        by.setdefault(r["topic"], []).append(r["difficulty"])
    means = [float(np.mean(v)) for v in by.values()]
    resid = [d - np.mean(v) for v in by.values() if len(v) > 1 for d in v]
    within = float(np.std(resid)) if len(resid) > 2 else 15.0
    return fit_mixture(means, within, source=str(path))


def observed_top_k(counts: np.ndarray, sums: np.ndarray, k: int) -> np.ndarray:
    means = np.where(counts > 0, sums / np.maximum(counts, 1), -np.inf)
    k = min(k, int((counts > 0).sum()))
    if k == 0:
        return np.array([], dtype=np.int64)
    idx = np.argpartition(-means, k - 1)[:k]
    return idx[np.argsort(-means[idx])]


@dataclass
class SimResult:
    oracle_topk_mean: float
    oracle_top1: float = float("nan")
    algorithms: dict[str, dict[str, Any]] = field(default_factory=dict)


def run_algorithm(
    name: str,
    mu: np.ndarray,
    sigma: float,
    budget: int,
    k: int,
    cap: float,
    epsilon: float,
    batch: int,
    seed: int,
    truth: np.ndarray | None = None,
) -> dict[str, Any]:
    """Run one algorithm; report the *true* mean difficulty (``truth``, default :func:`true_means`) of the topics
    it selects by their observed means (top-1 and top-k), beside the optimistic observed mean."""
    truth = true_means(mu, sigma) if truth is None else truth
    cap_i = np.int64(2**62) if cap == math.inf else np.int64(cap)
    t0 = time.perf_counter()
    if name == "eps-greedy":
        counts, sums = eps_greedy(mu, sigma, budget, cap_i, epsilon, batch, seed)
    elif name == "greedy":
        counts, sums = eps_greedy(mu, sigma, budget, cap_i, 1.0, batch, seed)
    elif name == "brute":
        counts, sums = brute(mu, sigma, budget, cap_i, seed)
    elif name == "ucb":
        if len(mu) > UCB_MAX_TOPICS:
            return {"skipped": f"ucb rescans all topics per pull; skipped above {UCB_MAX_TOPICS:,} topics"}
        counts, sums = ucb(mu, sigma, budget, cap_i, seed)
    else:
        raise ValueError(f"unknown simulation algorithm {name!r}; choose from {', '.join(SIM_ALGORITHMS)}")
    secs = time.perf_counter() - t0
    top = observed_top_k(counts, sums, k)
    pulls = int(counts.sum())
    return {
        "topk_true_mean": float(truth[top].mean()) if len(top) else float("nan"),
        "top1_true": float(truth[top[0]]) if len(top) else float("nan"),
        "topk_observed_mean": float((sums[top] / counts[top]).mean()) if len(top) else float("nan"),
        "pulls": pulls,
        "max_pulls_per_topic": int(counts.max()),
        "topics_explored": int((counts > 0).sum()),
        "seconds": secs,
        "pulls_per_s": pulls / secs if secs > 0 else float("inf"),
    }


def warm_up() -> None:
    """Compile the kernels once (so timings measure the search, not numba's compiler)."""
    mu = np.zeros(10)
    for name in SIM_ALGORITHMS:
        run_algorithm(name, mu, 1.0, 20, 2, 3, 0.5, 2, 0)


def simulate(
    n_topics: int,
    budget: int,
    algorithms: Sequence[str],
    *,
    k: int = 10,
    cap: float = math.inf,
    epsilon: float = 0.7,
    batch: int = 1,
    seed: int = 13,
    mixture: Mixture | None = None,
    mu: np.ndarray | None = None,
) -> SimResult:
    mixture = mixture or Mixture()
    if mu is None:
        mu = mixture.sample_means(n_topics, np.random.default_rng(seed))
    truth = true_means(mu, mixture.sigma)
    top = np.sort(truth)
    res = SimResult(oracle_topk_mean=float(top[-k:].mean()), oracle_top1=float(top[-1]))
    warm_up()
    for name in algorithms:
        res.algorithms[name] = run_algorithm(
            name, mu, mixture.sigma, budget, k, cap, epsilon, batch, seed + 1, truth=truth
        )
    return res


def oracle_scaling(
    sizes: Sequence[int], k: int = 10, mixture: Mixture | None = None, seed: int = 13
) -> list[dict[str, float]]:
    """Oracle top-1 and top-k true difficulty for topic sets of these sizes (the paper's Figure 5)."""
    mixture = mixture or Mixture()
    rows = []
    for n in sizes:
        truth = np.sort(true_means(mixture.sample_means(int(n), np.random.default_rng(seed)), mixture.sigma))
        rows.append({"topics": int(n), "oracle_top1": float(truth[-1]), "oracle_topk": float(truth[-k:].mean())})
    return rows


def budget_curve(n_topics: int, pulls_per_topic: Sequence[float], algorithms: Sequence[str], **kw) -> dict[str, Any]:
    """Top-k true difficulty per algorithm at several budgets (the paper's Figure 2 / 3 sweep)."""
    mixture = kw.pop("mixture", None) or Mixture()
    seed = kw.get("seed", 13)
    mu = mixture.sample_means(n_topics, np.random.default_rng(seed))
    rows = []
    for ppt in pulls_per_topic:
        r = simulate(n_topics, max(1, int(ppt * n_topics)), algorithms, mixture=mixture, mu=mu, **kw)
        rows.append(
            {
                "pulls_per_topic": ppt,
                "oracle": r.oracle_topk_mean,
                **{a: v.get("topk_true_mean") for a, v in r.algorithms.items()},
                "pulls_per_s": {a: v.get("pulls_per_s") for a, v in r.algorithms.items()},
            }
        )
    return {"n_topics": n_topics, "rows": rows, "mu": mu, "mixture": mixture}


def mixture_panel(mu: np.ndarray, mixture: Mixture, k: int = 10, points: int = 300) -> dict[str, Any]:
    """The data of the Figure 4 panel on the difficulty scale: each topic's true difficulty (the mean of its
    clipped item difficulties, in [0, 100]; not the raw location mu, which the mixture puts below 0 for many
    topics), the mixture's density carried onto that scale (true difficulty is an increasing function of mu,
    so its density is the mixture density divided by the slope), and the oracle top-k mean."""
    difficulty = true_means(mu, mixture.sigma)
    lo_mu = min(float(np.min(mu)), min(m - 4 * s for m, s in zip(mixture.means, mixture.sds)))
    grid = np.linspace(lo_mu, float(np.max(mu)), points * 4)
    dens_mu = sum(
        w * np.exp(-((grid - m) ** 2) / (2 * s * s)) / (s * np.sqrt(2 * np.pi))
        for w, m, s in zip(np.asarray(mixture.weights) / np.sum(mixture.weights), mixture.means, mixture.sds)
    )
    on_scale = true_means(grid, mixture.sigma)
    slope = np.gradient(on_scale, grid)
    keep = slope > 1e-9
    xs = np.linspace(0.0, float(min(100.0, np.max(difficulty) * 1.02 + 1e-9)), points)
    density = np.interp(xs, on_scale[keep], dens_mu[keep] / slope[keep], left=0.0, right=0.0)
    return {
        "difficulty": difficulty,
        "xs": xs,
        "density": density,
        "oracle_topk": float(np.sort(difficulty)[-k:].mean()),
    }


def plot(curve: dict[str, Any], path, k: int = 10):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = curve["rows"]
    algos = [a for a in rows[0] if a not in ("pulls_per_topic", "oracle", "pulls_per_s")]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4), dpi=100)
    x = [r["pulls_per_topic"] for r in rows]
    a1.plot(x, [r["oracle"] for r in rows], "k--", label="oracle")
    for a in algos:
        a1.plot(x, [r[a] for r in rows], marker="o", label=a)
    a1.set_xlabel("budget (pulls per topic)")
    a1.set_ylabel(f"true mean difficulty of chosen top-{k}")
    a1.set_title(f"{curve['n_topics']:,} synthetic topics")
    a1.legend()
    panel = mixture_panel(curve["mu"], curve["mixture"], k=k)
    a2.hist(
        panel["difficulty"],
        bins=80,
        range=(0.0, float(panel["xs"][-1])),
        color="0.7",
        density=True,
        label="topic difficulty",
    )
    a2.plot(panel["xs"], panel["density"], "r-", label="3-component mixture")
    a2.axvline(panel["oracle_topk"], color="orange", label=f"oracle top-{k} mean")
    a2.set_xlabel("topic difficulty")
    a2.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
