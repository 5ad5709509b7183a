"""Language codes: validate BCP-47 tags and map the 3-letter corpus codes (FLORES, DEMETR names)."""

from __future__ import annotations

import re

# ISO 639-1 codes (all 184), the primary subtags most MT data uses.
ISO639_1 = set("""
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee
el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it
iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my
na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn
so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
""".split())

# 3-letter codes and corpus language names -> BCP-47
ALIASES = {
    "eng": "en", "deu": "de", "ger": "de", "spa": "es", "por": "pt", "fra": "fr", "fre": "fr", "ita": "it",
    "ces": "cs", "cze": "cs", "pol": "pl", "rus": "ru", "ukr": "uk", "isl": "is", "hin": "hi", "jpn": "ja",
    "cmn_Hans": "zh-Hans", "zho_Hans": "zh-Hans", "cmn_Hant": "zh-Hant", "kor": "ko", "ara": "ar",
    "heb": "he", "nld": "nl", "tur": "tr", "swe": "sv", "fin": "fi", "ron": "ro", "hun": "hu",
    "german": "de", "french": "fr", "spanish": "es", "czech": "cs", "chinese_simple": "zh-Hans",
    "italian": "it", "japanese": "ja", "polish": "pl", "russian": "ru", "hindi": "hi", "english": "en",
}
# Other valid 3-letter primary subtags we accept as-is (ISO 639-3 languages without a 2-letter code).
ISO639_3_EXTRA = {"yue", "fil", "haw", "ast", "ceb", "hsb", "dsb", "mni", "sat", "brx", "kab", "tzm", "chr"}

_TAG = re.compile(r"^(?P<lang>[a-z]{2,3})(-(?P<script>[A-Z][a-z]{3}))?(-(?P<region>[A-Z]{2}|\d{3}))?$")


def normalize_lang(code: str) -> str:
    """Return a BCP-47 tag for ``code`` or raise ValueError naming the code."""
    if code is None:
        raise ValueError("language code is missing")
    raw = str(code).strip()
    if raw in ALIASES:
        return ALIASES[raw]
    if raw.lower() in ALIASES:
        return ALIASES[raw.lower()]
    tag = raw.replace("_", "-")
    parts = tag.split("-")
    if parts:
        parts[0] = parts[0].lower()
        for i in range(1, len(parts)):
            p = parts[i]
            parts[i] = p.title() if len(p) == 4 else p.upper()
    tag = "-".join(parts)
    m = _TAG.match(tag)
    if not m or not (m["lang"] in ISO639_1 or m["lang"] in ISO639_3_EXTRA):
        raise ValueError(f"unknown language code {code!r} (expected a BCP-47 tag such as 'en', 'de', 'zh-Hans')")
    return tag


def primary(code: str) -> str:
    """Primary language subtag ('zh-Hans' -> 'zh')."""
    return normalize_lang(code).split("-")[0]


def split_lp(lp: str) -> tuple[str, str]:
    """'en-de' -> ('en', 'de'); also accepts 'eng-deu' and 'en_de'."""
    for sep in ("-", "_", "2"):
        if sep in lp:
            a, b = lp.split(sep, 1)
            try:
                return normalize_lang(a), normalize_lang(b)
            except ValueError:
                continue
    raise ValueError(f"cannot read language pair {lp!r} (expected e.g. 'en-de')")
