"""Difficulty estimators on held-out human judgments: leave-one-campaign-out DEC (issue #13).

For every campaign of mtgauntlet.training.campaigns (dataset file x test set x protocol), the `learned`
recipe is trained without it (and without any source it shares with it; configuration chosen by an
inner LOCO on the other campaigns) and its DEC on the held-out campaign is printed next to `length`,
`syntax` (only where a spaCy parser covers the source language: en), `rarity` and `random`, with the
per-language-pair values, and the selection quality (AvgScore / %Perfect of the hardest 25%). Then the
throughput of the heuristics next to raw spaCy nlp.pipe on the same texts.

Features are cached (default /tmp/mtgauntlet-difficulty-features): the first run embeds ~8,000 sources
with e5 (tens of minutes on 2 cores), later runs take about a minute.
Usage: python benchmarks/dec.py [--shared ../shared/data] [--cache DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from mtgauntlet.evaluation.dec import selection_quality
from mtgauntlet.models import registry
from mtgauntlet.training import difficulty as D
from mtgauntlet.training.campaigns import load_campaigns

HERE = Path(__file__).resolve().parent


def throughput(rows) -> None:
    texts = sorted({r["src"] for r in rows if r["lp"].startswith("en")})[:500]
    nlp = registry.load("annotator", "spacy:en").nlp
    t0 = time.perf_counter()
    list(nlp.pipe(texts, batch_size=128))
    base = len(texts) / (time.perf_counter() - t0)
    print(f"\nthroughput on {len(texts)} English sources; raw spaCy nlp.pipe (full pipeline): {base:.0f} texts/s")
    for spec in ("length", "syntax", "rarity", "learned"):
        est = registry.load("difficulty", spec)
        est.difficulty(texts[:10], "en")
        t0 = time.perf_counter()
        est.difficulty(texts, "en")
        rate = len(texts) / (time.perf_counter() - t0)
        print(f"  {spec:<8} {rate:10.1f} texts/s  ({rate / base:.2f}x spaCy)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--cache", default="/tmp/mtgauntlet-difficulty-features")
    ap.add_argument("--json", default=str(HERE / "results" / "dec_loco.json"))
    args = ap.parse_args()
    camps = load_campaigns(Path(args.shared))
    data = D.Data(camps, D.FeatureStore(Path(args.cache)))
    base = D.baselines(camps)
    print("nested leave-one-campaign-out (each campaign held out: trained without it and its sources)")
    held = D.nested_loco(data, D.CONFIGS)
    cols = ["learned"] + list(D.BASELINES)
    print(f"\n{'held-out campaign':<18}{'lps':<20}" + "".join(f"{c:>9}" for c in cols) + "   learned - length")
    for c in camps:
        vals = [held[c]["dec"]] + [base[b][c]["dec"] for b in D.BASELINES]
        print(
            f"{c:<18}{','.join(sorted(held[c]['per_lp'])):<20}"
            + "".join(f"{v:>9.3f}" for v in vals)
            + f"   {held[c]['dec'] - base['length'][c]['dec']:+.3f}"
        )
    means = [float(np.mean([held[c]["dec"] for c in camps]))] + [
        float(np.nanmean([base[b][c]["dec"] for c in camps])) for b in D.BASELINES
    ]
    print(f"{'mean':<38}" + "".join(f"{v:>9.3f}" for v in means))
    print("\nper language pair (learned | length):")
    for c in camps:
        print(
            f"  {c:<14} "
            + "  ".join(
                f"{lp} {held[c]['per_lp'][lp]:.3f} | {base['length'][c]['per_lp'].get(lp, float('nan')):.3f}"
                for lp in sorted(held[c]["per_lp"])
            )
        )
    print("\nhardest 25% by the held-out learned model vs length: AvgScore (lower = harder) / %Perfect")
    for c in camps:
        cfg = D.CONFIGS[held[c]["config"]]
        its, X = data.train_set([x for x in camps if x != c], [c], cfg.groups)
        pred = D.fit(cfg, X, its).predict(data.X(c, cfg.groups))
        learned = {(it.lp, it.item_id): -float(p) for it, p in zip(data.items[c], pred)}
        est = registry.load("difficulty", "length")
        length = {
            (it.lp, it.item_id): d for it, d in zip(data.items[c], est.difficulty([it.src for it in data.items[c]]))
        }
        a, b = selection_quality(camps[c], learned), selection_quality(camps[c], length)
        print(
            f"  {c:<14} learned {a['avg_score']:8.2f} / {a['perfect_pct']:5.1f}%   length {b['avg_score']:8.2f} / "
            f"{b['perfect_pct']:5.1f}%"
        )
    Path(args.json).parent.mkdir(exist_ok=True)
    Path(args.json).write_text(json.dumps({"learned_loco": held, "baselines": base}, indent=2) + "\n")
    throughput(camps["wmt23-esa"] + camps["gmqm-ted21"])


if __name__ == "__main__":
    main()
