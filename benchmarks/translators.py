"""Quality (chrF, BLEU against FLORES references) and speed of the embedded translators on the same FLORES-200
devtest sentences, side by side: the neural ``bergamot`` en<->pt, the pivot chains through Portuguese and the
direct Apertium pairs they compete with. The output cache is off: every number is a fresh run.

Usage: python benchmarks/translators.py [N] [--shared ../shared/data] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

# (source column, target column, source lang, target lang, spec)
SYSTEMS = [
    ("eng", "por", "en", "pt", "bergamot:en-pt"),
    ("por", "eng", "pt", "en", "bergamot:pt-en"),
    ("eng", "spa", "en", "es", "apertium:eng-spa"),
    ("eng", "spa", "en", "es", "bergamot:en-pt>apertium:pt-es"),
    ("spa", "eng", "es", "en", "apertium:spa-eng"),
    ("spa", "eng", "es", "en", "apertium:es-pt>bergamot:pt-en"),
]


def flores_columns(path: Path, n: int) -> dict[str, list[str]]:
    import csv
    import gzip

    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[:n]
    return {c: [r[c] for r in rows] for c in ("eng", "por", "spa")}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=100)
    ap.add_argument("--shared", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args()
    os.environ["MTGAUNTLET_CACHE"] = "off"
    from sacrebleu.metrics import BLEU, CHRF

    from mtgauntlet.errors import GauntletError
    from mtgauntlet.models import registry
    from mtgauntlet.models.runtime import free_cores

    cols = flores_columns(Path(args.shared) / "flores200-devtest/flores200_devtest.tsv.gz", args.n)
    n = len(cols["eng"])
    print(f"{n} FLORES-200 devtest sentences, {free_cores()} free core(s), load average {os.getloadavg()[0]:.1f}")
    print(f"{'direction':<7} {'system':<34} {'chrF':>6} {'BLEU':>6} {'sent/s':>8}")
    results = []
    for src_col, ref_col, src, tgt, spec in SYSTEMS:
        try:
            tr = registry.load("translator", spec)
            tr.translate(cols[src_col][:1], src, tgt)  # load the model / fail fast
            t0 = time.perf_counter()
            hyps = tr.translate(cols[src_col], src, tgt)
            dt = time.perf_counter() - t0
        except GauntletError as exc:
            print(f"{src}-{tgt:<4} {spec:<34} unavailable: {exc}")
            continue
        refs = [cols[ref_col]]
        row = {
            "direction": f"{src}-{tgt}",
            "system": spec,
            "chrf": CHRF().corpus_score(hyps, refs).score,
            "bleu": BLEU().corpus_score(hyps, refs).score,
            "sent_per_s": n / dt,
            "n": n,
        }
        results.append(row)
        print(f"{row['direction']:<7} {spec:<34} {row['chrf']:6.1f} {row['bleu']:6.1f} {row['sent_per_s']:8.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"n": n, "results": results}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
