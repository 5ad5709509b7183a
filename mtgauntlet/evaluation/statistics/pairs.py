"""Challenge-set statistics: each item has a good and a bad hypothesis, and a metric should score the good one higher.

Missing scores: an item whose good or bad score is ``None`` or NaN is left out of every statistic here (it is
neither a success nor a failure); with no item left the statistic is NaN.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mtgauntlet.errors import GauntletError
from mtgauntlet.evaluation.statistics.missing import Scores, as_float

# ACES's summary weights (Amrhein et al. 2022, aces/cli/evaluate.py `comp_aces_score`), under ACES's own keys.
ACES_WEIGHTS: dict[str, float] = {
    "addition": 5.0,
    "omission": 5.0,
    "mistranslation": 5.0,
    "overtranslation": 5.0,
    "undertranslation": 5.0,
    "untranslated": 1.0,
    "do not translate": 1.0,
    "real-world knowledge": 1.0,
    "wrong language": 1.0,
    "punctuation": 0.1,
}


def scored_pairs(good: Scores, bad: Scores) -> tuple[np.ndarray, np.ndarray]:
    """(good, bad) as float arrays without the items where either score is missing."""
    g, b = as_float(good), as_float(bad)
    if len(g) != len(b):
        raise GauntletError(f"good and bad scores differ in length ({len(g)} and {len(b)})")
    keep = ~(np.isnan(g) | np.isnan(b))
    return g[keep], b[keep]


def pair_accuracy(good: Scores, bad: Scores) -> float:
    """Accuracy: the share of items whose good hypothesis scores strictly higher than its bad one.

    ``accuracy = #{good > bad} / #items``. A tie (good == bad) counts as a failure. Items with a missing score are
    left out of the numerator and the denominator; NaN when no item is left."""
    g, b = scored_pairs(good, bad)
    return float((g > b).mean()) if len(g) else float("nan")


def aces_tau(good: Scores, bad: Scores) -> float:
    """ACES's Kendall-like tau: ``(C - D) / (C + D)`` with C = #{good > bad} and D = #{good <= bad}.

    A tie is discordant (as ACES's ``comp_corr`` and the WMT challenge-set evaluation count it), so
    ``aces_tau = 2 * pair_accuracy - 1``. Items with a missing score are left out (ACES itself returns NaN for
    the whole phenomenon when any score is missing); NaN when no item is left."""
    g, b = scored_pairs(good, bad)
    if not len(g):
        return float("nan")
    concordant = int((g > b).sum())
    discordant = len(g) - concordant
    return (concordant - discordant) / len(g)


def smaug_tau_d(good: Scores, bad: Scores, lo: float, hi: float) -> tuple[float, float]:
    """SMAUG's (tau, d) (eq. 1-2), by :func:`mtgauntlet.evaluation.metric_robustness.tau_and_d` with ties discordant.

    tau is :func:`aces_tau`; d is the mean of ``(good - bad) / (hi - lo)`` over the concordant items (good > bad),
    ``lo``/``hi`` being the smallest and largest score of the set (min-max normalisation), NaN without a concordant
    item. Items with a missing score are left out."""
    from mtgauntlet.evaluation.metric_robustness import tau_and_d

    g, b = scored_pairs(good, bad)
    tau, d, _, _ = tau_and_d(g, b, lo, hi)
    return float(tau), float(d)


def aces_category_taus(tau_by_phenomenon: Mapping[str, float], category_of: Mapping[str, str]) -> dict[str, float]:
    """ACES's top-level taus: per category, the plain mean of the taus of its phenomena (a macro average, as ACES's
    ``--print_overview``). ``category_of`` maps a phenomenon to an ACES category (a set's importer declares it);
    a phenomenon without a category, or with a NaN tau, is left out."""
    by_category: dict[str, list[float]] = {}
    for phenomenon, tau in tau_by_phenomenon.items():
        category = category_of.get(phenomenon)
        if category is not None and tau is not None and not np.isnan(tau):
            by_category.setdefault(category, []).append(float(tau))
    return {c: float(np.mean(v)) for c, v in by_category.items()}


def aces_score(tau_by_category: Mapping[str, float]) -> float:
    """ACES score: ``sum over the categories present of ACES_WEIGHTS[c] * tau_c``.

    With all ten categories present this is ACES's ``comp_aces_score`` (range -29.1 to 29.1). A category absent from
    ``tau_by_category`` or with a NaN tau adds nothing (ACES itself returns NaN then); NaN when none is present. An
    unknown category name is an error."""
    unknown = sorted(set(tau_by_category) - set(ACES_WEIGHTS))
    if unknown:
        raise GauntletError(f"not ACES categories: {', '.join(map(repr, unknown))} (known: {', '.join(ACES_WEIGHTS)})")
    present = {c: t for c, t in tau_by_category.items() if t is not None and not np.isnan(t)}
    if not present:
        return float("nan")
    return float(sum(ACES_WEIGHTS[c] * float(t) for c, t in present.items()))
