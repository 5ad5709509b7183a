"""Metric functions used by the validators. Each returns plain numbers (JSON-able)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)


# -- diversity (MT-breaker section 3.2) ------------------------------------------------------------
def chrf_diversity(texts: Sequence[str], word_order: int = 0, max_texts: int | None = 5000) -> dict[str, float]:
    """1 - mean pairwise sentence chrF / 100 over ordered pairs i != j (text i = hypothesis, j = reference)."""
    from mtgauntlet.validators.chrf_matrix import mean_pairwise_chrf

    mean, used = mean_pairwise_chrf(texts, word_order=word_order, max_texts=max_texts)
    return {"chrf_diversity": 1 - mean / 100 if mean == mean else float("nan"), "chrf_pairs_texts": used}


def embedding_diversity(
    texts: Sequence[str],
    embedder=None,
    max_texts: int | None = 5000,
    seed: int = 13,
    tick: Callable[[int], None] | None = None,
    batch: int = 64,
) -> float:
    """1 - mean pairwise cosine similarity over i != j of L2-normalised embeddings. The texts are embedded
    ``batch`` at a time (``tick(n)`` after each: the progress line of `gauntlet validate diversity`)."""
    from mtgauntlet.models import registry
    from mtgauntlet.validators.chrf_matrix import sample_texts

    texts = sample_texts(texts, max_texts, seed)
    n = len(texts)
    if n < 2:
        return float("nan")
    model = embedder or registry.load("embedder", "e5")
    parts = []
    for start in range(0, n, batch):
        parts.append(np.asarray(model.embed(texts[start : start + batch]), dtype=np.float64))
        if tick is not None:
            tick(len(parts[-1]))
    E = np.vstack(parts)
    s = E.sum(axis=0)
    total = float(s @ s) - float(np.sum(E * E))  # sum over i != j of e_i . e_j
    return 1 - total / (n * (n - 1))


def unique_words(texts: Sequence[str]) -> int:
    return len({w.lower() for t in texts for w in _WORD.findall(t)})


def unique_values(values: Sequence[Any]) -> int:
    return len({v for v in values if v is not None})


def error_mode_diversity(modes: Sequence[Sequence[str]]) -> dict[str, float]:
    """Distinct error modes and their entropy (bits), when trajectories carry error-mode labels."""
    c = Counter(m for ms in modes for m in (ms or []))
    total = sum(c.values())
    ent = -sum(v / total * math.log2(v / total) for v in c.values()) if total else 0.0
    return {"error_modes_unique": len(c), "error_modes_entropy": ent}


# -- length ---------------------------------------------------------------------------------------
def _words(t: str) -> int:
    return len(_WORD.findall(t or ""))


def length_stats(texts: Sequence[str], prefix: str, iqr_k: float = 3.0) -> dict[str, float]:
    w = np.array([_words(t) for t in texts], dtype=float)
    c = np.array([len(t or "") for t in texts], dtype=float)
    if not len(w):
        return {}
    q1, q3 = np.percentile(w, [25, 75])
    lo, hi = q1 - iqr_k * (q3 - q1), q3 + iqr_k * (q3 - q1)
    return {
        f"{prefix}.words_mean": float(w.mean()),
        f"{prefix}.words_min": float(w.min()),
        f"{prefix}.words_max": float(w.max()),
        f"{prefix}.chars_mean": float(c.mean()),
        f"{prefix}.empty_rate": float(np.mean(w == 0)),
        f"{prefix}.outlier_rate": float(np.mean((w < lo) | (w > hi))),
        f"{prefix}.outlier_low": float(lo),
        f"{prefix}.outlier_high": float(hi),
    }


def length_ratio_stats(a: Sequence[str], b: Sequence[str], name: str) -> dict[str, float]:
    """Character length ratio len(b)/len(a): mean and share outside [1/2, 2]."""
    r = np.array([(len(y or "") + 1) / (len(x or "") + 1) for x, y in zip(a, b)])
    return {
        f"length_ratio.{name}_mean": float(r.mean()),
        f"length_ratio.{name}_outside_0.5_2": float(np.mean((r < 0.5) | (r > 2))),
    }
