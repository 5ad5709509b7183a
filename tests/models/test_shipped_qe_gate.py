"""The shipped QE's copy / wrong-language gate is bounded to what it is for (issue #37.10): copies of source-language
text and output in another language are penalised; legitimate translations that keep names, titles or hashtags as
they were, or that langid mistakes because of names, are not. Checked on real WMT rows with their human scores."""

import csv
import gzip

import pytest

from mtgauntlet.models.shipped_qe import wrong_language


def _rows(path, **match):
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        return [
            r
            for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
            if all(r[k] == v for k, v in match.items())
        ]


def _gated(r):
    s, t = r["lp"].split("-")
    return wrong_language(r["src"], r["tgt"], s, t)


def test_legitimate_translations_are_not_gated(shared_data):
    wmt23 = shared_data / "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz"
    hashtags = [r for r in _rows(wmt23, lp="en-de") if r["src"] == r["tgt"] == "#WFH #business #neurodiversity"]
    assert len(hashtags) >= 5 and min(float(r["da_sqm"] or 100) for r in hashtags) > 85  # humans: fine as it is
    assert not any(_gated(r) for r in hashtags)  # a copy of hashtags is not an untranslated copy
    google = shared_data / "google-wmt-mqm/google_mqm_seg_scores.tsv.gz"
    titles = [
        r
        for r in _rows(google, testset="newstest2021", lp="en-de")
        if r["src"] == '"Sunday Morning" Matinee: Celebrating Rodgers & Hart' and float(r["mqm_avg_score"]) >= -1
    ]
    assert len(titles) >= 6  # humans: at most one minor error
    assert not any(_gated(r) for r in titles)  # the English title kept in German is no evidence of English
    names = [
        r
        for r in _rows(google, testset="newstest2021", lp="zh-en", system="ref-A")
        if r["tgt"].startswith("An Jing/Ren Chen (Deutsche Presse-Agentur")
    ]
    assert names and not _gated(names[0])  # a list of names langid reads as German


def test_copies_and_wrong_language_output_still_are(shared_data):
    wmt23 = shared_data / "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz"
    anvita = [
        r
        for r in _rows(wmt23, lp="zh-en", system="ANVITA")
        if float(r["mqm"]) <= -20 and any("\u3040" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af" for c in r["tgt"])
    ]
    gated = [r for r in anvita if _gated(r)]
    assert len(gated) >= 4  # Chinese, Japanese or Korean output for a Chinese-English translation
    assert wrong_language("El gato duerme.", "El gato duerme.", "es", "en")  # an untranslated copy
    assert wrong_language("The cat sleeps on the sofa.", "The cat sleeps on the sofa.", "en", "de")
    assert wrong_language("Der Hund bellt laut im Garten.", "The dog barks loudly in the garden.", "de", "pt")
    assert wrong_language("The cat sleeps on the sofa.", "猫在沙发上睡觉了。", "en", "de")  # Chinese words count
    assert not wrong_language("The cat sleeps on the sofa.", "El gato duerme en el sofá.", "en", "es")


@pytest.mark.parametrize(
    "source,translation",
    [
        (
            "Die Mannschaft heißt Borussia Dortmund.",
            "Die Mannschaft heißt Borussia Dortmund.",
        ),  # German in an en source
    ],
)
def test_a_copy_that_already_reads_as_the_target_language_is_not_gated(source, translation):
    assert not wrong_language(source, translation, "en", "de")
