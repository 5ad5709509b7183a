"""`evaluate dec` as the Sentinel paper computes it: human translators count among the translators (they can
be left out, and the output says which), and %Perfect uses the protocol's perfect score (MQM: 0), with the
protocol of a plain table inferred from its scores or required."""

import csv
import gzip
import json

import numpy as np
import pytest

from mtgauntlet.models import registry
from tests.support.cli import invoke


@pytest.fixture(scope="module")
def mtme_ende(shared_data):
    """The WMT23 MQM en-de rows of the mt-metrics-eval table (12 MT systems + the human refA)."""
    path = shared_data / "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz"
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE) if r["lp"] == "en-de"]
    return path, rows


def _dec(*args):
    r = invoke(["evaluate", "dec", *args, "--json"])
    assert r.exit_code == 0, r.output + repr(r.exception)
    return json.loads(r.stdout)


def test_human_translations_count_unless_excluded(mtme_ende):
    path, rows = mtme_ende
    both = _dec("-j", str(path), "--lp", "en-de", "-e", "length")
    mt_only = _dec("-j", str(path), "--lp", "en-de", "-e", "length", "--exclude-human")
    humans = {r["system"] for r in rows if r["is_human_ref"] == "1" and r["mqm"]}
    systems = {r["system"] for r in rows if r["mqm"]}
    assert both["include_human"] is True and set(both["human_systems"]) == humans == {"refA"}
    assert both["results"][0]["systems"]["en-de"] == len(systems) == 13
    assert mt_only["include_human"] is False and mt_only["results"][0]["systems"]["en-de"] == 12
    assert both["results"][0]["dec"] != mt_only["results"][0]["dec"]
    assert both["n"] == sum(1 for r in rows if r["mqm"]) == mt_only["n"] + both["human_rows"]


def _plain_table(tmp_path, rows, score_key, name="j.tsv"):
    p = tmp_path / name
    with p.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE, escapechar="\\")
        w.writerow(["lp", "item_id", "src", "system", "score"])
        for r in rows:
            if r[score_key]:
                w.writerow([r["lp"], r["seg_id"], r["src"], r["system"], r[score_key]])
    return p


def test_mqm_protocol_is_inferred_and_perfect_means_no_error(tmp_path, mtme_ende):
    _, rows = mtme_ende
    rows = [r for r in rows if "\\" not in r["src"] and "\t" not in r["src"]]
    table = _plain_table(tmp_path, rows, "mqm")
    got = _dec("-j", str(table), "-e", "length")
    assert got["protocols"] == {"en-de": ["mqm (inferred)"]}
    # eq. 4 by hand: the hardest 25% of the sources by length, share of their translations with MQM score 0
    scored = [r for r in rows if r["mqm"]]
    srcs = {r["seg_id"]: r["src"] for r in scored}
    items = sorted(srcs)
    length = dict(zip(items, registry.load("difficulty", "length").difficulty([srcs[i] for i in items], "en", "de")))
    hardest = set(sorted(items, key=lambda i: (-length[i], i))[: round(0.25 * len(items))])
    chosen = [float(r["mqm"]) for r in scored if r["seg_id"] in hardest]
    assert got["results"][0]["perfect_pct"] == pytest.approx(100 * np.mean([s == 0 for s in chosen]))
    assert got["results"][0]["avg_score"] == pytest.approx(np.mean(chosen))
    assert 0 < got["results"][0]["perfect_pct"] < 100
    assert _dec("-j", str(table), "-e", "length", "--protocol", "mqm")["results"] == got["results"]


def test_a_0_100_table_without_protocol_must_say_it(tmp_path, mtme_ende):
    _, rows = mtme_ende
    table = _plain_table(tmp_path, [r for r in rows if "\\" not in r["src"]], "da_sqm")
    r = invoke(["evaluate", "dec", "-j", str(table), "-e", "length"])
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "--protocol" in r.stderr and str(table) in r.stderr
    got = _dec("-j", str(table), "-e", "length", "--protocol", "da")
    assert got["protocols"] == {"en-de": ["da (option)"]} and got["results"][0]["perfect_pct"] >= 0
    r = invoke(["evaluate", "dec", "-j", str(table), "-e", "length", "--protocol", "mqm"])
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "negate" in r.stderr and "line 2" in r.stderr


def test_dec_averages_systems_within_a_pair_then_pairs_and_reports_the_flat_mean(shared_data):
    """The order of DEC's averaging is a choice (the paper: "over translators and languages"): ``dec`` is the mean of
    per-pair means, ``dec_flat`` the mean over every (pair, system) tau; they differ when pairs have different
    numbers of systems."""
    from mtgauntlet.evaluation.dec import dec, kendall_tau_b, score_sources

    path = shared_data / "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz"
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        rows = [
            {**r, "item_id": r["seg_id"], "score": float(r["mqm"])}
            for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
            if r["lp"] in ("en-de", "zh-en") and r["mqm"] not in ("", "None")
        ]
    systems = {lp: sorted({r["system"] for r in rows if r["lp"] == lp}) for lp in ("en-de", "zh-en")}
    rows = [r for r in rows if r["lp"] == "zh-en" or r["system"] in systems["en-de"][:3]]  # 3 systems vs many
    length = registry.load("difficulty", "length")
    scores = score_sources(rows, lambda texts, lp: length.difficulty(texts))
    res = dec(rows, scores)
    taus = {}
    for r in rows:
        taus.setdefault((r["lp"], r["system"]), []).append((-scores[(r["lp"], str(r["item_id"]))], r["score"]))
    per = {k: kendall_tau_b(*zip(*v)) for k, v in taus.items()}
    per = {k: t for k, t in per.items() if t == t}
    by_lp = {lp: [t for (pair, _), t in per.items() if pair == lp] for lp in ("en-de", "zh-en")}
    assert res["systems"] == {lp: len(v) for lp, v in by_lp.items()} and res["systems"]["en-de"] == 3
    assert res["dec"] == pytest.approx(np.mean([np.mean(v) for v in by_lp.values()]))
    assert res["dec_flat"] == pytest.approx(np.mean(list(per.values())))
    assert abs(res["dec"] - res["dec_flat"]) > 1e-4
