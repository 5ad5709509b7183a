"""The statistics of the metric-evaluation field, exact and documented (docs/statistics.md).

Pure functions on numpy arrays and lists, no I/O. A missing score is ``None`` or NaN; each function states what it
does with one. ``pairs``: challenge sets (a good and a bad hypothesis per item). ``human``: human judgments as WMT's
metrics task computes them (mt-metrics-eval is the reference). ``resampling``: bootstrap intervals and paired
permutation tests. ``clusters``: permutation-based significance clusters of metrics.
"""

from mtgauntlet.evaluation.statistics.clusters import significance_clusters
from mtgauntlet.evaluation.statistics.human import (
    seg_acc_eq,
    seg_kendall,
    seg_pearson,
    sys_pairwise_accuracy,
    sys_pearson,
    sys_soft_pairwise_accuracy,
    system_scores,
)
from mtgauntlet.evaluation.statistics.pairs import (
    ACES_WEIGHTS,
    aces_category_taus,
    aces_score,
    aces_tau,
    pair_accuracy,
    smaug_tau_d,
)
from mtgauntlet.evaluation.statistics.resampling import bootstrap_ci, paired_permutation_test

__all__ = [
    "ACES_WEIGHTS",
    "aces_category_taus",
    "aces_score",
    "aces_tau",
    "bootstrap_ci",
    "pair_accuracy",
    "paired_permutation_test",
    "seg_acc_eq",
    "seg_kendall",
    "seg_pearson",
    "significance_clusters",
    "smaug_tau_d",
    "sys_pairwise_accuracy",
    "sys_pearson",
    "sys_soft_pairwise_accuracy",
    "system_scores",
]
