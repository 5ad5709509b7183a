"""Compile (or load from numba's cache) every compiled kernel once: sentence chrF, chrF++ and BLEU, and pairwise
chrF. ``make test`` and ``make demo`` run it first (``python -m mtgauntlet.validators.compile_kernels``), so that the
test workers find the kernels cached instead of each compiling them at once (about 25 s from an empty cache; a
second or so when cached)."""

from __future__ import annotations

import time


def compile_all() -> float:
    """Seconds taken to make every kernel ready (each called on a few texts, with the types real calls use)."""
    from sacrebleu.metrics import BLEU, CHRF

    from mtgauntlet.validators.chrf_matrix import pairwise_chrf
    from mtgauntlet.validators.sentence_lexical import bleu_sentences, chrf_sentences

    start = time.perf_counter()
    hyp, ref = ["A cat sat, on 3.5 mats.", "东京 👍"], ["The cat sat on the mat-3.", "東京"]
    chrf_sentences(CHRF(), hyp, ref)
    chrf_sentences(CHRF(word_order=2), hyp, ref)
    bleu_sentences(BLEU(effective_order=True), hyp, ref)
    pairwise_chrf(hyp + ref)
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"compiled kernels ready in {compile_all():.1f} s")
