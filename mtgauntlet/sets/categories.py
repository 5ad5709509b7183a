"""Which ACES-score category a set's phenomenon belongs to (``challenge_pair.aces_category``).

The ACES score weighs ten top-level categories (Amrhein et al. 2022): addition, omission, mistranslation,
overtranslation, undertranslation (weight 5); untranslated, do not translate, real-world knowledge, wrong language
(1); punctuation (0.1). Each importer declares how its phenomena map to them:

- ACES (and Span-ACES): ACES's own taxonomy of its 68 phenomena (:data:`ACES_PHENOMENA`, by name and prefix);
- DEMETR: :data:`DEMETR_PERTURBATIONS`, written for mtgauntlet from the perturbations' descriptions (fluency-only
  perturbations such as casing, tokenization or misspellings, and the ``base_*`` sanity checks, have none);
- WMT challenge TSV: :data:`WMT_LABELS`, generic error labels (also SMAUG's ne/num/neg/ins/del).

An ACES or WMT-challenge file also maps DEMETR's perturbation names and the other tables' labels, so a set exported
to these formats and imported again keeps its categories. A phenomenon none of them knows has no category (null).
"""

from __future__ import annotations

import re

ADDITION, OMISSION, MISTRANSLATION = "addition", "omission", "mistranslation"
OVERTRANSLATION, UNDERTRANSLATION = "overtranslation", "undertranslation"
UNTRANSLATED, DO_NOT_TRANSLATE, REAL_WORLD, WRONG_LANGUAGE = (
    "untranslated",
    "do not translate",
    "real-world knowledge",
    "wrong language",
)
PUNCTUATION = "punctuation"
CATEGORIES = (
    ADDITION,
    OMISSION,
    MISTRANSLATION,
    OVERTRANSLATION,
    UNDERTRANSLATION,
    UNTRANSLATED,
    DO_NOT_TRANSLATE,
    REAL_WORLD,
    WRONG_LANGUAGE,
    PUNCTUATION,
)

# ACES's taxonomy: exact phenomenon names first, then name prefixes (its phenomena are families of variants)
ACES_PHENOMENA = {
    "addition": ADDITION,
    "omission": OMISSION,
    "copy-source": UNTRANSLATED,
    "do-not-translate": DO_NOT_TRANSLATE,
    "hyponym-replacement": OVERTRANSLATION,
    "hypernym-replacement": UNDERTRANSLATION,
    "antonym-replacement": REAL_WORLD,
    "lexical-overlap": MISTRANSLATION,
    "nonsense": MISTRANSLATION,
    "ordering-mismatch": MISTRANSLATION,
    "coreference-based-on-commonsense": MISTRANSLATION,
}
ACES_PREFIXES = (
    ("ambiguous-translation-", MISTRANSLATION),
    ("anaphoric_", MISTRANSLATION),
    ("hallucination-", MISTRANSLATION),
    ("modal_verb:", MISTRANSLATION),
    ("overly-literal-", MISTRANSLATION),
    ("pleonastic_it:", MISTRANSLATION),
    ("xnli-", MISTRANSLATION),
    ("untranslated-", UNTRANSLATED),
    ("commonsense-", REAL_WORLD),
    ("real-world-knowledge-", REAL_WORLD),
    ("similar-language-", WRONG_LANGUAGE),
    ("punctuation:", PUNCTUATION),
)

# DEMETR's perturbations (pert_name without its severity_idN_ prefix)
DEMETR_PERTURBATIONS = {
    "repeat2": ADDITION,
    "repeat4": ADDITION,
    "addition": ADDITION,
    "hypernym": UNDERTRANSLATION,
    "codemix": UNTRANSLATED,
    "antonym": MISTRANSLATION,
    "negation": MISTRANSLATION,
    "ne_replaced": MISTRANSLATION,
    "numbers_replaced": MISTRANSLATION,
    "gender": MISTRANSLATION,
    "tense": MISTRANSLATION,
    "aspect": MISTRANSLATION,
    "question": MISTRANSLATION,
    "shuffled": MISTRANSLATION,
    "pp_removed": OMISSION,
    "conj_removed": OMISSION,
    "adj_adv_removed": OMISSION,
    "verb_removed": OMISSION,
    "noun_removed": OMISSION,
    "subj_removed": OMISSION,
    "ne_removed": OMISSION,
    "final_punc_removed": PUNCTUATION,
    "punc_addition": PUNCTUATION,
    # no accuracy category: pos_shift, word_swap, case, function_word, misspelled, char_removed, tokenized,
    # full_lower, first_lower (fluency) and base_* (sanity checks: empty, shuffled translation, reference)
}
_DEMETR_NAME = re.compile(r"(?:minor|major|critical|base)_id\d+_(.+)")

# Generic error labels of WMT challenge sets (normalised: lower case, `_` and spaces as `-`)
WMT_LABELS = {
    "addition": ADDITION,
    "insertion": ADDITION,
    "ins": ADDITION,
    "omission": OMISSION,
    "deletion": OMISSION,
    "del": OMISSION,
    "mistranslation": MISTRANSLATION,
    "negation": MISTRANSLATION,
    "neg": MISTRANSLATION,
    "named-entity": MISTRANSLATION,
    "ne": MISTRANSLATION,
    "number": MISTRANSLATION,
    "num": MISTRANSLATION,
    "hallucination": MISTRANSLATION,
    "gender": MISTRANSLATION,
    "antonym": MISTRANSLATION,
    "overtranslation": OVERTRANSLATION,
    "undertranslation": UNDERTRANSLATION,
    "untranslated": UNTRANSLATED,
    "do-not-translate": DO_NOT_TRANSLATE,
    "real-world-knowledge": REAL_WORLD,
    "wrong-language": WRONG_LANGUAGE,
    "punctuation": PUNCTUATION,
}


def aces_category(phenomenon: str) -> str | None:
    """ACES's own taxonomy."""
    if phenomenon in ACES_PHENOMENA:
        return ACES_PHENOMENA[phenomenon]
    return next((cat for prefix, cat in ACES_PREFIXES if phenomenon.startswith(prefix)), None)


def demetr_category(pert_name: str) -> str | None:
    m = _DEMETR_NAME.fullmatch(pert_name)
    return DEMETR_PERTURBATIONS.get(m.group(1)) if m else None


def wmt_category(label: str) -> str | None:
    return WMT_LABELS.get(re.sub(r"[\s_]+", "-", label.strip().lower()))


def any_category(phenomenon: str) -> str | None:
    """ACES's taxonomy, then DEMETR's perturbations, then the generic labels (ACES and WMT-challenge files)."""
    return aces_category(phenomenon) or demetr_category(phenomenon) or wmt_category(phenomenon)
