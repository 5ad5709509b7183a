"""Rule-based grammar checking: Harper (English, package ``harper-py``) and, where installed, Grammalecte
(French, Debian ``python3-grammalecte``).

Per text: ``grammar_errors`` (count), ``grammar_issues`` (rule, kind, message, span start/end in characters,
the flagged text) and ``spelling_flags`` (count). Spelling hits are kept apart: on real text most of them
are names, foreign words or regional spellings (British "analysed" under Harper's American dictionary), not
grammar errors; style, readability (sentence length), formatting and regional-usage lints are left out too.
On the 15 ungrammatical / 15 corrected English sentences of tests/validators/test_grammar.py Harper flags 12 and 0.

``grammar.error_rate``: grammar errors per 100 words over a text set (``gauntlet validate`` computes it on
the side of a record set that should be fluent: SMAUG's good hypotheses, MT-breaker's kept texts).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

from mtgauntlet.errors import BackendUnavailable

# Harper lint kinds that are not grammar (kept out of grammar_errors)
NOT_GRAMMAR_KINDS = frozenset(
    {"Spelling", "Typo", "Readability", "Style", "Formatting", "Regionalism", "Redundancy", "Enhancement"}
)
NOT_GRAMMAR_RULES = frozenset({"UpdatePlaceNames", "OrthographicConsistency", "LongSentences", "OxfordComma"})
SPELLING_KINDS = frozenset({"Spelling", "Typo"})
_WORDS = re.compile(r"\w+", re.UNICODE)
HARPER_PIP = "harper-py==0.2.0"
DEBIAN_PYTHON = "/usr/lib/python3/dist-packages"  # where apt puts python3-grammalecte (outside a virtualenv)
GRAMMALECTE_NOT_GRAMMAR = frozenset({"apos", "typo", "esp", "nbsp"})  # typography: apostrophes, spaces


def _grammalecte_module():
    """Grammalecte from the virtualenv, else Debian's copy (that package alone, nothing else from there)."""
    import sys
    from pathlib import Path

    if importlib.util.find_spec("grammalecte") is not None:
        import grammalecte

        return grammalecte
    init = Path(DEBIAN_PYTHON) / "grammalecte" / "__init__.py"
    if not init.is_file():
        return None
    spec = importlib.util.spec_from_file_location("grammalecte", init, submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["grammalecte"] = module
    spec.loader.exec_module(module)
    return module


def available_languages() -> list[str]:
    from pathlib import Path

    out = ["en"] if importlib.util.find_spec("harper") is not None else []
    if importlib.util.find_spec("grammalecte") is not None or (Path(DEBIAN_PYTHON) / "grammalecte").is_dir():
        out.append("fr")
    return out


@cache
def _harper():
    try:
        import harper
    except ModuleNotFoundError:
        raise BackendUnavailable(
            f"the English grammar checker needs the package harper-py (pip install {HARPER_PIP})"
        ) from None
    return harper.Linter()


@cache
def _grammalecte():
    module = _grammalecte_module()
    if module is None:
        raise BackendUnavailable("the French grammar checker needs Grammalecte (apt-get install python3-grammalecte)")
    return module.GrammarChecker("fr")


def _harper_check(text: str) -> dict[str, Any]:
    issues, spelling = [], 0
    for rule, lints in _harper().organized_lints(text, language="plaintext").items():
        for lint in lints:
            kind = lint.lint_kind
            if kind in SPELLING_KINDS:
                spelling += 1
            if kind in NOT_GRAMMAR_KINDS or rule in NOT_GRAMMAR_RULES:
                continue
            issues.append(
                {
                    "rule": rule,
                    "kind": kind,
                    "message": lint.message,
                    "start": lint.span.start,
                    "end": lint.span.end,
                    "text": lint.problem_text,
                }
            )
    issues.sort(key=lambda i: (i["start"], i["end"], i["rule"]))
    return {"grammar_errors": len(issues), "grammar_issues": issues, "spelling_flags": spelling}


def _grammalecte_check(text: str) -> dict[str, Any]:
    grammar, spelling = _grammalecte().getParagraphErrors(text, bSpellSugg=False)
    issues = [
        {
            "rule": str(e["sRuleId"]),
            "kind": str(e["sType"]),
            "message": str(e["sMessage"]),
            "start": int(e["nStart"]),
            "end": int(e["nEnd"]),
            "text": text[int(e["nStart"]) : int(e["nEnd"])],
        }
        for e in grammar
        if e.get("sType") not in GRAMMALECTE_NOT_GRAMMAR
    ]
    issues.sort(key=lambda i: (i["start"], i["end"], i["rule"]))
    return {"grammar_errors": len(issues), "grammar_issues": issues, "spelling_flags": len(spelling)}


def checker(lang: str):
    """The per-text check function for ``lang``; BackendUnavailable when none is installed for it."""
    base = lang.replace("_", "-").split("-")[0].lower()
    if base == "en":
        _harper()
        return _harper_check
    if base == "fr":
        _grammalecte()
        return _grammalecte_check
    raise BackendUnavailable(
        f"no grammar checker for language {lang!r} (English: harper-py; French: python3-grammalecte)"
    )


def check_texts(texts: Sequence[str], lang: str) -> list[dict[str, Any]]:
    """One result per text (each checked alone; an empty text has no issues)."""
    check = checker(lang)
    return [
        check(t) if t and t.strip() else {"grammar_errors": 0, "grammar_issues": [], "spelling_flags": 0} for t in texts
    ]


def error_rate(results: Sequence[dict[str, Any]], texts: Sequence[str]) -> float:
    """Grammar errors per 100 words over the set."""
    words = sum(len(_WORDS.findall(t or "")) for t in texts)
    return 100.0 * sum(r["grammar_errors"] for r in results) / words if words else 0.0


# record kind -> (the column that should be fluent, the column naming its language)
FLUENT_SIDE = {
    "smaug_pair": ("good", "tgt_lang"),
    "breaker_text": ("text", "src_lang"),
    "topic_text": ("text", "src_lang"),
}


def grammar_results(kind_name: str, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any] | None]:
    """The grammar check of each record's fluent side (:func:`check_texts`), ``None`` where its language has no
    checker here (or the kind has no fluent side)."""
    out: list[dict[str, Any] | None] = [None] * len(rows)
    side = FLUENT_SIDE.get(kind_name)
    if side is None:
        return out
    column, lang_col = side
    for lang, idx in _by_lang(rows, lang_col):
        try:
            checker(lang)
        except BackendUnavailable:
            continue
        for i, res in zip(idx, check_texts([str(rows[i].get(column) or "") for i in idx], lang)):
            out[i] = res
    return out


