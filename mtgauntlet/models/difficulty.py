"""Source-only difficulty heuristics (paper App. C): length, syntactic complexity, word rarity, random.

Higher = harder. All are multilingual where an annotator (syntax) or wordfreq (rarity) covers the language.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from mtgauntlet.models.base import DifficultyEstimator

_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    return _WORD.findall(text)


class LengthDifficulty(DifficultyEstimator):
    """Number of words (whitespace/CJK-agnostic word regex; CJK counts characters)."""

    description = "text length in words"

    def __init__(self, arg: str = ""):
        pass

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float]:
        out = []
        for t in texts:
            ws = words(t)
            n = sum(len(w) if _is_cjk(w) else 1 for w in ws)
            out.append(float(n))
        return out


def _is_cjk(w: str) -> bool:
    return any("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in w)


class RandomDifficulty(DifficultyEstimator):
    """Random baseline, deterministic per text (hash of text + seed)."""

    description = "random baseline"

    def __init__(self, arg: str = "", seed: int = 13):
        self.seed = int(arg) if arg else seed

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float]:
        return [int.from_bytes(hashlib.sha256(f"{self.seed}:{t}".encode()).digest()[:8], "big") / 2**64 for t in texts]


class SyntaxDifficulty(DifficultyEstimator):
    """Height of the dependency tree (spaCy), the paper's syntactic-complexity heuristic."""

    description = "dependency-tree height (spaCy)"
    requires = (("spacy", "nlp"),)

    def __init__(self, arg: str = "", lang: str | None = None):
        self.arg = arg
        self._annotators: dict[str, object] = {}

    def _nlp(self, lang: str):
        from mtgauntlet.models.annotators import SpacyAnnotator

        if lang not in self._annotators:
            ann = SpacyAnnotator(self.arg or lang)
            # only the parser is needed: disable NER etc. for speed
            keep = {"tok2vec", "tagger", "parser", "morphologizer", "attribute_ruler"}
            for name in list(ann.nlp.pipe_names):
                if name not in keep:
                    ann.nlp.disable_pipe(name)
            self._annotators[lang] = ann
        return self._annotators[lang]

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float]:
        from mtgauntlet.models.features import tree_height

        ann = self._nlp((src_lang or "en").split("-")[0])
        out = []
        for doc in ann.nlp.pipe(texts, batch_size=128):
            best = 0
            for sent in doc.sents:
                best = max(best, tree_height(sent.root))
            out.append(float(best))
        return out


class RarityDifficulty(DifficultyEstimator):
    """Mean word rarity: 8 - zipf frequency (wordfreq), averaged over the words of the text."""

    description = "mean word rarity (8 - wordfreq zipf)"
    requires = (("wordfreq", "nlp"),)

    def __init__(self, arg: str = ""):
        import wordfreq  # lazy

        self._zipf = wordfreq.zipf_frequency
        self._tokenize = wordfreq.tokenize

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float]:
        lang = (src_lang or "en").split("-")[0]
        out = []
        cache: dict[str, float] = {}
        for t in texts:
            try:
                toks = [w for w in self._tokenize(t, lang) if any(ch.isalpha() for ch in w)]
            except ModuleNotFoundError as exc:  # wordfreq needs jieba for Chinese, mecab for Japanese, ...
                from mtgauntlet.errors import BackendUnavailable

                raise BackendUnavailable(
                    f"rarity for '{lang}' needs the package {exc.name!r} (pip install {exc.name})"
                ) from None
            if not toks:
                out.append(0.0)
                continue
            vals = []
            for w in toks:
                if w not in cache:
                    cache[w] = 8.0 - self._zipf(w, lang)
                vals.append(cache[w])
            out.append(sum(vals) / len(vals))
        return out


def score_texts(
    estimator: DifficultyEstimator, texts: Sequence[str], src_lang=None, tgt_lang=None, batch_size: int = 256
) -> list[float | None]:
    out: list[float | None] = []
    for i in range(0, len(texts), batch_size):
        out.extend(estimator.difficulty(texts[i : i + batch_size], src_lang=src_lang, tgt_lang=tgt_lang))
    return out


def _shipped(name: str):
    from importlib import resources

    return resources.files("mtgauntlet") / "data" / "models" / name


