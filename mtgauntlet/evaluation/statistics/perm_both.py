"""Vectorised permutation tests between two metrics (mt-metrics-eval's ``PermutationSigDiff``, the PERM-BOTH test
of Deutsch et al. 2021), for the leaderboard's significance clusters.

Each p-value answers "is the better metric's statistic not above the worse one's?": the share of ``n_resamples``
resamples in which ``stat(swapped better) - stat(swapped worse) >= stat(better) - stat(worse)`` (no +1, no early
stopping). A resample swaps each entry between the two metrics with probability 1/2, after z-scoring each metric
over the entries compared. Every statistic here is a function of sums that are linear in the swap mask, so all
resamples are computed as matrix products (in blocks of 200 resamples):

- :func:`seg_pearson_p_value`: segment-level Pearson, grouping none / item / sys; entries (system, segment) with a
  human score and both metric scores are swapped.
- :func:`system_p_value`: ``sys_pearson`` or ``sys_pairwise_accuracy`` on system scores; the z-scored system
  scores are swapped (mt-metrics-eval's system-level test).
- :func:`pair_accuracy_p_value`: a challenge set's accuracy; an item's (good, bad) scores are swapped together
  (accuracy does not change under z-scoring, so none is needed).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

BLOCK = 200
TOLERANCE = 1e-12


def _z(x: np.ndarray, usable: np.ndarray) -> np.ndarray:
    values = x[usable]
    sd = values.std() if len(values) else 0.0
    return np.where(usable, (x - (values.mean() if len(values) else 0.0)) / (sd if sd > 0 else 1.0), 0.0)


def _r(n, sm, sh, smm, shh, smh) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        vm, vh = smm - sm * sm / n, shh - sh * sh / n
        r = (smh - sm * sh / n) / np.sqrt(vm * vh)
    return np.where((n >= 2) & (vm > 1e-12 * np.abs(smm)) & (vh > 1e-12 * np.abs(shh)), r, np.nan)


def _mean_over_groups(r: np.ndarray) -> np.ndarray:
    finite = ~np.isnan(r)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(finite.any(-1), np.where(finite, r, 0.0).sum(-1) / finite.sum(-1), np.nan)


def _count(observed: float, deltas: np.ndarray) -> int:
    return int((deltas >= observed - TOLERANCE * (abs(observed) + 1)).sum())


def seg_pearson_p_value(
    better: np.ndarray, worse: np.ndarray, human: np.ndarray, grouping: str, n_resamples: int, rng: np.random.Generator
) -> float:
    """PERM-BOTH p-value for segment-level Pearson (systems × segments arrays, NaN = missing)."""
    usable = ~(np.isnan(better) | np.isnan(worse) | np.isnan(human))
    z1, z2, h = _z(better, usable), _z(worse, usable), np.where(usable, human, 0.0)
    u = usable.astype(float)
    axis = {"none": None, "sys": 1, "item": 0}[grouping]

    def sums(m: np.ndarray) -> list[np.ndarray]:
        return [np.asarray(x.sum(axis=axis)) for x in (u, m * u, h * u, m * m * u, h * h * u, m * h * u)]

    def value(s: list[np.ndarray]) -> np.ndarray:
        return _mean_over_groups(_r(*s)) if axis is not None else _r(*s)

    s1, s2 = sums(z1), sums(z2)
    observed = float(value(s1) - value(s2))
    if np.isnan(observed):
        return float("nan")
    d, dsq, dh = (z2 - z1) * u, (z2 * z2 - z1 * z1) * u, (z2 - z1) * h * u
    spec = {None: "rsi,si->r", 1: "rsi,si->rs", 0: "rsi,si->ri"}[axis]
    extreme, done = 0, 0
    while done < n_resamples:
        k = min(BLOCK, n_resamples - done)
        swap = (rng.random((k, *z1.shape)) < 0.5).astype(float)
        a, b, c = (np.einsum(spec, swap, x) for x in (d, dsq, dh))
        n, sh, shh = (np.broadcast_to(x, a.shape) for x in (s1[0], s1[2], s1[4]))
        v1 = value([n, s1[1] + a, sh, s1[3] + b, shh, s1[5] + c])
        v2 = value([n, s2[1] - a, sh, s2[3] - b, shh, s2[5] - c])
        extreme += _count(observed, v1 - v2)
        done += k
    return extreme / n_resamples


def _sys_stat(name: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    from mtgauntlet.evaluation.statistics.human import row_pearson

    def accuracy(m: np.ndarray, h: np.ndarray) -> np.ndarray:
        i, j = np.triu_indices(m.shape[1], 1)
        return (np.sign(m[:, i] - m[:, j]) == np.sign(h[:, i] - h[:, j])).mean(1)

    return row_pearson if name == "sys_pearson" else accuracy


def system_p_value(
    statistic: str, better: np.ndarray, worse: np.ndarray, human: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> float:
    """PERM-BOTH p-value for ``sys_pearson`` or ``sys_pairwise_accuracy`` of system scores (vectors, NaN = none)."""
    keep = ~(np.isnan(better) | np.isnan(worse) | np.isnan(human))
    if keep.sum() < 2:
        return float("nan")
    all_ = np.ones(int(keep.sum()), bool)
    z1, z2, h = _z(better[keep], all_), _z(worse[keep], all_), human[keep][None, :]
    stat = _sys_stat(statistic)
    observed = float(stat(z1[None, :], h)[0] - stat(z2[None, :], h)[0])
    if np.isnan(observed):
        return float("nan")
    swap = rng.random((n_resamples, len(z1))) < 0.5
    m1, m2 = np.where(swap, z2, z1), np.where(swap, z1, z2)
    hh = np.broadcast_to(h, m1.shape)
    return _count(observed, stat(m1, hh) - stat(m2, hh)) / n_resamples


def pooled_accuracy_p_value(
    better: list[np.ndarray],
    worse: list[np.ndarray],
    human: list[np.ndarray],
    n_resamples: int,
    rng: np.random.Generator,
) -> float:
    """PERM-BOTH p-value for the pooled system-level pairwise accuracy over language pairs (one system-score vector
    per language pair): as mt-metrics-eval's ``CompareMetricsWithGlobalAccuracy``, each metric is z-scored over the
    system scores of every language pair together, each system's score is swapped with probability 1/2, and the
    statistic is Σ agreeing pairs / Σ pairs over the language pairs."""
    keeps = [~(np.isnan(b) | np.isnan(w) | np.isnan(h)) for b, w, h in zip(better, worse, human)]
    b = np.concatenate([x[k] for x, k in zip(better, keeps)])
    w = np.concatenate([x[k] for x, k in zip(worse, keeps)])
    sizes = [int(k.sum()) for k in keeps]
    if sum(s * (s - 1) // 2 for s in sizes) == 0:
        return float("nan")
    every = np.ones(len(b), bool)
    z1, z2 = _z(b, every), _z(w, every)
    bounds = np.r_[0, np.cumsum(sizes)]
    hs = [x[k] for x, k in zip(human, keeps)]

    def accuracy(m: np.ndarray) -> np.ndarray:  # m: R × all systems
        agree, pairs = np.zeros(m.shape[0]), 0
        for (lo, hi), h in zip(zip(bounds[:-1], bounds[1:]), hs):
            i, j = np.triu_indices(hi - lo, 1)
            agree += (np.sign(m[:, lo + i] - m[:, lo + j]) == np.sign(h[i] - h[j])).sum(1)
            pairs += len(i)
        return agree / pairs

    observed = float(accuracy(z1[None, :])[0] - accuracy(z2[None, :])[0])
    swap = rng.random((n_resamples, len(z1))) < 0.5
    return _count(observed, accuracy(np.where(swap, z2, z1)) - accuracy(np.where(swap, z1, z2))) / n_resamples


def pair_accuracy_p_value(
    better_ok: np.ndarray, worse_ok: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> float:
    """Permutation p-value between two metrics' accuracies on the same pairs (``*_ok``: 1 where the metric scores
    the good translation above the bad one, 0 where not, NaN where it lacks a score; items with NaN are left out).

    A swap flips the sign of an item's difference, so items where the two metrics agree (difference 0) never move
    the statistic and draw nothing. When every other difference has the same size ``c`` (1 for 0/1 successes) the
    resampled sum is ``c (2 B - k)`` with ``B ~ Binomial(k, 1/2)`` over the ``k`` disagreeing items: the same
    distribution as ``k`` independent sign flips, drawn in O(resamples) instead of O(resamples x items); other
    differences are flipped in blocks of resamples."""
    keep = ~(np.isnan(better_ok) | np.isnan(worse_ok))
    diff = better_ok[keep] - worse_ok[keep]
    n = len(diff)
    if not n:
        return float("nan")
    observed = float(diff.mean())
    moving = diff[diff != 0]
    if not len(moving):
        return _count(observed, np.zeros(n_resamples)) / n_resamples
    size = np.abs(moving)
    if np.all(size == size[0]):
        heads = rng.binomial(len(moving), 0.5, n_resamples)
        return _count(observed, size[0] * (2.0 * heads - len(moving)) / n) / n_resamples
    count = 0
    for start in range(0, n_resamples, BLOCK):
        block = min(BLOCK, n_resamples - start)
        signs = np.where(rng.random((block, len(moving))) < 0.5, -1.0, 1.0)
        count += _count(observed, signs @ moving / n)
    return count / n_resamples


def assign_clusters(
    values: dict[str, float], p_value: Callable[[str, str], float], alpha: float = 0.05
) -> dict[str, int]:
    """Cluster numbers (1 = top) of the metrics with a value, by decreasing value (ties by name): walking down,
    a metric opens a new cluster when a metric of the current cluster beats it with ``p <= alpha``
    (mt-metrics-eval's ``AssignRanks``). ``p_value(better, worse)``."""
    from mtgauntlet.evaluation.statistics.clusters import assign_ranks

    ranked = sorted((n for n, v in values.items() if not np.isnan(v)), key=lambda n: (-values[n], n))
    p = np.full((len(ranked), len(ranked)), np.nan)
    for i, a in enumerate(ranked):
        for j in range(i + 1, len(ranked)):
            p[i, j] = p_value(a, ranked[j])
    return dict(zip(ranked, assign_ranks(p, alpha)))
