"""Language codes: BCP-47 tags through `langcodes` (ISO 639-1/2/3 languages, script and region subtags), and the
corpus spellings (FLORES ``arb_Arab``, DEMETR language names) mapped to them.

One canonical form everywhere (signature, records, file columns): the shortest ISO 639 code of the language
(``deu`` -> ``de``, ``eng`` -> ``en``; ``ckb``, ``swh``, ``arb`` stay), a title-case script and an upper-case
region (``arb_Arab`` -> ``arb-Arab``, ``pt_br`` -> ``pt-BR``).
"""

from __future__ import annotations

# Corpus spellings that are not tags, or whose tag we spell otherwise (FLORES' Mandarin columns are the Chinese
# of every other corpus: zh-Hans, not cmn-Hans, so that their pairs match).
ALIASES = {
    "cmn_Hans": "zh-Hans",
    "zho_Hans": "zh-Hans",
    "cmn_Hant": "zh-Hant",
    "zho_Hant": "zh-Hant",
    "german": "de",
    "french": "fr",
    "spanish": "es",
    "czech": "cs",
    "chinese_simple": "zh-Hans",
    "italian": "it",
    "japanese": "ja",
    "polish": "pl",
    "russian": "ru",
    "hindi": "hi",
    "english": "en",
    # FLORES column names (ISO 639-3, as langcodes would shorten them): the reader's column lookup uses these
    "eng": "en",
    "deu": "de",
    "spa": "es",
    "por": "pt",
    "fra": "fr",
    "ita": "it",
    "ces": "cs",
    "pol": "pl",
    "rus": "ru",
    "ukr": "uk",
    "isl": "is",
    "hin": "hi",
    "jpn": "ja",
    "kor": "ko",
    "ara": "ar",
}


def normalize_lang(code: str) -> str:
    """Return the canonical BCP-47 tag for ``code`` or raise ValueError naming the code."""
    import langcodes

    if code is None:
        raise ValueError("language code is missing")
    raw = str(code).strip()
    if raw in ALIASES or raw.lower() in ALIASES:
        return ALIASES.get(raw) or ALIASES[raw.lower()]
    bad = ValueError(
        f"unknown language code {code!r} (expected a BCP-47 tag or ISO 639 code such as 'en', 'de', "
        "'zh-Hans', 'ckb', 'arb_Arab')"
    )
    try:
        tag = langcodes.standardize_tag(raw.replace("_", "-"))
    except (langcodes.LanguageTagError, ValueError):
        raise bad from None
    lang = langcodes.Language.get(tag)
    if (
        not lang.language
        or lang.language == "und"
        or not langcodes.tag_is_valid(tag)
        or lang.extensions
        or lang.private
    ):
        raise bad
    return tag


def hub_language(code: str) -> str | None:
    """The ISO 639 code the Hub's ``language:`` card field wants (``arb-Arab`` -> ``arb``), or None for ``und``."""
    try:
        return normalize_lang(code).split("-")[0]
    except ValueError:
        return None


def primary(code: str) -> str:
    """Primary language subtag ('zh-Hans' -> 'zh')."""
    return normalize_lang(code).split("-")[0]


def split_lp(lp: str) -> tuple[str, str]:
    """'en-de' -> ('en', 'de'); also accepts 'eng-deu', 'en_de' and tags with subtags ('arb-Arab-en')."""
    for sep in ("-", "_", "2"):
        parts = lp.split(sep)
        for i in range(1, len(parts)):
            try:
                return normalize_lang(sep.join(parts[:i])), normalize_lang(sep.join(parts[i:]))
            except ValueError:
                continue
    raise ValueError(f"cannot read language pair {lp!r} (expected e.g. 'en-de')")
