"""Source-text features shared by the shipped learned models (training and inference use this one code).

Language-agnostic surface features + wordfreq rarity + multilingual-e5 embeddings. Missing values
(a language wordfreq does not cover) are NaN; the models impute their training means.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

import numpy as np

SURFACE = ("log_words", "log_chars", "mean_rarity", "max_rarity", "digit_frac", "punct_frac", "upper_frac",
           "mean_word_len")
_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _wordfreq():
    try:
        import wordfreq

        return wordfreq
    except ModuleNotFoundError:
        return None


def surface_features(texts: Sequence[str], lang: str | None) -> np.ndarray:
    wf = _wordfreq()
    lang = (lang or "en").split("-")[0]
    try:
        supported = wf is not None and lang in wf.available_languages()
    except Exception:
        supported = False
    out = np.zeros((len(texts), len(SURFACE)), dtype=np.float64)
    for i, t in enumerate(texts):
        words = _WORD.findall(t)
        n_words = sum(len(_CJK.findall(w)) or 1 for w in words)
        rar = []
        if supported:
            try:
                toks = [w for w in wf.tokenize(t, lang) if any(ch.isalpha() for ch in w)]
                rar = [8.0 - wf.zipf_frequency(w, lang) for w in toks]
            except Exception:  # e.g. a tokenizer extra (jieba) missing
                rar = []
        nch = max(1, len(t))
        out[i] = [math.log1p(n_words), math.log1p(len(t)),
                  float(np.mean(rar)) if rar else np.nan, float(np.max(rar)) if rar else np.nan,
                  sum(ch.isdigit() for ch in t) / nch, sum((not ch.isalnum()) and not ch.isspace() for ch in t) / nch,
                  sum(1 for w in words if w[:1].isupper()) / max(1, len(words)),
                  float(np.mean([len(w) for w in words])) if words else 0.0]
    return out


def source_features(texts: Sequence[str], lang: str | None, embedder=None) -> np.ndarray:
    """[surface features | e5 embedding] for each text."""
    from mtgauntlet.models import registry

    emb = (embedder or registry.load("embedder", "e5")).embed(list(texts))
    return np.hstack([surface_features(texts, lang), emb.astype(np.float64)])


class LinearModel:
    """Standardise -> impute NaN with 0 (the training mean) -> w.x + b. Stored as a small .npz."""

    def __init__(self, mean, std, coef, intercept, names, meta: dict):
        self.mean, self.std, self.coef, self.intercept = (np.asarray(mean), np.asarray(std), np.asarray(coef),
                                                          float(intercept))
        self.names, self.meta = list(names), dict(meta)

    def transform(self, X: np.ndarray) -> np.ndarray:
        Z = (np.asarray(X, dtype=np.float64) - self.mean) / self.std
        return np.nan_to_num(Z, nan=0.0)

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.transform(X) @ self.coef + self.intercept

    def save(self, path) -> None:
        import json

        np.savez_compressed(path, mean=self.mean, std=self.std, coef=self.coef, intercept=self.intercept,
                            names=np.array(self.names), meta=np.array(json.dumps(self.meta)))

    @classmethod
    def load(cls, path) -> "LinearModel":
        import json

        d = np.load(path, allow_pickle=False)
        return cls(d["mean"], d["std"], d["coef"], float(d["intercept"]), [str(x) for x in d["names"]],
                   json.loads(str(d["meta"])))


def fit_ridge(X: np.ndarray, y: np.ndarray, alpha: float, names, meta) -> LinearModel:
    mean = np.nanmean(X, axis=0)
    std = np.nanstd(X, axis=0)
    std[std == 0] = 1.0
    model = LinearModel(mean, std, np.zeros(X.shape[1]), 0.0, names, meta)
    Z = model.transform(X)
    b = float(y.mean())
    A = Z.T @ Z + alpha * np.eye(Z.shape[1])
    model.coef = np.linalg.solve(A, Z.T @ (y - b))
    model.intercept = b
    return model
