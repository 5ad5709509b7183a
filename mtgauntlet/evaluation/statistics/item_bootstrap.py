"""Bootstrap over items for the human-judgment statistics, vectorised: every resample at once.

A resample draws the n items (segments: the columns of a score matrix) with replacement; an item drawn k times
counts k times. ``item_counts`` gives those counts for every resample as an R×n matrix W, and each statistic
below is written as sums over items, so that its value on every resample is one matrix product with W:

- ``pearson_resamples``: Pearson's r with grouping none (sums over every scored entry), sys (per system over its
  items, then the mean over systems) or item (each item's r over the systems, then the mean over the drawn items);
- ``item_mean_resamples``: any per-item statistic averaged over the drawn items (Kendall by item; acc_eq by
  item at the optimal epsilon of the full data, held fixed);
- ``system_mean_resamples``: each system's mean over its drawn scored items; a corpus-level score is resampled by
  summing its segments' sufficient statistics with W (:mod:`mtgauntlet.workbench.corpus`);
- ``pairwise_agreement_resamples`` and ``rows_pearson``: system-level pairwise accuracy and Pearson r of each
  resample's system scores.

The interval is the percentile interval of the resampled values, NaN resamples left out
(:func:`percentile_interval`), as :func:`~mtgauntlet.evaluation.statistics.resampling.bootstrap_ci`.
"""

from __future__ import annotations

import numpy as np

from mtgauntlet.errors import GauntletError


def item_counts(n_items: int, n_resamples: int, seed: int = 0) -> np.ndarray:
    """R×n: how often each item is drawn in each resample (``numpy.random.default_rng(seed)``)."""
    if n_resamples < 1:
        raise GauntletError(f"n_resamples must be at least 1, not {n_resamples}")
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_items, (n_resamples, n_items)) if n_items else np.zeros((n_resamples, 0), int)
    flat = (draws + np.arange(n_resamples)[:, None] * n_items).ravel()
    return np.bincount(flat, minlength=n_resamples * n_items).reshape(n_resamples, n_items).astype(float)


def percentile_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The (1 - confidence)/2 and (1 + confidence)/2 quantiles of the non-NaN values; (NaN, NaN) when none."""
    kept = np.asarray(values, dtype=float)
    kept = kept[~np.isnan(kept)]
    if not len(kept):
        return float("nan"), float("nan")
    lo, hi = np.quantile(kept, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi)


def _r_from_sums(n, sm, sh, smm, shh, smh) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = smh - sm * sh / n
        vm = smm - sm * sm / n
        vh = shh - sh * sh / n
        r = cov / np.sqrt(vm * vh)
    flat = (vm <= 1e-12 * np.abs(smm)) | (vh <= 1e-12 * np.abs(shh))
    return np.where((n >= 2) & ~flat, np.clip(r, -1.0, 1.0), np.nan)


def _sums(m: np.ndarray, h: np.ndarray, axis: int) -> list[np.ndarray]:
    """Per-row (axis=1) or per-column (axis=0) sums n, Σm, Σh, Σm², Σh², Σmh over the entries present in both."""
    valid = ~(np.isnan(m) | np.isnan(h))
    mz, hz = np.where(valid, m, 0.0), np.where(valid, h, 0.0)
    return [x.sum(axis) for x in (valid.astype(float), mz, hz, mz * mz, hz * hz, mz * hz)]


def pearson_resamples(m: np.ndarray, h: np.ndarray, grouping: str, counts: np.ndarray) -> np.ndarray:
    """Pearson's r on every resample (R values); m, h: systems × items, NaN = missing; counts: R × items."""
    from mtgauntlet.evaluation.statistics.human import row_pearson

    if grouping == "none":
        per_item = _sums(m, h, axis=0)  # each of shape (items,)
        return _r_from_sums(*(counts @ x for x in per_item))
    if grouping == "sys":
        valid = ~(np.isnan(m) | np.isnan(h))
        mz, hz = np.where(valid, m, 0.0), np.where(valid, h, 0.0)
        sums = [counts @ x.T for x in (valid.astype(float), mz, hz, mz * mz, hz * hz, mz * hz)]  # each R × S
        r = _r_from_sums(*sums)
        with np.errstate(invalid="ignore"):
            finite = ~np.isnan(r)
            return np.where(finite.any(1), np.where(finite, r, 0).sum(1) / np.maximum(finite.sum(1), 1), np.nan)
    return item_mean_resamples(row_pearson(m.T, h.T), counts)


def item_mean_resamples(per_item: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The mean over the drawn items of a per-item statistic (NaN items left out), on every resample."""
    finite = ~np.isnan(per_item)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ np.where(finite, per_item, 0.0)) / (counts @ finite.astype(float))


def system_mean_resamples(m: np.ndarray, valid: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """R × S: each system's mean over its drawn items where ``valid`` (NaN when it has none)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ np.where(valid, m, 0.0).T) / (counts @ valid.astype(float).T)


def pairwise_agreement_resamples(msys: np.ndarray, hsys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(agreeing system pairs, pairs compared) per resample: ``sign(m_i - m_j) == sign(h_i - h_j)`` over the pairs
    of systems both score (R × S inputs, NaN = not scored), as ``sys_pairwise_accuracy``."""
    i, j = np.triu_indices(msys.shape[1], 1)
    ok = ~(np.isnan(msys[:, i]) | np.isnan(msys[:, j]) | np.isnan(hsys[:, i]) | np.isnan(hsys[:, j]))
    with np.errstate(invalid="ignore"):
        agree = (np.sign(msys[:, i] - msys[:, j]) == np.sign(hsys[:, i] - hsys[:, j])) & ok
    return agree.sum(1).astype(float), ok.sum(1).astype(float)


def rows_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair of two R × S matrices over the columns present in both."""
    from mtgauntlet.evaluation.statistics.human import row_pearson

    return row_pearson(x, y)


def acc_eq_per_item(m: np.ndarray, h: np.ndarray, epsilon: float) -> np.ndarray:
    """Each item's acc_eq over its systems at a fixed metric-tie threshold (NaN for an item with no pair)."""
    from mtgauntlet.evaluation.statistics.tie_calibration import group_pairs

    rows, diff, human_tie, counts_now = group_pairs(h.T, m.T, 1.0, np.random.default_rng(0))
    n_items = m.shape[1]
    good = np.where(diff <= epsilon, human_tie, counts_now).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.bincount(rows, good, minlength=n_items) / np.bincount(rows, minlength=n_items)
