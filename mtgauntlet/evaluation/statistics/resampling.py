"""Resampling over items: percentile bootstrap intervals and paired permutation tests between two metrics.

A ``statistic`` is any function of columns (sequences of equal length, one row per item), such as
:func:`~mtgauntlet.evaluation.statistics.pairs.pair_accuracy` on (good, bad). Rows are resampled or swapped jointly,
so the columns of one item stay together. Missing scores are the statistic's business (it sees them as they are).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from mtgauntlet.errors import GauntletError
from mtgauntlet.evaluation.statistics.missing import Scores

DRAWS_PER_BLOCK = 4_000_000  # item draws per block of bootstrap resamples (memory: 8 bytes each, twice)


def _columns(columns: Sequence[Scores]) -> tuple[list[np.ndarray], int]:
    cols = [np.asarray(c) for c in columns]
    sizes = {len(c) for c in cols}
    if len(sizes) != 1:
        raise GauntletError(f"columns must have one row per item; lengths differ: {sorted(sizes)}")
    return cols, sizes.pop()


def bootstrap_ci(
    statistic: Callable[..., float],
    *columns: Scores,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(*columns)``.

    Draws ``n_resamples`` samples of n item indices with replacement (``numpy.random.default_rng(seed)``), computes
    the statistic on each (all columns indexed alike), and returns the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` quantiles of those values (numpy's linear interpolation). Resamples on which the
    statistic is NaN are left out; (NaN, NaN) when every one is NaN or there is no item."""
    if not 0 < confidence < 1:
        raise GauntletError(f"confidence must be between 0 and 1, not {confidence}")
    if n_resamples < 1:
        raise GauntletError(f"n_resamples must be at least 1, not {n_resamples}")
    cols, n = _columns(columns)
    if n == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    values = np.empty(n_resamples)
    for r in range(n_resamples):
        idx = rng.integers(0, n, n)
        values[r] = statistic(*(c[idx] for c in cols))
    values = values[~np.isnan(values)]
    if not len(values):
        return float("nan"), float("nan")
    lo, hi = np.quantile(values, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi)


def paired_permutation_test(
    statistic: Callable[..., float],
    a_columns: Sequence[Scores],
    b_columns: Sequence[Scores],
    n_resamples: int = 1000,
    seed: int = 0,
) -> float:
    """Two-sided p-value for "metric A and metric B have the same statistic" on the same items.

    ``a_columns`` and ``b_columns`` are the statistic's columns under metric A and under metric B (e.g. A's good and
    bad scores, B's good and bad scores). The observed difference is ``delta = statistic(*A) - statistic(*B)``. Each
    resample swaps, item by item with probability 1/2, A's row with B's row (``numpy.random.default_rng(seed)``),
    and recomputes the difference ``delta'``. The p-value is ``(1 + #{|delta'| >= |delta|}) / (1 + n_resamples)``
    (the +1 counts the observed assignment, so a p-value is never 0); equality is judged with a relative tolerance
    of 1e-12 so that float rounding does not decide it. NaN when ``delta`` is NaN; resamples with a NaN ``delta'``
    count as not extreme."""
    if len(a_columns) != len(b_columns):
        raise GauntletError(f"metric A has {len(a_columns)} columns and metric B {len(b_columns)}")
    if n_resamples < 1:
        raise GauntletError(f"n_resamples must be at least 1, not {n_resamples}")
    cols, n = _columns([*a_columns, *b_columns])
    a, b = cols[: len(a_columns)], cols[len(a_columns) :]
    observed = float(statistic(*a)) - float(statistic(*b))
    if np.isnan(observed):
        return float("nan")
    threshold = abs(observed) * (1 - 1e-12) - 1e-15
    rng = np.random.default_rng(seed)
    extreme = 0
    for _ in range(n_resamples):
        swap = rng.random(n) < 0.5
        a2 = [np.where(swap, cb, ca) for ca, cb in zip(a, b)]
        b2 = [np.where(swap, ca, cb) for ca, cb in zip(a, b)]
        delta = float(statistic(*a2)) - float(statistic(*b2))
        extreme += bool(abs(delta) >= threshold)
    return (1 + extreme) / (1 + n_resamples)


def pair_bootstrap_cis(
    good: Scores, bad: Scores, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The intervals of ``bootstrap_ci(pair_accuracy, good, bad)`` and ``bootstrap_ci(aces_tau, good, bad)`` (the
    same values: the same resamples from the same seed), from one pass that counts, per resample, the scored items
    N and those whose good beats bad C (accuracy = C / N, tau = (C - (N - C)) / N) instead of calling the
    statistics on copied columns."""
    from mtgauntlet.evaluation.statistics.missing import as_float

    if not 0 < confidence < 1:
        raise GauntletError(f"confidence must be between 0 and 1, not {confidence}")
    if n_resamples < 1:
        raise GauntletError(f"n_resamples must be at least 1, not {n_resamples}")
    g, b = as_float(good), as_float(bad)
    cols, n = _columns([g, b])
    nan = (float("nan"), float("nan"))
    if n == 0:
        return nan, nan
    scored = ~(np.isnan(g) | np.isnan(b))
    code = scored.astype(np.int8) + (scored & (g > b)).astype(np.int8)  # 0 unscored, 1 not won, 2 won
    rng = np.random.default_rng(seed)
    wins = np.empty(n_resamples, dtype=np.int64)
    counted = np.empty(n_resamples, dtype=np.int64)
    block = max(1, min(n_resamples, DRAWS_PER_BLOCK // n))  # resamples drawn at once: the same stream as one by one
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        drawn = code.take(rng.integers(0, n, (rows, n)))
        wins[start : start + rows] = np.count_nonzero(drawn == 2, axis=1)
        counted[start : start + rows] = np.count_nonzero(drawn, axis=1)
    keep = counted > 0
    if not keep.any():
        return nan, nan
    c, m = wins[keep], counted[keep]
    accuracy = c / m
    tau = (c - (m - c)) / m
    q = [(1 - confidence) / 2, (1 + confidence) / 2]
    a_lo, a_hi = np.quantile(accuracy, q)
    t_lo, t_hi = np.quantile(tau, q)
    return (float(a_lo), float(a_hi)), (float(t_lo), float(t_hi))
