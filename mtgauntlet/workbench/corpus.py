"""Corpus-level system scores of the lexical metrics, as the WMT metrics task scores its chrF and BLEU baselines.

A system's score is sacrebleu's ``corpus_score`` over the system's scored segments (not the mean of its sentence
scores): chrF with sacrebleu's defaults (``CHRF()``), BLEU with sacrebleu's corpus defaults (``BLEU()``: exp
smoothing, no effective order). Bootstrap resamples reuse each segment's sufficient statistics (sacrebleu's own
``_extract_corpus_statistics`` / ``_compute_score_from_stats``, the steps of ``corpus_score``), so a resampled
corpus score is the corpus score of the resampled segments without tokenising again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

CORPUS_METRICS = ("chrf", "bleu")


@dataclass
class CorpusScorer:
    """sacrebleu's corpus score of one metric (``name``: chrf or bleu)."""

    name: str
    metric: Any
    cache: dict[tuple[str, str], np.ndarray] = field(default_factory=dict, repr=False)

    def score(self, hyps: Sequence[str], refs: Sequence[str]) -> float:
        """sacrebleu's ``corpus_score(hyps, [refs])`` (NaN without a segment): the score of the summed segment
        statistics, which is what ``corpus_score`` computes; ``corpus_score`` itself with another sacrebleu."""
        if not len(hyps):
            return float("nan")
        stats = self.statistics(hyps, refs)
        if stats is None:
            return float(self.metric.corpus_score(list(hyps), [list(refs)]).score)
        return self.from_statistics(stats.sum(0))

    def statistics(self, hyps: Sequence[str], refs: Sequence[str]) -> np.ndarray | None:
        """Each segment's sufficient statistics (segments × K), or None with a sacrebleu that lacks the steps; a
        (hypothesis, reference) pair's statistics are computed once (kept in ``cache``)."""
        if not hasattr(self.metric, "_extract_corpus_statistics") or not len(hyps):
            return None
        todo = list(dict.fromkeys(p for p in zip(hyps, refs) if p not in self.cache))
        if todo:
            found = self.metric._extract_corpus_statistics([h for h, _ in todo], [[r for _, r in todo]])
            self.cache.update(zip(todo, np.asarray(found, dtype=float)))
        return np.vstack([self.cache[p] for p in zip(hyps, refs)])

    def from_statistics(self, summed: np.ndarray) -> float:
        """The corpus score of segments whose statistics sum to ``summed``."""
        return float(self.metric._compute_score_from_stats(list(summed)).score)


def corpus_scorer(name: str) -> CorpusScorer | None:
    """The corpus-level scorer of a metric spec with a corpus form (chrf, bleu), None for any other metric."""
    if name not in CORPUS_METRICS:
        return None
    from sacrebleu.metrics import BLEU, CHRF

    return CorpusScorer(name, CHRF() if name == "chrf" else BLEU())
