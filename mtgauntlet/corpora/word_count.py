"""Word counts for every script, those written without spaces included.

``\\w+`` runs count words where words are separated by spaces or punctuation; a Chinese or Japanese sentence is
one run (a 46-character Chinese sentence was "2 words"). Runs of Han and kana characters are counted instead:

- Chinese (``zh``, or Han text without kana when the language is not given): the words of the jieba segmenter
  (the ``nlp`` extra; imported lazily). On the FLORES-200 devtest, jieba finds 20,340 words in the 1,012 Chinese
  sentences (1.74 characters a word), 0.91 a word of the parallel English (22,295 ``\\w+`` words).
- Japanese (``ja``, or text with kana): Han/kana characters / 2.3, rounded (at least 1). No Japanese
  segmenter is installed; 2.3 is the ratio of Han/kana characters in the FLORES-200 devtest Japanese sentences
  (51,653) to the ``\\w+`` words of the parallel English (22,295), so a count is in English-word units, as
  jieba's Chinese words nearly are. Chinese falls back to the same rule, with 1.74, where jieba is not installed.

Letters of other scripts (Latin, Cyrillic, Hangul, digits, ...) in the same text count as ``\\w+`` runs.
"""

from __future__ import annotations

import re

_HAN_KANA = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002ebef"
HAN_KANA_RUN = re.compile(f"[{_HAN_KANA}]+")
KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
JA_CHARS_PER_WORD = 2.3  # FLORES-200 devtest: Japanese Han/kana characters per word of the parallel English
ZH_CHARS_PER_WORD = 1.74  # FLORES-200 devtest: Chinese characters per jieba word (fallback without jieba)


def _base(lang: str | None) -> str:
    return (lang or "").replace("_", "-").split("-")[0].lower()


def has_jieba() -> bool:
    """Whether Chinese words are counted by jieba here (else by characters / 1.74: :func:`chinese_rule` says so)."""
    try:
        import jieba  # noqa: F401
    except ImportError:
        return False
    return True


def chinese_rule() -> str:
    """How Chinese words are counted in this environment, in words for a card."""
    if has_jieba():
        return "the jieba segmenter"
    return f"Han characters / {ZH_CHARS_PER_WORD} (jieba is not installed: pip install 'mtgauntlet[nlp]')"


def _jieba_words(runs: list[str]) -> int | None:
    try:
        import jieba
    except ImportError:
        return None
    import logging

    jieba.setLogLevel(logging.WARNING)
    return sum(1 for run in runs for token in jieba.cut(run) if token.strip())


def words(text: str, lang: str | None = None) -> int:
    """The number of words of ``text`` (in ``lang`` where given: ``zh``/``ja`` choose the rule for Han runs)."""
    text = text or ""
    runs = HAN_KANA_RUN.findall(text)
    other = len(re.findall(r"\w+", HAN_KANA_RUN.sub(" ", text) if runs else text))
    if not runs:
        return other
    base = _base(lang)
    japanese = base == "ja" or (base != "zh" and KANA.search(text) is not None)
    if not japanese:
        counted = _jieba_words(runs)
        if counted is not None:
            return other + counted
    ratio = JA_CHARS_PER_WORD if japanese else ZH_CHARS_PER_WORD
    return other + max(1, round(sum(map(len, runs)) / ratio))