def _by_lang(rows: Sequence[dict[str, Any]], lang_col: str) -> list[tuple[str, list[int]]]:
    by_lang: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_lang.setdefault(str(r.get(lang_col) or ""), []).append(i)
    return sorted(by_lang.items())


def flagged_records(
    kind_name: str, rows: Sequence[dict[str, Any]], results: Sequence[dict[str, Any] | None] | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The records of a set whose fluent side has grammar errors (``id``, ``column``, ``text``, ``issues``) and
    the set's metrics (``grammar.error_rate`` per 100 words, ``grammar.flagged_rate``) over the rows whose
    language has a checker; texts in other languages are counted in ``grammar.unchecked``. ``results``: each
    row's :func:`grammar_results`, where they were computed already (by an engine's shards)."""
    side = FLUENT_SIDE.get(kind_name)
    if side is None or not rows:
        return [], {}
    column, lang_col = side
    results = grammar_results(kind_name, rows) if results is None else results
    checked_texts, checked, flagged, unchecked = [], [], [], 0
    for _, idx in _by_lang(rows, lang_col):
        for i in idx:
            res = results[i]
            if res is None:
                unchecked += 1
                continue
            text = str(rows[i].get(column) or "")
            checked_texts.append(text)
            checked.append(res)
            if res["grammar_errors"]:
                flagged.append(
                    {"id": rows[i].get("id"), "column": column, "text": text, "issues": res["grammar_issues"]}
                )
    metrics: dict[str, Any] = {"grammar.unchecked": unchecked}
    if checked_texts:
        metrics["grammar.error_rate"] = error_rate(checked, checked_texts)
        metrics["grammar.flagged_rate"] = len(flagged) / len(checked_texts)
    return flagged, metrics
