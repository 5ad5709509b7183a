"""SMAUG benchmarks.

1. Throughput: records/s of the embedded default (spaCy + rules, good = reference) on FLORES references,
   next to raw spaCy `nlp.pipe` sentences/s on the same references (target: >= 0.5x).
2. DEMETR (dev languages): chrF and BLEU Kendall-like tau / d for the named-entity, number and negation
   perturbations, written to benchmarks/results/smaug_demetr.json.

Usage: python benchmarks/smaug.py [N] [--shared ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from mtgauntlet.builders.base import iter_items
from mtgauntlet.builders.options.smaug import SmaugOptions
from mtgauntlet.builders.smaug import SmaugBuilder
from mtgauntlet.corpora.formats import read_flores
from mtgauntlet.evaluation.metric_robustness import evaluate, filter_pairs, load_pairs, score_pairs
from mtgauntlet.models import registry
from mtgauntlet.options import options_of
from mtgauntlet.runner.build_runner import BuildRunner

HERE = Path(__file__).resolve().parent


def throughput(shared: Path, n: int) -> None:
    rows = read_flores(shared / "flores200-devtest/flores200_devtest.tsv.gz", src="de", tgt="en", limit=n).rows
    refs = [r["ref"] for r in rows]
    nlp = registry.load("annotator", "spacy:en").nlp
    list(nlp.pipe(refs[:50]))
    t0 = time.perf_counter()
    list(nlp.pipe(refs, batch_size=64))
    spacy_rate = len(refs) / (time.perf_counter() - t0)
    with tempfile.TemporaryDirectory() as tmp:
        builder = SmaugBuilder(options_of(SmaugOptions, src_lang="de", tgt_lang="en", good_from="reference"))
        t0 = time.perf_counter()
        s = BuildRunner(builder, tmp, shard_size=200, progress=False).run(iter_items(rows))
        dt = time.perf_counter() - t0
    print(f"spaCy nlp.pipe on {len(refs)} FLORES references: {spacy_rate:.1f} sent/s")
    print(
        f"SMAUG embedded default: {s.produced} records from {len(refs)} references in {dt:.1f} s = "
        f"{s.produced / dt:.1f} records/s, {len(refs) / dt:.1f} references/s "
        f"({len(refs) / dt / spacy_rate:.2f}x spaCy)"
    )


def demetr(shared: Path) -> None:
    wanted = ["critical_id9_ne_replaced", "critical_id10_numbers_replaced", "critical_id8_negation"]
    pairs = filter_pairs(load_pairs(str(shared / "demetr/demetr_dev.jsonl.gz")), phenomena=wanted)
    out = {}
    for metric in ("chrf", "bleu"):
        good, bad = score_pairs(pairs, metric)
        out[metric] = [{k: r[k] for k in ("phenomenon", "lp", "n", "tau", "d")} for r in evaluate(pairs, good, bad)]
        print(f"\nDEMETR {metric} (ties discordant):")
        for r in out[metric]:
            print(f"  {r['lp']:<11} {r['phenomenon']:<32} n={r['n']:<4} tau={r['tau']:+.3f} d={r['d']:.3f}")
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "smaug_demetr.json").write_text(json.dumps(out, indent=2) + "\n")
    print(f"written {HERE / 'results' / 'smaug_demetr.json'}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=1012)
    ap.add_argument("--shared", default=str(HERE.parents[1] / "shared" / "data"))
    args = ap.parse_args()
    throughput(Path(args.shared), args.n)
    demetr(Path(args.shared))


if __name__ == "__main__":
    main()
