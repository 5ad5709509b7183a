"""The names of every metric `gauntlet validate` can compute, so a rules file naming anything else is an error.

A rule on a metric that exists but was not computed for this set (no NLI backend, no LM) is reported
NOT CHECKED; a rule on a name that no validator computes (a typo such as ``chrf_diversty``) is refused
when the rules file is read.
"""

from __future__ import annotations

import difflib
import re

from mtgauntlet.phenomena import NAMES as PHENOMENA

_PHENOMENON = "(" + "|".join(map(re.escape, PHENOMENA)) + ")"  # every registered SMAUG phenomenon
_LENGTH = r"(words_mean|words_min|words_max|chars_mean|empty_rate|outlier_rate|outlier_low|outlier_high)"
PATTERNS: tuple[str, ...] = (
    r"n",
    r"schema\.valid",
    r"values\.null_violations",
    r"values\.not_allowed",
    r"ids\.duplicates",
    r"text\." + _LENGTH,
    r"chrf_diversity",
    r"chrf_pairs_texts",
    r"embedding_diversity",
    r"unique_words",
    r"unique_(topics|domains|phenomenons|methods)",
    r"length_ratio\.(src_ref|ref_good|ref_bad)_(mean|outside_0\.5_2)",
    r"smaug\.nli\.(" + _PHENOMENON + r"\.)?(bad|good)_contradicts_ref_rate",
    r"smaug\.nli\.not_checked_rate",
    r"smaug\.span_mismatches",
    r"smaug\.good_equals_ref_rate",
    r"lm_naturalness_mean",
    r"lm_naturalness_below_30_rate",
    r"judge_failures",
    r"judge_unique_topics",
    r"judge_[a-z_]+_mean",
    r"error_modes_unique",
    r"error_modes_entropy",
    r"grammar\.(error_rate|flagged_rate|unchecked)",
)
_COMPILED = [re.compile(p + r"\Z") for p in PATTERNS]
EXAMPLES = (
    "schema.valid",
    "values.null_violations",
    "values.not_allowed",
    "ids.duplicates",
    "text.empty_rate",
    "text.outlier_rate",
    "chrf_diversity",
    "embedding_diversity",
    "unique_words",
    "unique_topics",
    "smaug.nli.bad_contradicts_ref_rate",
    "smaug.nli.neg.bad_contradicts_ref_rate",
    "smaug.nli.good_contradicts_ref_rate",
    "lm_naturalness_mean",
    "judge_failures",
    "grammar.error_rate",
)


def is_known(metric: str) -> bool:
    return any(p.match(metric) for p in _COMPILED)


def suggestion(metric: str) -> str:
    close = difflib.get_close_matches(metric, EXAMPLES, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
