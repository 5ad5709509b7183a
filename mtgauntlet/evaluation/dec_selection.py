"""How `evaluate dec` turns an estimator's scores into the hardest subset, and the oracles beside the estimators.

Selection modes (``SELECTIONS``):

- ``per-pair`` (default): the hardest ``fraction`` of each language pair's items by that pair's scores; AvgScore
  and %Perfect per pair, averaged over pairs (a target-aware estimator picks different sources per pair; the
  Sentinel paper's "source text + target lang" rows of Tables 9-10).
- ``source-set`` (the paper's section 6.1 setting, "one source set"): a source text's score is the mean of its
  scores over every pair that translates it (for an artificial crowd: over the MT models, inside the estimator,
  and over the target languages, here), and the hardest ``fraction`` of the *source texts* is chosen once, the
  same for every target language; AvgScore and %Perfect are then computed per pair on its translations of the
  chosen texts and averaged over pairs (Tables 9-10, "results computed per language pair, then averaged"). A
  source is the same text in the same source language (``lp``'s first half), whatever its item id in each pair.
  DEC uses the same averaged score in this mode.

Oracles (the paper's Appendix E), from the human scores themselves (difficulty = - mean human score):

- ``oracle (source text + target lang)``: per pair and item, over its translators;
- ``oracle (source text only)``: also averaged over the pairs that translate the text.

(The paper's plain "Oracle", a different score per translator, has DEC 1 by construction and is not listed.)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mtgauntlet.evaluation.dec import PERFECT, dec, selection_quality

SELECTIONS = ("per-pair", "source-set")
ORACLE_PAIR = "oracle (source text + target lang)"
ORACLE_SOURCE = "oracle (source text only)"

LENGTH_UNIT = "words (\\w+ runs; CJK: characters), not spaCy tokens as in the paper"
Key = tuple[str, str]  # (lp, item_id)


def source_of(judgment: Mapping[str, Any]) -> tuple[str, str]:
    """(source language, source text): the same source in every pair that translates it."""
    return str(judgment["lp"]).split("-")[0], str(judgment["src"])


def sources_by_key(judgments: Sequence[Mapping[str, Any]]) -> dict[Key, tuple[str, str]]:
    return {(j["lp"], str(j["item_id"])): source_of(j) for j in judgments}


def over_targets(judgments: Sequence[Mapping[str, Any]], difficulty: Mapping[Key, float]) -> dict[Key, float]:
    """Every (lp, item)'s score replaced by the mean of its source's scores over the pairs that scored it."""
    source = sources_by_key(judgments)
    pooled: dict[tuple[str, str], list[float]] = defaultdict(list)
    for key, value in difficulty.items():
        pooled[source[key]].append(value)
    return {key: float(np.mean(pooled[source[key]])) for key in difficulty}


def oracle(judgments: Sequence[Mapping[str, Any]], per_source: bool) -> dict[Key, float]:
    """The oracle's difficulty per (lp, item): minus the mean human score over its translators (and, with
    ``per_source``, over the pairs that translate the same source: the mean of the per-pair means)."""
    scores: dict[Key, list[float]] = defaultdict(list)
    for j in judgments:
        scores[(j["lp"], str(j["item_id"]))].append(float(j["score"]))
    out = {key: -float(np.mean(v)) for key, v in scores.items()}
    return over_targets(judgments, out) if per_source else out


def _quality(rows: Sequence[Mapping[str, Any]], perfect: Mapping[str, float]) -> tuple[float, float]:
    return (
        float(np.mean([j["score"] for j in rows])),
        100 * float(np.mean([j["score"] == perfect.get(j.get("protocol", "da"), 100.0) for j in rows])),
    )


def source_set_quality(
    judgments: Sequence[Mapping[str, Any]],
    difficulty: Mapping[Key, float],
    fraction: float,
    perfect: Mapping[str, float],
) -> dict[str, Any]:
    """AvgScore and %Perfect of one hardest set of source texts (``source-set``): ``difficulty`` is already
    averaged over targets (:func:`over_targets`); ties broken by (source language, text)."""
    source = sources_by_key(judgments)
    by_source = {source[key]: value for key, value in difficulty.items()}
    ranked = sorted(by_source, key=lambda s: (-by_source[s], s))
    chosen = set(ranked[: max(1, int(round(fraction * len(ranked))))]) if ranked else set()
    by_lp: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for j in judgments:
        if (j["lp"], str(j["item_id"])) in difficulty and source_of(j) in chosen:
            by_lp[j["lp"]].append(j)
    per_lp = {lp: _quality(rows, perfect) for lp, rows in sorted(by_lp.items())}
    return {
        "avg_score": float(np.mean([a for a, _ in per_lp.values()])) if per_lp else float("nan"),
        "perfect_pct": float(np.mean([p for _, p in per_lp.values()])) if per_lp else float("nan"),
        "fraction": fraction,
        "sources_chosen": len(chosen),
        "sources": len(ranked),
    }


def dec_and_selection(rows, scores, fraction: float, selection: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """DEC and the hardest subset's AvgScore / %Perfect in a selection mode (:mod:`mtgauntlet.evaluation.dec_selection`)."""
    if selection == "source-set":
        scores = over_targets(rows, scores)
        return dec(rows, scores), source_set_quality(rows, scores, fraction, PERFECT)
    return dec(rows, scores), selection_quality(rows, scores, fraction)


def oracle_rows(rows, fraction: float) -> list[dict[str, Any]]:
    """The paper's two oracles (Appendix E) beside the estimators, each in its own selection mode: source text +
    target lang per pair, source text only as one source set."""
    out = []
    for name, per_source, mode in ((ORACLE_PAIR, False, "per-pair"), (ORACLE_SOURCE, True, "source-set")):
        res, sel = dec_and_selection(rows, oracle(rows, per_source), fraction, mode)
        out.append(
            {
                "estimator": name,
                "selection": mode,
                "dec": res["dec"],
                "per_lp": res["per_lp"],
                "avg_score": sel["avg_score"],
                "perfect_pct": sel["perfect_pct"],
            }
        )
    return out
