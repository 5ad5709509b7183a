"""Language identification with the packaged lingua detector (offline), lazily built.

Used as a guard: an MT-breaker proposal must stay in the source language (a tiny LLM tends to answer in
the target language, which makes "translation" trivially bad by QE without being a valid source).
"""

from __future__ import annotations

from functools import lru_cache

COMMON = ("ENGLISH", "SPANISH", "GERMAN", "FRENCH", "CZECH", "PORTUGUESE", "ITALIAN", "POLISH", "RUSSIAN",
          "UKRAINIAN", "CHINESE", "JAPANESE", "KOREAN", "ARABIC", "HINDI", "ICELANDIC", "DUTCH", "CATALAN",
          "VIETNAMESE", "HEBREW", "TURKISH")


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

    return available() and any(getattr(Language, n).iso_code_639_1.name.lower() == lang.split("-")[0].lower()
                               for n in COMMON)
