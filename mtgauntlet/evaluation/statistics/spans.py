"""Error-span statistics (WMT's span tasks, WMT26's error-free detection), character level and micro-averaged.

A span is ``(start, end, severity)``: character offsets into the (unmarked) translation, ``start`` inclusive and
``end`` exclusive; an item's spans may overlap (several raters, several errors): a character is inside a set of
spans when any of them covers it. Over the items of a set, with G the characters inside a gold span and P those
inside a predicted span (per item, summed over items):

- ``span_precision = |G ∩ P| / |P|``, ``span_recall = |G ∩ P| / |G|``, ``span_f1`` their harmonic mean
  (``2 |G ∩ P| / (|G| + |P|)``). Precision is NaN without a predicted character, recall without a gold one, F1
  when there is neither (every item error-free and predicted so: nothing to find).
- ``span_f1_severity``: the same counts with each character weighted by its severity (a character's weight is the
  largest of the spans covering it: major 5 / minor 1 / neutral 0, MQM's weights; critical 10; an unknown severity
  1), a matched character counting the smaller of its gold and predicted weights: matching a major error with a
  minor one earns the minor weight only.
- ``error_free_f1``: WMT26's binary task. An item is error-free when it has no gold span; the metric says so when it
  predicts no span, or, for a metric without spans, when its score is above ``threshold``. F1 of the error-free
  class: ``2 TP / (2 TP + FP + FN)``, TP = items error-free in both, FP = said error-free but not, FN = error-free
  but not said so. NaN when no item is error-free and none is said to be.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

SEVERITY_WEIGHTS = {"critical": 10.0, "major": 5.0, "minor": 1.0, "neutral": 0.0, "no-error": 0.0}

Span = tuple[int, int, str | None]


def severity_weight(severity: str | None) -> float:
    """MQM's weight of a severity (major 5, minor 1, neutral 0, critical 10); 1 for an unknown or missing one."""
    return SEVERITY_WEIGHTS.get((severity or "").strip().lower(), 1.0)


def _weights(spans: Sequence[Any], length: int) -> np.ndarray:
    """Per character of the item (``length`` characters, or as far as the spans reach): the largest severity weight
    of the spans covering it (0 outside every span; a span of weight 0 still covers, see ``_covered``)."""
    w = np.zeros(length)
    for s in spans:
        start, end, severity = _span(s)
        w[start:end] = np.maximum(w[start:end], severity_weight(severity))
    return w


def _covered(spans: Sequence[Any], length: int) -> np.ndarray:
    c = np.zeros(length, bool)
    for s in spans:
        start, end, _ = _span(s)
        c[start:end] = True
    return c


def _span(s: Any) -> Span:
    if isinstance(s, dict):
        return int(s["start"]), int(s["end"]), s.get("severity")
    start, end, *rest = s
    return int(start), int(end), (rest[0] if rest else None)


def _length(gold: Sequence[Any], pred: Sequence[Any], length: int | None) -> int:
    ends = [_span(s)[1] for s in [*gold, *pred]]
    return max([length or 0, *ends, 0])


def span_counts(
    gold: Sequence[Sequence[Any] | None],
    predicted: Sequence[Sequence[Any] | None],
    lengths: Sequence[int | None] | None = None,
) -> dict[str, float]:
    """Summed over items: gold, predicted and matched characters, plain and severity-weighted. An item whose
    prediction is None (the metric gave no answer) is left out; its gold None counts as no span."""
    out = dict.fromkeys(("gold", "pred", "match", "gold_w", "pred_w", "match_w"), 0.0)
    for k, (g, p) in enumerate(zip(gold, predicted)):
        if p is None:
            continue
        g = g or []
        n = _length(g, p, lengths[k] if lengths is not None else None)
        cg, cp = _covered(g, n), _covered(p, n)
        wg, wp = _weights(g, n), _weights(p, n)
        out["gold"] += float(cg.sum())
        out["pred"] += float(cp.sum())
        out["match"] += float((cg & cp).sum())
        out["gold_w"] += float(wg.sum())
        out["pred_w"] += float(wp.sum())
        out["match_w"] += float(np.minimum(wg, wp)[cg & cp].sum())
    return out


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def span_scores(
    gold: Sequence[Sequence[Any] | None],
    predicted: Sequence[Sequence[Any] | None],
    lengths: Sequence[int | None] | None = None,
) -> dict[str, float]:
    """``span_precision``, ``span_recall``, ``span_f1`` and ``span_f1_severity`` (module docstring)."""
    c = span_counts(gold, predicted, lengths)
    return {
        "span_precision": _ratio(c["match"], c["pred"]),
        "span_recall": _ratio(c["match"], c["gold"]),
        "span_f1": _ratio(2 * c["match"], c["gold"] + c["pred"]),
        "span_f1_severity": _ratio(2 * c["match_w"], c["gold_w"] + c["pred_w"]),
    }


def error_free_f1(
    gold: Sequence[Sequence[Any] | None],
    predicted: Sequence[Sequence[Any] | None] | None = None,
    scores: Sequence[float | None] | None = None,
    threshold: float | None = None,
) -> tuple[float, int]:
    """F1 of the error-free class (module docstring) and the number of items judged. The metric's verdict: no
    predicted span (``predicted``; None = no answer, left out), or else a score above ``threshold``."""
    tp = fp = fn = n = 0
    for k, g in enumerate(gold):
        if predicted is not None and predicted[k] is not None:
            said = len(predicted[k] or []) == 0
        elif scores is not None and threshold is not None and scores[k] is not None:
            said = float(scores[k]) > threshold  # type: ignore[arg-type]
        else:
            continue
        free = not g
        n += 1
        tp += free and said
        fp += said and not free
        fn += free and not said
    return _ratio(2 * tp, 2 * tp + fp + fn), n
