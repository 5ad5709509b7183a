"""Pairwise chrF on 1,000 texts: the vectorised exact computation vs a sacrebleu loop (target >= 50x, equal).

The sacrebleu loop is timed on a 150-text block and extrapolated to all ordered pairs (the full loop takes
minutes); equality is checked on that block. Usage: python benchmarks/diversity.py [N]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from sacrebleu.metrics import CHRF

from mtgauntlet.corpora.formats import read_flores
from mtgauntlet.validators.chrf_matrix import pairwise_chrf

HERE = Path(__file__).resolve().parent


def main(n: int = 1000) -> None:
    rows = read_flores(
        HERE.parents[1] / "shared/data/flores200-devtest/flores200_devtest.tsv.gz", src="en", tgt="de"
    ).rows
    texts = ([r["src"] for r in rows] + [r["ref"] for r in rows])[:n]
    for word_order, label in ((0, "chrF"), (2, "chrF++ (nc:6|nw:2)")):
        t0 = time.perf_counter()
        S = pairwise_chrf(texts, word_order=word_order)
        ours = time.perf_counter() - t0
        m = CHRF(word_order=word_order)
        k = 150
        t0 = time.perf_counter()
        block = np.array([[m.sentence_score(h, [r]).score for r in texts[:k]] for h in texts[:k]])
        per_pair = (time.perf_counter() - t0) / (k * k)
        loop = per_pair * n * n
        diff = np.abs(S[:k, :k] - block).max()
        print(
            f"{label}: {n}x{n} pairs: ours {ours:.2f} s, sacrebleu loop ~{loop:.0f} s "
            f"(measured {per_pair * 1e6:.0f} us/pair) -> {loop / ours:.0f}x faster; max |diff| = {diff:.2e}"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
