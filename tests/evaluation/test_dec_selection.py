"""`evaluate dec --selection source-set` (Sentinel section 6.1: one source set, a text's score averaged over the
pairs that translate it) and the oracle rows, on a table small enough to work out by hand.

Four English sources, translated into German and Czech (different item ids per pair) by two systems, ESA scores:

    source   en-de S1 S2 (mean)   en-cs S1 S2 (mean)   mean over pairs
    Alpha        100  90  (95)        30  50  (40)        67.5
    Bravo         60  80  (70)        90 100  (95)        82.5
    Charlie      100 100 (100)        70  70  (70)        85
    Delta         40  50  (45)       100  90  (95)        70
"""

import csv
import json

import pytest
from scipy.stats import kendalltau

from mtgauntlet.evaluation.dec_selection import dec_and_selection, oracle, oracle_rows
from tests.support.cli import invoke

TEXTS = {"A": "Alpha one", "B": "Bravo one two three", "C": "Charlie one two", "D": "Delta one two three four"}
SCORES = {
    "en-de": {"A": (100, 90), "B": (60, 80), "C": (100, 100), "D": (40, 50)},
    "en-cs": {"A": (30, 50), "B": (90, 100), "C": (70, 70), "D": (100, 90)},
}


def rows():
    out = []
    for lp, items in SCORES.items():
        for s, (s1, s2) in items.items():
            item = f"{lp}:{s}"  # each pair its own ids: the source is matched by its text
            for system, score in (("S1", s1), ("S2", s2)):
                out.append(
                    {
                        "lp": lp,
                        "item_id": item,
                        "src": TEXTS[s],
                        "system": system,
                        "score": float(score),
                        "protocol": "esa",
                    }
                )
    return out


def test_oracles_by_hand():
    got = {r["estimator"]: r for r in oracle_rows(rows(), 0.25)}
    pair = got["oracle (source text + target lang)"]
    # per pair the hardest quarter (1 of 4): en-de Delta (40, 50), en-cs Alpha (30, 50)
    assert pair["selection"] == "per-pair" and pair["avg_score"] == pytest.approx((45 + 40) / 2)
    assert pair["perfect_pct"] == 0.0
    source = got["oracle (source text only)"]
    # one source set: Alpha (67.5) for both pairs: en-de 100, 90; en-cs 30, 50
    assert source["selection"] == "source-set" and source["avg_score"] == pytest.approx((95 + 40) / 2)
    assert source["perfect_pct"] == pytest.approx((50 + 0) / 2)
    assert oracle(rows(), per_source=True)[("en-cs", "en-cs:D")] == pytest.approx(-70.0)


def test_a_target_aware_estimator_picks_one_source_set():
    # difficulty per pair (higher = harder); averaged over pairs: Alpha 4.5, Bravo 2, Charlie 3, Delta 5
    scores = {
        ("en-de", "en-de:A"): 1.0, ("en-de", "en-de:B"): 2.0, ("en-de", "en-de:C"): 3.0, ("en-de", "en-de:D"): 9.0,
        ("en-cs", "en-cs:A"): 8.0, ("en-cs", "en-cs:B"): 2.0, ("en-cs", "en-cs:C"): 3.0, ("en-cs", "en-cs:D"): 1.0,
    }  # fmt: skip
    _, per_pair = dec_and_selection(rows(), scores, 0.25, "per-pair")
    assert per_pair["avg_score"] == pytest.approx((45 + 40) / 2) and per_pair["perfect_pct"] == 0.0  # Delta, Alpha
    res, one_set = dec_and_selection(rows(), scores, 0.25, "source-set")
    # Delta for both: en-de 40, 50 (mean 45, none perfect); en-cs 100, 90 (mean 95, half perfect)
    assert one_set["avg_score"] == pytest.approx(70.0) and one_set["perfect_pct"] == pytest.approx(25.0)
    assert one_set["sources_chosen"] == 1 and one_set["sources"] == 4
    averaged = {"A": 4.5, "B": 2.0, "C": 3.0, "D": 5.0}
    for lp in SCORES:  # DEC on the averaged score: tau_b per system, mean over systems
        taus = [
            kendalltau([-averaged[s] for s in "ABCD"], [SCORES[lp][s][k] for s in "ABCD"], variant="b").statistic
            for k in (0, 1)
        ]
        assert res["per_lp"][lp] == pytest.approx(sum(taus) / 2)


def test_cli_says_the_selection_mode_and_the_length_unit(tmp_path):
    path = tmp_path / "j.tsv"
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["lp", "item_id", "src", "system", "score", "protocol"])
        for r in rows():
            w.writerow([r["lp"], r["item_id"], r["src"], r["system"], r["score"], r["protocol"]])
    r = invoke(["evaluate", "dec", "-j", str(path), "-e", "length", "--selection", "source-set", "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert got["selection"] == "source-set" and got["units"]["length"].startswith("words")
    # length: Delta (5 words) is the hardest source for both pairs
    assert got["results"][0]["avg_score"] == pytest.approx(70.0) and got["results"][0]["perfect_pct"] == 25.0
    assert [o["avg_score"] for o in got["oracles"]] == [pytest.approx(42.5), pytest.approx(67.5)]
    r = invoke(["evaluate", "dec", "-j", str(path), "-e", "length"])
    assert r.exit_code == 0, r.output
    assert "selection: per-pair" in r.stdout and "length: words" in r.stdout and "oracle (source text only)" in r.stdout
