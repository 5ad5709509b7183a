"""Difficulty estimators and the shipped QE on held-out human judgments.

Prints: DEC (group-by-system Kendall tau_b) of length, syntax, rarity, random and the shipped learned
estimator on WMT23 (en-de ESA campaign, MQM en-de / zh-en / he-en) — data the learned model's held-out
run did not train on (see data/models/learned_difficulty.json for the held-out numbers of that run);
the QE's segment-level Kendall tau and within-source tau on judgments; and the scoring throughput of the
heuristics next to raw spaCy nlp.pipe on the same texts (target >= 0.9x).

Usage: python benchmarks/dec.py [--shared ../shared/data]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from mtgauntlet.corpora.formats import read_wmt23_esa, read_wmt23_mtme
from mtgauntlet.corpora.langs import split_lp
from mtgauntlet.evaluation.dec import dec, kendall_tau_b, score_sources, selection_quality
from mtgauntlet.models import registry

HERE = Path(__file__).resolve().parent


def run_dec(name: str, rows, estimators) -> None:
    print(f"\n{name}: {len(rows)} judgments, lps {sorted({r['lp'] for r in rows})}")
    for spec in estimators:
        est = registry.load("difficulty", spec)
        t0 = time.perf_counter()
        scores = score_sources(rows, lambda texts, lp: est.difficulty(texts, *split_lp(lp)))
        res, sel = dec(rows, scores), selection_quality(rows, scores, 0.25)
        per = " ".join(f"{k}={v:.3f}" for k, v in res["per_lp"].items())
        print(f"  {spec:<8} DEC {res['dec']:+.3f}  ({per})  AvgScore@25% {sel['avg_score']:.2f} "
              f"%Perfect@25% {sel['perfect_pct']:.1f}  [{time.perf_counter() - t0:.1f} s]")


def qe_tau(rows, qe_spec: str, max_items: int = 60) -> None:
    """Segment-level tau (all pairs) and within-source tau (translations of one source ranked)."""
    by_item = defaultdict(list)
    for r in rows:
        if r.get("tgt"):
            by_item[r["item_id"]].append(r)
    items = sorted(by_item)[:max_items]
    sel = [r for i in items for r in by_item[i]]
    lp = sel[0]["lp"]
    s, t = split_lp(lp)
    qe = registry.load("qe", qe_spec)
    t0 = time.perf_counter()
    scores = qe.score([r["src"] for r in sel], [r["tgt"] for r in sel], s, t)
    seg = kendall_tau_b(scores, [r["score"] for r in sel])
    within = []
    k = 0
    for i in items:
        n = len(by_item[i])
        within.append(kendall_tau_b(scores[k:k + n], [r["score"] for r in by_item[i]]))
        k += n
    print(f"  QE {qe_spec} on {lp}: {len(sel)} translations of {len(items)} sources: segment tau_b {seg:+.3f}, "
          f"mean within-source tau_b {np.nanmean(within):+.3f} [{time.perf_counter() - t0:.0f} s]")


def throughput(rows) -> None:
    texts = sorted({r["src"] for r in rows})[:500]
    nlp = registry.load("annotator", "spacy:en").nlp
    t0 = time.perf_counter()
    list(nlp.pipe(texts, batch_size=128))
    base = len(texts) / (time.perf_counter() - t0)
    print(f"\nthroughput on {len(texts)} WMT23 en sources; raw spaCy nlp.pipe (full pipeline): {base:.0f} sent/s")
    for spec in ("length", "syntax", "rarity"):
        est = registry.load("difficulty", spec)
        est.difficulty(texts[:10], "en")
        t0 = time.perf_counter()
        est.difficulty(texts, "en")
        rate = len(texts) / (time.perf_counter() - t0)
        print(f"  {spec:<8} {rate:10.0f} sent/s  ({rate / base:.2f}x spaCy)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--qe", default="qe")
    args = ap.parse_args()
    shared = Path(args.shared)
    esa = read_wmt23_esa(shared / "wmt23-mqm-mtme/wmt23_ende_esa_campaign.tsv.gz").rows
    mqm = read_wmt23_mtme(shared / "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz", score="mqm").rows
    import json
    from importlib import resources

    meta = json.loads((resources.files("mtgauntlet") / "data/models/learned_difficulty.json").read_text())
    print("learned: the shipped model is fit on all judgments, WMT23 included, so its rows below are in-sample.")
    print("Held-out DEC of the same recipe trained on Google MQM 2020-21 only (from its training run):")
    for name, v in meta["heldout"].items():
        print(f"  {name}: {v['dec']:.3f} " + " ".join(f"{k}={x:.3f}" for k, x in v["per_lp"].items()))
    estimators = ["length", "syntax", "rarity", "random", "learned"]
    run_dec("WMT23 en-de ESA campaign", esa, estimators)
    run_dec("WMT23 MQM en-de", [r for r in mqm if r["lp"] == "en-de"], estimators)
    run_dec("WMT23 MQM zh-en + he-en (no spaCy zh/he: syntax skipped)", [r for r in mqm if r["lp"] != "en-de"],
            ["length", "rarity", "random", "learned"])
    print("\nQE on human judgments (no Apertium pair for en-de/zh-en: round-trip signals drop out):")
    qe_tau(esa, args.qe)
    qe_tau([r for r in mqm if r["lp"] == "zh-en"], args.qe)
    throughput(esa)


if __name__ == "__main__":
    main()
