"""Language identification with the packaged lingua detector (offline), lazily built.

Used as a guard: an MT-breaker proposal must stay in the source language (a tiny LLM tends to answer in
the target language, which makes "translation" trivially bad by QE without being a valid source), and by the
shipped QE's wrong-language gate. :func:`script_share` and :func:`target_script_part` say how much of a text is
written in a language's script (Han, kana and Hangul characters weigh 2 letters: one carries about as much as two
alphabetic letters), so that a mixed-script translation is judged by its part in the target's script.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

COMMON = (
    "ENGLISH",
    "SPANISH",
    "GERMAN",
    "FRENCH",
    "CZECH",
    "PORTUGUESE",
    "ITALIAN",
    "POLISH",
    "RUSSIAN",
    "UKRAINIAN",
    "CHINESE",
    "JAPANESE",
    "KOREAN",
    "ARABIC",
    "HINDI",
    "ICELANDIC",
    "DUTCH",
    "CATALAN",
    "VIETNAMESE",
    "HEBREW",
    "TURKISH",
)


@lru_cache(maxsize=1)
def _detector():
    try:
        from lingua import Language, LanguageDetectorBuilder
    except ModuleNotFoundError:
        return None
    return LanguageDetectorBuilder.from_languages(*[getattr(Language, n) for n in COMMON]).build()


def available() -> bool:
    return _detector() is not None


def detect(text: str) -> str | None:
    """ISO 639-1 code of the text's language, or None when unsure or lingua is missing."""
    det = _detector()
    if det is None or not text.strip():
        return None
    lang = det.detect_language_of(text)
    return lang.iso_code_639_1.name.lower() if lang is not None else None


def is_language(text: str, lang: str) -> bool | None:
    """True/False when the detector can tell; None when it cannot (then no guard applies)."""
    got = detect(text)
    return None if got is None else got == lang.split("-")[0].lower()


def confidences(text: str) -> dict[str, float]:
    """ISO 639-1 code -> the detector's confidence (summing to 1 over COMMON); empty when it cannot tell."""
    det = _detector()
    if det is None or not text.strip():
        return {}
    return {c.language.iso_code_639_1.name.lower(): c.value for c in det.compute_language_confidence_values(text)}


def covers(lang: str) -> bool:
    """True when ``lang`` is among the detector's languages (else no guard can say a text is not in it)."""
    from lingua import Language

    return available() and any(
        getattr(Language, n).iso_code_639_1.name.lower() == lang.split("-")[0].lower() for n in COMMON
    )


WIDE = {"CJK", "HIRAGANA", "KATAKANA", "HANGUL"}  # scripts whose characters weigh 2 letters
SCRIPTS = {
    "zh": {"CJK"},
    "ja": {"CJK", "HIRAGANA", "KATAKANA"},
    "ko": {"HANGUL", "CJK"},
    "ru": {"CYRILLIC"},
    "uk": {"CYRILLIC"},
    "ar": {"ARABIC"},
    "he": {"HEBREW"},
    "hi": {"DEVANAGARI"},
    "el": {"GREEK"},
    "th": {"THAI"},
    "bg": {"CYRILLIC"},
    "sr": {"CYRILLIC", "LATIN"},
}
LATIN_LANGS = {
    "en",
    "es",
    "de",
    "fr",
    "cs",
    "pt",
    "it",
    "pl",
    "is",
    "nl",
    "ca",
    "vi",
    "tr",
    "ro",
    "sv",
    "da",
    "no",
    "nb",
    "fi",
    "et",
    "lv",
    "lt",
    "hu",
    "sk",
    "sl",
    "hr",
    "bs",
    "eu",
    "gl",
    "ga",
    "cy",
    "mt",
    "id",
    "ms",
    "sw",
    "af",
    "sq",
    "tl",
}


def _script(ch: str) -> str:
    try:
        return unicodedata.name(ch).split()[0]
    except ValueError:
        return ""


def scripts_of(lang: str) -> set[str] | None:
    """The scripts ``lang`` is written in (unicodedata name prefixes), None when not known here."""
    base = lang.split("-")[0].lower()
    return SCRIPTS.get(base) or ({"LATIN"} if base in LATIN_LANGS else None)


def script_share(text: str, lang: str) -> float | None:
    """Share of the text's letters (Han, kana, Hangul weigh 2) written in ``lang``'s script; None when the script
    of ``lang`` is not known or the text has no letter."""
    scripts = scripts_of(lang)
    if scripts is None:
        return None
    total = ours = 0
    for ch in text:
        if ch.isalpha():
            sc = _script(ch)
            w = 2 if sc in WIDE else 1
            total += w
            ours += w if sc in scripts else 0
    return ours / total if total else None


def target_script_part(text: str, lang: str) -> str:
    """``text`` with the letters of other scripts than ``lang``'s blanked (what a language identifier should judge
    in a mixed-script translation); the text itself when the script of ``lang`` is not known."""
    scripts = scripts_of(lang)
    if scripts is None:
        return text
    return "".join(ch if not ch.isalpha() or _script(ch) in scripts else " " for ch in text)
