"""Wrap any ChatLLM as a translator, a QE model or a difficulty judge, with the papers' prompts.

Spec: ``llm-as-translator:<llm spec>``, ``llm-as-qe:<llm spec>``, ``llm-judge:<llm spec>`` (source + target
language prompt when the target language is known), ``llm-judge-src:<llm spec>`` (source-only prompt); an empty
``<llm spec>`` is the embedded LLM. Garbage answers never crash and never become numbers: they are retried a
bounded number of times, then counted in :attr:`failures` and returned as ``None`` (a missing translation, score
or difficulty), so that callers can leave them out of any selection and count them.

Every role sends its prompts as one list through ``ChatLLM.chat_many`` (concurrent requests for ``openai:``, up to
the backend's concurrency; batches for local models): attempt 0 of every prompt, then attempt 1 of the prompts whose
answer did not parse, and so on. An answer depends only on its prompt and its attempt (temperature 0 first, then
0.7 with the attempt as seed), so results do not depend on how many texts are asked at once or in which order.
With ``openai:...#json=1`` the QE and difficulty roles ask for schema-constrained JSON (:mod:`.structured`) and
read the score from it; an answer that does not validate is retried and counted as the text path's garbage.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from mtgauntlet.corpora.langs import normalize_lang
from mtgauntlet.models import prompts, structured
from mtgauntlet.models.base import DifficultyEstimator, QualityEstimator, Translator

LANG_NAMES = {
    "en": "English",
    "de": "German",
    "es": "Spanish",
    "cs": "Czech",
    "fr": "French",
    "pt": "Portuguese",
    "it": "Italian",
    "zh": "Chinese",
    "ja": "Japanese",
    "ru": "Russian",
    "uk": "Ukrainian",
    "pl": "Polish",
    "he": "Hebrew",
    "hi": "Hindi",
    "is": "Icelandic",
    "ko": "Korean",
    "ar": "Arabic",
    "nl": "Dutch",
    "vi": "Vietnamese",
    "ca": "Catalan",
    "tr": "Turkish",
}


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
    # the papers' QE and judge prompts ask for reasoning before the answer line: leave room for it
    max_tokens_default = 1024
    options: Mapping[str, str] | None = None  # the argument is an LLM spec: its backend declares the options

    def planned_prompts(self, sources, translations, src_lang, tgt_lang) -> list[str]:
        """The prompts of one attempt on these texts (``--dry-run``)."""
        raise NotImplementedError

    def plan_calls(self, plan, sources, translations, src_lang, tgt_lang, times=1) -> None:
        plan.add(self.llm, self.planned_prompts(sources, translations, src_lang, tgt_lang), self.max_tokens, times)

    def __init__(self, arg: str = "", retries: int = 2, max_tokens: int | None = None):
        self.llm = _llm(arg)
        self.retries = retries
        self.max_tokens = max_tokens or self.max_tokens_default
        self.failures: Counter = Counter()

    def _ask_many(self, prompts: list[str], parse, schema: structured.AnswerSchema | None = None) -> list:
        """Parsed answers to ``prompts`` (``None`` where every attempt failed to parse), asked as one list per
        attempt: the first try of every prompt at once, then the retries of those that failed. With a ``schema``
        and a backend in JSON mode, the answers are JSON objects of that schema."""
        values: list = [None] * len(prompts)
        pending = list(range(len(prompts)))
        for attempt in range(self.retries + 1):
            if not pending:
                break
            convs = [[{"role": "user", "content": prompts[i]}] for i in pending]
            kw = {"max_tokens": self.max_tokens, "temperature": 0.0 if attempt == 0 else 0.7, "seed": attempt}
            if schema is None:
                parsed = [parse(a) for a in self.llm.chat_many(convs, **kw)]
            else:
                parsed = structured.ask(self.llm, convs, schema, parse, **kw)[1]
            for i, value in zip(pending, parsed):
                values[i] = value
            pending = [i for i in pending if values[i] is None]
        return values


class LLMTranslator(_LLMRole, Translator):
    description = "any ChatLLM prompted to translate (bandit paper App. E prompt); failures are None"
    max_tokens_default = 512

    def planned_prompts(self, sources, translations, src_lang, tgt_lang) -> list[str]:
        return [
            prompts.TRANSLATE.format(src_lang=lang_name(src_lang), tgt_lang=lang_name(tgt_lang), source=s)
            for s in sources
        ]

    def translate(self, texts, src_lang, tgt_lang) -> list[str | None]:
        """Translations; ``None`` where no usable answer came (counted in ``failures``), never an empty string."""
        out = self._ask_many(
            [
                prompts.TRANSLATE.format(src_lang=lang_name(src_lang), tgt_lang=lang_name(tgt_lang), source=t)
                for t in texts
            ],
            prompts.parse_translation,
        )
        self.failures["unparseable_translation"] += sum(v is None for v in out)
        return out


class LLMQualityEstimator(_LLMRole, QualityEstimator):
    description = "any ChatLLM as QE (the MT-breaker paper's LLM-as-QE prompt); failures are None"
    PROMPTS = {"mtbreaker": prompts.LLM_QE, "bandit": prompts.BANDIT_QE}  # the bandit search asks for its paper's

    def __init__(self, arg: str = "", retries: int = 2, max_tokens: int | None = None, prompt: str = "mtbreaker"):
        super().__init__(arg, retries, max_tokens)
        self.prompt = self.PROMPTS[prompt]

    def planned_prompts(self, sources, translations, src_lang, tgt_lang) -> list[str]:
        # the MT-breaker prompt, as --dry-run has always estimated it (the bandit prompt is of similar length)
        return [prompts.LLM_QE.format(source=s, translation=t) for s, t in zip(sources, translations or sources)]

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float | None]:
        """0..100 scores; ``None`` where the answer held no ``SCORE |||x|||`` in range (counted in ``failures``)."""
        out = self._ask_many(
            [self.prompt.format(source=s, translation=t) for s, t in zip(sources, translations)],
            prompts.parse_score,
            structured.QE,
        )
        self.failures["unparseable_score"] += sum(v is None for v in out)
        return out

    score_or_none = score  # earlier name of the same method


class LLMDifficultyJudge(_LLMRole, DifficultyEstimator):
    """The Sentinel paper's LLM-as-a-judge: proficiency needed to translate the text, 0-120 (CEFR A1-C2 bands),
    answered as ``[[[score, level]]]`` after the reasoning. ``llm-judge`` names the target language when it is
    known (the paper's "source text + target language" prompt); ``llm-judge-src`` never does."""

    description = "any ChatLLM as difficulty judge (Sentinel paper prompt, 0-120 proficiency, CEFR)"
    source_only = False

    def __init__(self, arg: str = "", retries: int = 2, max_tokens: int | None = None):
        super().__init__(arg, retries, max_tokens)
        self.levels: dict[str, str] = {}  # text -> CEFR level of the last judgement

    def planned_prompts(self, sources, translations, src_lang, tgt_lang) -> list[str]:
        return [self.prompt(s, tgt_lang) for s in sources]

    def prompt(self, text: str, tgt_lang: str | None) -> str:
        if self.source_only or not tgt_lang:
            return prompts.DIFFICULTY_JUDGE_SRC.format(source=text)
        return prompts.DIFFICULTY_JUDGE_TGT.format(source=text, tgt_lang=lang_name(tgt_lang))

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float | None]:
        """Proficiency scores (higher = harder); ``None`` where no ``[[[score, level]]]`` came (counted)."""
        texts = list(texts)
        out: list[float | None] = []
        for t, judged in zip(
            texts,
            self._ask_many([self.prompt(t, tgt_lang) for t in texts], prompts.parse_proficiency, structured.DIFFICULTY),
        ):
            if judged is None:
                self.failures["unparseable_score"] += 1
                out.append(None)
                continue
            self.levels[t] = judged[1]
            out.append(judged[0])
        return out


class LLMSourceOnlyDifficultyJudge(LLMDifficultyJudge):
    description = "any ChatLLM as difficulty judge, source-only prompt (Sentinel paper)"
    source_only = True
