"""The leaderboard's span statistics of one metric on a human-judgment set with annotated error spans (a
``human_score``'s ``spans``, e.g. from ``gauntlet import mqm-spans``): per language pair and over the whole set
(``lp = 'all'``), ``span_precision``, ``span_recall``, ``span_f1``, ``span_f1_severity`` and ``error_free_f1``
(:mod:`mtgauntlet.evaluation.statistics.spans`), over the items with a gold annotation (a record whose ``spans`` is
not null) and a metric answer (spans given; an item without spans from the metric is left out). ``gold`` says
``spans``; ``n`` counts the items compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mtgauntlet.workbench.rows import stat_row
from mtgauntlet.workbench.sets import Items


def span_rows(items: Items, spans: Sequence[Any], base: dict[str, Any]) -> list[dict[str, Any]]:
    from mtgauntlet.evaluation.statistics.spans import error_free_f1, span_scores

    keep = [i for i in range(len(items)) if items.gold_spans[i] is not None and spans[i] is not None]
    if not keep:
        return []
    out = []
    for lp in [*sorted({items.lp[i] for i in keep}), "all"]:
        idx = [i for i in keep if lp in ("all", items.lp[i])]
        if lp == "all" and len({items.lp[i] for i in keep}) < 2:
            continue
        gold = [items.gold_spans[i] for i in idx]
        pred = [spans[i] for i in idx]
        lengths = [len(items.hyp[i] or "") for i in idx]
        for name, value in span_scores(gold, pred, lengths).items():
            out.append(stat_row(base, name, value, len(idx), lp=lp, gold="spans"))
        free, n = error_free_f1(gold, pred)
        out.append(stat_row(base, "error_free_f1", free, n, lp=lp, gold="spans"))
    return out


def threshold_rows(
    items: Items, scores: Sequence[float | None], base: dict[str, Any], threshold: float
) -> list[dict[str, Any]]:
    """``error_free_f1`` of a metric without spans: a score strictly above ``threshold`` says error-free (per
    language pair and over the set, items with a gold annotation and a score)."""
    from mtgauntlet.evaluation.statistics.spans import error_free_f1

    keep = [i for i in range(len(items)) if items.gold_spans[i] is not None and scores[i] is not None]
    out = []
    lps = sorted({items.lp[i] for i in keep})
    for lp in [*lps, *(["all"] if len(lps) > 1 else [])]:
        idx = [i for i in keep if lp in ("all", items.lp[i])]
        value, n = error_free_f1([items.gold_spans[i] for i in idx], None, [scores[i] for i in idx], threshold)
        out.append(stat_row(base, "error_free_f1", value, n, lp=lp, gold="spans", epsilon=None))
    return out
