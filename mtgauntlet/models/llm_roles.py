"""Wrap any ChatLLM as a translator, a QE model or a difficulty judge, with the papers' prompts.

Spec: ``llm-as-translator:<llm spec>``, ``llm-as-qe:<llm spec>``, ``llm-judge:<llm spec>`` (empty = the
embedded LLM). Garbage answers never crash: they are retried a bounded number of times, then counted
in :attr:`failures` and replaced by a documented fallback (empty translation / ``None`` score).
"""

from __future__ import annotations

from collections import Counter

from mtgauntlet.corpora.langs import normalize_lang
from mtgauntlet.models import prompts
from mtgauntlet.models.base import DifficultyEstimator, QualityEstimator, Translator

LANG_NAMES = {"en": "English", "de": "German", "es": "Spanish", "cs": "Czech", "fr": "French", "pt": "Portuguese",
              "it": "Italian", "zh": "Chinese", "ja": "Japanese", "ru": "Russian", "uk": "Ukrainian", "pl": "Polish",
              "he": "Hebrew", "hi": "Hindi", "is": "Icelandic", "ko": "Korean", "ar": "Arabic", "nl": "Dutch",
              "vi": "Vietnamese", "ca": "Catalan", "tr": "Turkish"}


def lang_name(code: str | None) -> str:
    if not code:
        return "the target language"
    try:
        return LANG_NAMES.get(normalize_lang(code).split("-")[0], code)
    except ValueError:
        return code


def _llm(arg: str):
    from mtgauntlet.models import registry

    return registry.load("llm", arg or None)


class _LLMRole:
    def __init__(self, arg: str = "", retries: int = 2, max_tokens: int = 256):
        self.llm = _llm(arg)
        self.retries = retries
        self.max_tokens = max_tokens
        self.failures: Counter = Counter()

    def _ask(self, prompt: str, parse):
        for attempt in range(self.retries + 1):
            answer = self.llm.chat([{"role": "user", "content": prompt}], max_tokens=self.max_tokens,
                                   temperature=0.0 if attempt == 0 else 0.7, seed=attempt)
            value = parse(answer)
            if value is not None:
                return value
        return None


class LLMTranslator(_LLMRole, Translator):
    description = "any ChatLLM prompted to translate (bandit paper App. E prompt)"

    def translate(self, texts, src_lang, tgt_lang) -> list[str]:
        out = []
        for t in texts:
            prompt = prompts.TRANSLATE.format(src_lang=lang_name(src_lang), tgt_lang=lang_name(tgt_lang), source=t)
            value = self._ask(prompt, prompts.parse_translation)
            if value is None:
                self.failures["unparseable_translation"] += 1
                value = ""
            out.append(value)
        return out


class LLMQualityEstimator(_LLMRole, QualityEstimator):
    description = "any ChatLLM as QE (GEMBA-style prompt of the MT-breaker/bandit papers)"

    def score_or_none(self, sources, translations, src_lang, tgt_lang) -> list[float | None]:
        out = []
        for s, t in zip(sources, translations):
            value = self._ask(prompts.LLM_QE.format(source=s, translation=t), prompts.parse_score)
            if value is None:
                self.failures["unparseable_score"] += 1
            out.append(value)
        return out

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        """Unparseable answers score 50 (the scale's middle) and are counted in ``failures``."""
        return [50.0 if v is None else v for v in self.score_or_none(sources, translations, src_lang, tgt_lang)]


class LLMDifficultyJudge(_LLMRole, DifficultyEstimator):
    description = "any ChatLLM as difficulty judge (0-120 proficiency scale)"

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float]:
        out = []
        for t in texts:
            prompt = prompts.DIFFICULTY_JUDGE.format(src_lang=lang_name(src_lang), tgt_lang=lang_name(tgt_lang),
                                                     source=t)
            value = self._ask(prompt, lambda a: prompts.parse_score(a, 0.0, 120.0))
            if value is None:
                self.failures["unparseable_score"] += 1
                value = 60.0
            out.append(value)
        return out
