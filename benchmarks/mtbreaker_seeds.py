"""MT-breaker Table 2, Seeds column, without any model: the surface measures of keyed samples of 100 WMT24 English
seeds (drawn as ``gauntlet build mtbreaker --sample 100 --seed S`` draws them), in the toolkit's default
definitions and in the earlier ones, beside the paper's figures.

Usage: python benchmarks/mtbreaker_seeds.py [--draws 40] [--out benchmarks/results/mtbreaker_seeds.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from mtgauntlet.builders.breaker_sources import keyed_sample
from mtgauntlet.corpora.options import load_corpus
from mtgauntlet.validators.set_measures import chrf_diversity, unique_words, word_stats

WMT24 = Path(__file__).resolve().parents[1].parent / "shared/data/wmt24-general-testset/wmt24_general_testset.tsv.gz"
PAPER = {"chrf_diversity": 0.76, "avg_word_length": 4.69, "unique_words": 1566, "avg_word_count": 33.25}


def measures(texts: list[str], words: str, references: str) -> dict[str, float]:
    stats = word_stats(texts, words)
    return {
        "chrf_diversity": float(chrf_diversity(texts, references=references)["chrf_diversity"]),
        "avg_word_length": float(stats["avg_word_length"] or 0.0),
        "unique_words": float(unique_words(texts, words)),
        "avg_word_count": float(stats["avg_word_count"] or 0.0),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--draws", type=int, default=40)
    ap.add_argument("--corpus", default=str(WMT24))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    rows = load_corpus(a.corpus, format="wmt24", src_col=None, ref_col=None, src_lang="en", tgt_lang="cs").rows
    definitions = {
        "default (whitespace, all-others)": ("whitespace", "all-others"),
        "earlier (word-runs, pairwise)": ("word-runs", "pairwise"),
    }
    out: dict[str, dict[str, object]] = {"paper": dict(PAPER)}
    for label, (words, refs) in definitions.items():
        per = [measures([r["src"] for r in keyed_sample(rows, 100, seed)], words, refs) for seed in range(a.draws)]
        summary: dict[str, object] = {}
        for key in PAPER:
            values = np.array([p[key] for p in per])
            summary[key] = {"min": values.min(), "mean": values.mean(), "max": values.max()}
        counts = np.array([p["avg_word_count"] for p in per])
        uniq = np.array([p["unique_words"] for p in per])
        slope, intercept = np.polyfit(counts, uniq, 1)
        summary["unique_words_at_paper_word_count"] = slope * PAPER["avg_word_count"] + intercept
        out[label] = summary
        print(f"{label}, {a.draws} keyed draws of 100 seeds:")
        for key, paper in PAPER.items():
            s = summary[key]
            assert isinstance(s, dict)
            print(f"  {key:16s} paper {paper:8.2f}  toolkit {s['min']:8.3f} .. {s['max']:8.3f} (mean {s['mean']:.3f})")
        print(
            f"  unique words at the paper's {PAPER['avg_word_count']} words per text (linear fit): "
            f"{summary['unique_words_at_paper_word_count']:.0f}"
        )
    if a.out:
        Path(a.out).write_text(json.dumps(out, indent=1, default=float) + "\n")


if __name__ == "__main__":
    main()
