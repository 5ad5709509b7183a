"""MT-breaker Table 2's surface measures: the definitions that reproduce the paper's Seeds column on keyed samples of
100 WMT24 English seeds (the defaults), the toolkit's earlier ones as named alternatives."""

import csv
import gzip

import numpy as np
import pytest

from mtgauntlet.builders.breaker_sources import keyed_sample
from mtgauntlet.errors import UsageError
from mtgauntlet.validators import set_measures as M


@pytest.fixture(scope="module")
def wmt24_en(shared_data):
    """The 997 English sources of WMT24 (en-cs rows; the canary line dropped), as MT-breaker's seeds are read."""
    path = shared_data / "wmt24-general-testset/wmt24_general_testset.tsv.gz"
    csv.field_size_limit(2**31 - 1)
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        return [
            {"src": r["src"], "source_id": f"en-cs:{r['line_id']}"}
            for r in csv.DictReader(f, delimiter="\t")
            if r["lp"] == "en-cs" and r["domain"] != "canary"
        ]


def test_all_others_chrf_is_sacrebleus_multi_reference_corpus_score():
    from sacrebleu.metrics import CHRF

    texts = [
        "The cat sat on the mat.",
        "A cat sat on a mat!",
        "Stock markets fell sharply on Tuesday.",
        "x",  # scores 0 against every reference: the first other text in set order is kept (sacrebleu's tie rule)
        "Markets fell on Tuesday, sharply.",
    ]
    others = [[t for j, t in enumerate(texts) if j != i] for i in range(len(texts))]
    streams = [[o[k] for o in others] for k in range(len(texts) - 1)]
    expected = CHRF(word_order=2).corpus_score(texts, streams).score
    got = M.chrf_diversity(texts)
    assert got["chrf_diversity"] == pytest.approx(1 - expected / 100, abs=1e-12)
    assert "nc:6|nw:2" in got["chrf_definition"] and got["chrf_definition"].startswith("all-others|nrefs:1|")
    assert M.best_references(texts)[3] == 0 and M.best_references(texts)[0] == 1
    alt = M.chrf_diversity(texts, references="pairwise")["chrf_diversity"]
    ordered = [  # the pairwise alternative: mean sentence chrF++ over ordered pairs i != j
        CHRF(word_order=2).sentence_score(a, [b]).score
        for i, a in enumerate(texts)
        for j, b in enumerate(texts)
        if i != j
    ]
    assert alt == pytest.approx(1 - np.mean(ordered) / 100)


def test_words_whitespace_by_default_word_runs_by_name():
    texts = ["Don't stop, Bob!", "bob runs."]
    assert M.word_stats(texts) == {"avg_word_count": 2.5, "avg_word_length": pytest.approx(22 / 5)}  # 5+5+4+3+5
    assert M.unique_words(texts) == 5  # don't stop, bob! bob runs.  ("bob!" and "bob" differ)
    assert M.unique_words(texts, "word-runs") == 5  # don t stop bob runs
    assert M.word_stats(texts, "word-runs")["avg_word_count"] == 3.0
    with pytest.raises(UsageError, match="word-runs"):
        M.unique_words(texts, "spaces")
    with pytest.raises(UsageError, match="all-others"):
        M.chrf_diversity(texts, references="best")


def test_seeds_column_of_table_2_on_wmt24(wmt24_en):
    """Five keyed draws of 100 seeds (the builder's sampler): the paper's Seeds column (chrF 0.76, 4.69 characters
    per word, 1,566 unique words at 33.25 words per text) lies within the draws with the defaults, and outside
    them with the earlier definitions."""
    draws = [[r["src"] for r in keyed_sample(wmt24_en, 100, seed)] for seed in range(5)]
    chrf = [M.chrf_diversity(d)["chrf_diversity"] for d in draws]
    length = [M.word_stats(d)["avg_word_length"] for d in draws]
    unique = [M.unique_words(d) for d in draws]
    per_100_words = [100 * u / (100 * M.word_stats(d)["avg_word_count"]) for u, d in zip(unique, draws)]
    assert min(chrf) - 0.01 <= 0.76 <= max(chrf) + 0.01 and max(abs(c - 0.76) for c in chrf) < 0.02
    assert min(length) <= 4.69 <= max(length)
    assert min(per_100_words) <= 100 * 1566 / 3325 <= max(per_100_words)  # unique words per 100 running words
    old_chrf = [M.chrf_diversity(d, references="pairwise")["chrf_diversity"] for d in draws]
    old_length = [M.word_stats(d, "word-runs")["avg_word_length"] for d in draws]
    assert min(old_chrf) > 0.88 and max(old_length) < 4.5  # the earlier definitions miss the paper's figures
