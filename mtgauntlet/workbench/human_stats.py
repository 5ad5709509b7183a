"""The leaderboard's statistics of one metric on one human-judgment set (``human_score``), per language pair and
human score (``gold``), with bootstrap intervals over items (segments), as WMT:

- ``seg_pearson``, ``seg_kendall`` (tau-b) grouped none / item / sys; ``seg_acc_eq`` grouped item / sys with its
  optimal tie threshold in ``epsilon`` (over a seeded sample of the pairs beyond the 30M the statistics enumerate
  at once);
- ``sys_pairwise_accuracy`` and ``sys_pearson`` of the system scores, with ``system_score`` saying how a metric's
  system score is made: ``mean`` (of its segment scores) for every metric, and also ``corpus`` (sacrebleu's corpus
  score over the system's scored segments) for a metric with a corpus form (chrF, BLEU), as WMT scores them;
- ``sys_soft_pairwise_accuracy`` (WMT24's SPA, from segment scores).

A system's scored segments are those with both a human score (``gold``) and a metric score, for the human and the
metric system scores alike. Intervals (``ci_low``, ``ci_high``): the percentile bootstrap over segments with
``n_resamples`` resamples (:mod:`mtgauntlet.evaluation.statistics.item_bootstrap`) for Pearson (every grouping),
Kendall and acc_eq by item (acc_eq at the full data's epsilon) and the system-level statistics (system scores
recomputed from the drawn segments); Kendall and acc_eq over none / sys and SPA have none (null).
:func:`pooled_rows` adds WMT's pooled system-level pairwise accuracy (``lp = 'all'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mtgauntlet.workbench.corpus import CorpusScorer
from mtgauntlet.workbench.rows import is_human_score, stat_row
from mtgauntlet.workbench.sets import Items


@dataclass
class LpMatrices:
    """One language pair of a human-judgment set as systems × segments arrays (NaN = missing)."""

    systems: list[str]
    metric: np.ndarray
    human: np.ndarray
    hyp: list[list[str | None]]
    ref: list[list[str | None]]

    def as_dicts(self) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        return (
            {s: self.metric[k] for k, s in enumerate(self.systems)},
            {s: self.human[k] for k, s in enumerate(self.systems)},
        )


def lp_matrices(items: Items, scores: Sequence[float | None], gold: str, lp: str) -> LpMatrices:
    idx = [i for i, pair in enumerate(items.lp) if pair == lp and items.system[i] is not None]
    segs = sorted({items.seg_id[i] for i in idx}, key=lambda x: (len(str(x)), str(x)))
    systems = sorted({str(items.system[i]) for i in idx})
    pos, row = {s: k for k, s in enumerate(segs)}, {s: k for k, s in enumerate(systems)}
    metric = np.full((len(systems), len(segs)), np.nan)
    human = np.full((len(systems), len(segs)), np.nan)
    hyp: list[list[str | None]] = [[None] * len(segs) for _ in systems]
    ref: list[list[str | None]] = [[None] * len(segs) for _ in systems]
    for i in idx:
        r, c = row[str(items.system[i])], pos[items.seg_id[i]]
        s, g = scores[i], items.scores[i].get(gold)
        metric[r, c] = np.nan if s is None else s
        human[r, c] = np.nan if g is None else g
        hyp[r][c], ref[r][c] = items.hyp[i], items.ref[i]
    return LpMatrices(systems, metric, human, hyp, ref)


def _acc_eq_rate(m: np.ndarray, h: np.ndarray, grouping: str) -> float:
    """1, or the share of pairs acc_eq can enumerate at once (a seeded sample, as mt-metrics-eval's sample_rate)."""
    from mtgauntlet.evaluation.statistics.tie_calibration import MAX_PAIRS

    valid = ~(np.isnan(m) | np.isnan(h))
    sizes = valid.sum(axis=1 if grouping == "sys" else 0) if grouping != "none" else np.array([valid.sum()])
    expected = float((sizes * (sizes - 1) // 2).sum())
    return 1.0 if expected <= MAX_PAIRS else 0.9 * MAX_PAIRS / expected


def corpus_system_scores(
    lm: LpMatrices, valid: np.ndarray, counts: np.ndarray, corpus: CorpusScorer
) -> tuple[np.ndarray, np.ndarray]:
    """(each system's corpus score over its scored segments, S; the same on every resample, R × S): NaN for a
    system without such a segment or with one lacking a translation or a reference."""
    n_sys = len(lm.systems)
    observed = np.full(n_sys, np.nan)
    resampled = np.full((counts.shape[0], n_sys), np.nan)
    for k in range(n_sys):
        cols = np.flatnonzero(valid[k])
        pairs = [(lm.hyp[k][c], lm.ref[k][c]) for c in cols]
        if not cols.size or any(h is None or not r for h, r in pairs):
            continue
        hyps, refs = [h or "" for h, _ in pairs], [r or "" for _, r in pairs]
        observed[k] = corpus.score(hyps, refs)
        stats = corpus.statistics(hyps, refs)
        if stats is None or not len(counts):
            continue
        summed = counts[:, cols] @ stats
        drawn = counts[:, cols].sum(1) > 0
        resampled[:, k] = [corpus.from_statistics(s) if d else np.nan for s, d in zip(summed, drawn)]
    return observed, resampled


@dataclass
class SystemLevel:
    """What the pooled rows need of one (lp, gold, system_score): per-resample agreeing pairs and pairs."""

    lp: str
    gold: str
    system_score: str
    agree: float
    pairs: int
    agree_resamples: np.ndarray
    pairs_resamples: np.ndarray


def _system_rows(
    base: dict[str, Any],
    where: dict[str, Any],
    msys: np.ndarray,
    hsys: np.ndarray,
    m_res: np.ndarray,
    h_res: np.ndarray,
    kind: str,
) -> tuple[list[dict[str, Any]], SystemLevel]:
    from mtgauntlet.evaluation.statistics import human as H
    from mtgauntlet.evaluation.statistics import item_bootstrap as B

    names = [str(k) for k in range(len(msys))]
    acc, pairs = H.sys_pairwise_accuracy(dict(zip(names, msys)), dict(zip(names, hsys)))
    r, n_sys = H.sys_pearson(dict(zip(names, msys)), dict(zip(names, hsys)))
    agree, compared = B.pairwise_agreement_resamples(m_res, h_res)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc_res = agree / compared
    rows = [
        stat_row(
            base,
            "sys_pairwise_accuracy",
            acc,
            pairs,
            B.percentile_interval(acc_res),
            system_score=kind,
            **where,
        ),
        stat_row(
            base,
            "sys_pearson",
            r,
            n_sys,
            B.percentile_interval(B.rows_pearson(m_res, h_res)),
            system_score=kind,
            **where,
        ),
    ]
    agreed = float(acc * pairs) if pairs else 0.0
    return rows, SystemLevel(where["lp"], where["gold"], kind, agreed, pairs, agree, compared)


def lp_stats(
    lm: LpMatrices,
    base: dict[str, Any],
    where: dict[str, Any],
    n_resamples: int,
    seed: int,
    corpus: CorpusScorer | None,
) -> tuple[list[dict[str, Any]], list[SystemLevel]]:
    from mtgauntlet.evaluation.statistics import human as H
    from mtgauntlet.evaluation.statistics import item_bootstrap as B
    from mtgauntlet.evaluation.statistics.pair_counts import group_counts

    metric, human = lm.as_dicts()
    m, h = lm.metric, lm.human
    valid = ~(np.isnan(m) | np.isnan(h))
    mv, hv = np.where(valid, m, np.nan), np.where(valid, h, np.nan)
    counts = B.item_counts(m.shape[1], n_resamples, seed)
    out = []
    for grouping in H.GROUPINGS:
        ci = B.percentile_interval(B.pearson_resamples(mv, hv, grouping, counts))
        out.append(
            stat_row(base, "seg_pearson", *H.seg_pearson(metric, human, grouping), ci, grouping=grouping, **where)
        )
        tau_ci: tuple[float | None, float | None] = (None, None)
        if grouping == "item":
            per_item = H.kendall_from_counts(group_counts(hv.T, mv.T), "b", mv.T, hv.T)
            tau_ci = B.percentile_interval(B.item_mean_resamples(per_item, counts))
        tau = H.seg_kendall(metric, human, grouping, "b")
        out.append(stat_row(base, "seg_kendall", *tau, tau_ci, grouping=grouping, **where))
    for grouping in ("item", "sys"):
        acc, n_pairs, eps = H.seg_acc_eq(metric, human, grouping, _acc_eq_rate(mv, hv, grouping), seed)
        acc_ci: tuple[float | None, float | None] = (None, None)
        if grouping == "item" and not np.isnan(eps):
            acc_ci = B.percentile_interval(B.item_mean_resamples(B.acc_eq_per_item(mv, hv, eps), counts))
        out.append(stat_row(base, "seg_acc_eq", acc, n_pairs, acc_ci, grouping=grouping, epsilon=eps, **where))
    system_level = []
    with np.errstate(invalid="ignore"):
        h_mean = np.where(valid.any(1), np.nansum(hv, axis=1) / np.maximum(valid.sum(1), 1), np.nan)
        m_mean = np.where(valid.any(1), np.nansum(mv, axis=1) / np.maximum(valid.sum(1), 1), np.nan)
    h_res = B.system_mean_resamples(h, valid, counts)
    rows, level = _system_rows(base, where, m_mean, h_mean, B.system_mean_resamples(m, valid, counts), h_res, "mean")
    out += rows
    system_level.append(level)
    if corpus is not None:
        corpus_scores, corpus_res = corpus_system_scores(lm, valid, counts, corpus)
        rows, level = _system_rows(base, where, corpus_scores, h_mean, corpus_res, h_res, "corpus")
        out += rows
        system_level.append(level)
    spa = H.sys_soft_pairwise_accuracy(metric, human, n_resamples, seed)
    out.append(stat_row(base, "sys_soft_pairwise_accuracy", *spa, system_score="mean", **where))
    return out, system_level


def human_stats(
    items: Items,
    scores: Sequence[float | None],
    base: dict[str, Any],
    gold: Sequence[str] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    corpus: CorpusScorer | None = None,
) -> list[dict[str, Any]]:
    """Every human-judgment statistic of one metric on one set, per language pair and gold, and pooled (lp all)."""
    names = sorted({k for kept in items.scores for k in kept})
    golds = [x for x in (gold or [n for n in names if is_human_score(n)]) if x in names]
    out: list[dict[str, Any]] = []
    levels: list[SystemLevel] = []
    for lp in sorted(set(items.lp)):
        for gname in golds:
            lm = lp_matrices(items, scores, gname, lp)
            if not lm.systems or np.isnan(lm.human).all():
                continue
            rows, level = lp_stats(lm, base, {"lp": lp, "gold": gname}, n_resamples, seed, corpus)
            out += rows
            levels += level
    return out + pooled_rows(base, levels)


def pooled_rows(base: dict[str, Any], levels: list[SystemLevel]) -> list[dict[str, Any]]:
    """WMT's pooled system-level pairwise accuracy (WMT22/23's main table, mt-metrics-eval's
    ``CompareMetricsWithGlobalAccuracy``): per gold and system_score, the agreeing system pairs summed over the
    language pairs over the pairs summed (``lp = 'all'``, ``n`` = the pairs); its interval from the per-lp
    resamples summed alike. Only when the set has two language pairs or more."""
    from mtgauntlet.evaluation.statistics import item_bootstrap as B

    out = []
    for key in sorted({(lv.gold, lv.system_score) for lv in levels}):
        group = [lv for lv in levels if (lv.gold, lv.system_score) == key and lv.pairs]
        if len(group) < 2:
            continue
        pairs = sum(lv.pairs for lv in group)
        agree = sum(lv.agree for lv in group)
        with np.errstate(invalid="ignore", divide="ignore"):
            res = sum(lv.agree_resamples for lv in group) / sum(lv.pairs_resamples for lv in group)
        out.append(
            stat_row(
                base,
                "sys_pairwise_accuracy",
                agree / pairs,
                pairs,
                B.percentile_interval(np.asarray(res)),
                lp="all",
                gold=key[0],
                system_score=key[1],
            )
        )
    return out
