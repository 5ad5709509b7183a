"""Issue #25.5: SMAUG's model-free insertion writes its inserted material in the target language.

Checked on real FLORES-200 devtest text for every target language SMAUG's model-free insertion claims
(``CONJUNCTIONS``): lingua identifies the inserted span as the target language, and every word the insertion
adds beyond the corpus clause (the conjunction) is a frequent word of the target side of FLORES (the English
``and`` occurs at most twice in any non-English side, so the old ``", and "`` fails here)."""

from __future__ import annotations

import random
import re
from functools import cache

import pytest

from mtgauntlet.builders.smaug.clause_edits import CONJUNCTIONS, Insertion, coordinate
from mtgauntlet.corpora.formats import read_flores
from mtgauntlet.models import langid
from tests.support.cli import invoke

FLORES = "flores200-devtest/flores200_devtest.tsv.gz"
MIN_COUNT = 10  # a conjunction of the language occurs hundreds of times in its 1,012 FLORES sentences


@cache
def _target_side(shared_data, lang: str) -> tuple[str, ...]:
    column = {"zh": "cmn_Hans"}.get(lang, lang)
    return tuple(r["ref"] for r in read_flores(shared_data / FLORES, src="en", tgt=column).rows)


def _count(corpus: tuple[str, ...], word: str) -> int:
    if re.search(r"[\u4e00-\u9fff]", word):  # no spaces between Chinese words: count the string
        return sum(t.count(word) for t in corpus)
    pat = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")
    return sum(len(pat.findall(t)) for t in corpus)


def _added_words(inserted: str, corpus: tuple[str, ...]) -> list[str]:
    """The words of ``inserted`` before the longest suffix that is text of the corpus (the clause): what the
    insertion itself wrote."""
    low = [t.lower() for t in corpus]
    for k in range(len(inserted) + 1):
        tail = inserted[k:].strip()
        if tail and any(tail.lower() in t for t in low):
            return re.findall(r"\w+", inserted[:k])
    return re.findall(r"\w+", inserted)


def _assert_in_language(inserted: str, lang: str, corpus: tuple[str, ...]) -> None:
    assert langid.detect(inserted) == lang, (lang, inserted)
    for word in _added_words(inserted, corpus):
        assert _count(corpus, word) >= MIN_COUNT, f"{word!r} of {inserted!r} is not a {lang} word of the corpus"


def _clauses(texts, n=200) -> set[str]:
    """Sentences of the corpus as clauses to coordinate (final punctuation off, first letter lowered)."""
    out = set()
    for t in texts[:n]:
        body = t.rstrip().rstrip(".!?。！？")
        if 5 <= len(body.split()) <= 30 or (re.search(r"[\u4e00-\u9fff]", body) and 10 <= len(body) <= 40):
            out.add(body[:1].lower() + body[1:])
    return out


@pytest.mark.parametrize("lang", sorted(CONJUNCTIONS))
def test_inserted_clause_is_in_the_target_language(shared_data, lang):
    corpus = _target_side(shared_data, lang)
    pool = _clauses(corpus[500:])
    ins = Insertion(lang=lang)
    edits = {text: ins.apply(text, random.Random(i), {"clause_pool": pool}) for i, text in enumerate(corpus[:40])}
    edits = {text: e for text, e in edits.items() if e is not None}
    assert len(edits) >= 35
    for text, e in edits.items():
        assert text[: e.start] + e.span_replacement + text[e.end :] == e.text
        _assert_in_language(e.span_replacement, lang, corpus)


def test_spanish_conjunction_before_an_i_sound():
    assert coordinate("hijos de la ciudad", "es") == " e hijos de la ciudad"
    assert coordinate("inglés es difícil", "es") == " e inglés es difícil"
    assert coordinate("hierro es duro", "es") == " y hierro es duro"
    assert coordinate("la casa", "es-MX") == " y la casa"
    assert coordinate("x", "ko") is None


@pytest.mark.parametrize("lang", ["es", "fr", "en"])
def test_build_insertions_are_in_the_target_language(tmp_path, shared_data, lang):
    """Through `gauntlet build smaug` on FLORES, for every target language with an installed annotator."""
    from mtgauntlet.models.annotators import spacy_package_for
    from mtgauntlet.records import load_records

    if spacy_package_for(lang) is None:
        pytest.fail(f"no spaCy pipeline for {lang}: `make setup` installs en, es and fr")
    src = "de" if lang == "en" else "en"
    out = tmp_path / "smaug"
    r = invoke(
        [
            "build",
            "smaug",
            "--input",
            str(shared_data / FLORES),
            "--format",
            "flores",
            "--limit",
            "300",
            "--src-lang",
            src,
            "--tgt-lang",
            lang,
            "--good-from",
            "reference",
            "--phenomena",
            "ins",
            "--out",
            str(out),
        ]
    )
    assert r.exit_code == 0, r
    df = load_records(out).to_pandas()
    assert len(df) >= 20, len(df)
    corpus = _target_side(shared_data, lang)
    for rec in df.itertuples():
        _assert_in_language(rec.span_replacement, lang, corpus)


def test_unknown_language_has_no_model_free_insertion():
    """A target language without a conjunction is refused for `ins` (with the reason), not written in English."""
    from mtgauntlet.builders.smaug import support_report

    class _B:  # the support report of a builder whose annotator loaded
        annotator, infiller, polyjuice, specs = object(), None, None, {"infiller": None}

    ok, why = support_report("ko", _B())["ins"]
    assert not ok and "no conjunction" in why and "--infiller" in why
    assert support_report("fr", _B())["ins"][0]