class LearnedDifficulty(DifficultyEstimator):
    """``learned``: the source-only regressor trained by ``python -m mtgauntlet.training.difficulty`` on WMT
    human judgments (MQM, DA, ESA; surface + rarity features + multilingual-e5), shipped in the package.
    ``learned:<path.npz>`` loads another model trained by the same script. Each text is scored alone."""

    description = "shipped source-only regressor (WMT MQM/DA/ESA; surface, rarity, e5 features)"

    def __init__(self, arg: str = ""):
        from mtgauntlet.errors import BackendUnavailable
        from mtgauntlet.models.features import LinearModel

        path = arg or _shipped("learned_difficulty.npz")
        try:
            self.model = LinearModel.load(path)
        except (OSError, FileNotFoundError):
            raise BackendUnavailable(
                f"learned difficulty model not found at {path}; train it with python -m mtgauntlet.training.difficulty"
            ) from None
        self.signature = self.model.meta.get("signature", "")
        config = self.model.meta.get("config", {})
        self.groups = tuple(config.get("groups", ("surface", "rarity", "e5")))
        self.syntax_langs = tuple(self.model.meta.get("syntax_langs", ("en",)))

    def quality(self, texts, src_lang=None, embeddings=None):
        """Predicted quality (the model's output; difficulty is its negation). ``embeddings``: the texts'
        e5 vectors when the caller has them already (the shipped QE does)."""
        from mtgauntlet.models.features import source_features

        if not texts:
            return np.zeros(0)
        return self.model.predict(
            source_features(
                list(texts), src_lang, groups=self.groups, syntax_langs=self.syntax_langs, embeddings=embeddings
            )
        )

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float]:
        return [-float(p) for p in self.quality(texts, src_lang)]


class ArtificialCrowdDifficulty(DifficultyEstimator):
    """``crowd:<mt spec>[+<mt spec>...][;qe=<qe spec>]``: translate with each translator, score with the QE,
    difficulty = 100 - mean QE (artificial crowd; the bandit paper's difficulty)."""

    description = "artificial crowd: 100 - mean QE over translators"
    options = None  # its argument names other specs: their backends declare the options

    def __init__(self, arg: str = ""):
        from mtgauntlet.models import registry

        mts, _, qe = (arg or "apertium").partition(";qe=")
        self.translators = [registry.load("translator", s) for s in mts.split("+") if s]
        self.qe = registry.load("qe", qe or None)

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float | None]:
        """100 - mean QE over the translators; ``None`` (missing) for a text that any translator failed to
        translate or the QE failed to score: a failure never becomes a number (the subset builder and
        ``evaluate dec`` leave such texts out and count them)."""
        if not tgt_lang:
            from mtgauntlet.errors import GauntletError

            raise GauntletError("the artificial crowd needs a target language (tgt_lang)")
        texts = list(texts)
        totals: list[float | None] = [0.0] * len(texts)
        for tr in self.translators:
            hyps = tr.translate(texts, src_lang, tgt_lang)
            ok = [i for i, h in enumerate(hyps) if h is not None and totals[i] is not None]
            scores = self.qe.score([texts[i] for i in ok], [hyps[i] for i in ok], src_lang, tgt_lang) if ok else []
            kept = set(ok)
            totals = [t if i in kept else None for i, t in enumerate(totals)]
            for i, q in zip(ok, scores):
                total = totals[i]
                totals[i] = None if q is None or q != q or total is None else total + float(q)
        return [None if t is None else 100.0 - t / len(self.translators) for t in totals]

    def plan_calls(self, plan, sources, translations, src_lang, tgt_lang, times=1) -> None:
        """Each translator's calls, then the QE's on its translations (the sources standing in for them)."""
        for tr in self.translators:
            plan.add_role(tr, sources, None, src_lang, tgt_lang, times)
            plan.add_role(self.qe, sources, sources, src_lang, tgt_lang, times)


def mean_by_language(estimator_spec: str, texts: Sequence[str], langs: Sequence[str]) -> tuple[float, list[str]]:
    """Mean of a difficulty estimator (``rarity``, ``syntax``, ...) over texts, each scored in its own language;
    with notes for the texts of a language the estimator cannot score (NaN when none could be)."""
    import warnings
    from collections import defaultdict

    from mtgauntlet.errors import BackendUnavailable
    from mtgauntlet.models import registry

    by_lang: dict[str, list[str]] = defaultdict(list)
    for t, lang in zip(texts, langs):
        by_lang[(lang or "und").split("-")[0]].append(t or "")
    values: list[float] = []
    notes: list[str] = []
    for lang, group in sorted(by_lang.items()):
        try:
            with warnings.catch_warnings():  # spaCy's W095 (an older packaged model) says nothing about the data
                warnings.filterwarnings("ignore", message=r".*\[W095\]")
                scored = registry.load("difficulty", estimator_spec).difficulty(group, src_lang=lang)
        except (BackendUnavailable, OSError, ImportError) as exc:
            notes.append(f"{len(group)} {lang} text(s) not measured: {exc}")
            continue
        kept = [float(v) for v in scored if v is not None and v == v]  # a failed score is missing, not a zero
        values += kept
        if len(kept) < len(group):
            notes.append(f"{len(group) - len(kept)} {lang} text(s) without a score (left out)")
    return (float(np.mean(values)) if values else float("nan")), notes
