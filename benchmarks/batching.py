"""`hf:` seq2seq translator and NLI on tiny models: length-sorted batches vs one item at a time (issue #16).

The models are the tiny random ones the tests build (tests/support/tiny_models.py): the figures measure the
batching machinery (padding, length sorting, per-call overhead), not a real model's speed; on a GPU the
gain of batching is much larger. Inputs are real FLORES-200 devtest English sentences. Each run uses
the same code path with ``#batch=1`` and ``#batch=N``; outputs are compared (texts must be identical,
NLI probabilities equal up to float noise). The output cache is off.

Usage: python benchmarks/batching.py [--n 400] [--batch 32] [--max-tokens 24]
Writes benchmarks/results/batching.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests.support.tiny_models builds the models

os.environ["MTGAUNTLET_CACHE"] = "off"


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--max-tokens", type=int, default=24)
    args = ap.parse_args()

    import torch

    from mtgauntlet.corpora.formats import read_flores
    from mtgauntlet.models import registry
    from tests.support import tiny_models

    rows = read_flores(Path(args.shared) / "flores200-devtest/flores200_devtest.tsv.gz", src="en", tgt="es").rows
    en = [r["src"] for r in rows[: args.n]]
    es = [r["ref"] for r in rows[: args.n]]
    tmp = Path(tempfile.mkdtemp(prefix="bench-batching-"))
    t5 = tiny_models.seq2seq(tmp / "t5")
    nli = tiny_models.classifier(
        tmp / "nli", 3, {0: "contradiction", 1: "neutral", 2: "entailment"}, max_positions=1024
    )  # FLORES pairs fit: no truncation in the figures
    print(
        f"{len(en)} FLORES devtest sentences, torch {torch.__version__}, {torch.get_num_threads()} threads, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    results = {}
    mt = {b: registry.load("translator", f"hf:{t5}#batch={b},max_tokens={args.max_tokens}") for b in (1, args.batch)}
    mt[1]._run(en[:4], "en", "es")  # warm-up
    one, t_one = timed(lambda: mt[1]._run(en, "en", "es"))
    many, t_many = timed(lambda: mt[args.batch]._run(en, "en", "es"))
    results["seq2seq_translate"] = {
        "n": len(en),
        "one_at_a_time_items_s": len(en) / t_one,
        "batched_items_s": len(en) / t_many,
        "ratio": t_one / t_many,
        "identical_outputs": one == many,
    }
    cls = {b: registry.load("nli", f"hf:{nli}#batch={b}") for b in (1, args.batch)}
    pairs = [[p, h] for p, h in zip(en, es)]
    cls[1]._run(pairs[:4])
    one, t_one = timed(lambda: cls[1]._run(pairs))
    many, t_many = timed(lambda: cls[args.batch]._run(pairs))
    diff = max(abs(a[k] - b[k]) for a, b in zip(one, many) for k in a)
    results["nli"] = {
        "n": len(pairs),
        "one_at_a_time_items_s": len(pairs) / t_one,
        "batched_items_s": len(pairs) / t_many,
        "ratio": t_one / t_many,
        "max_abs_prob_diff": diff,
        "same_argmax": all(max(a, key=a.get) == max(b, key=b.get) for a, b in zip(one, many)),
    }
    print(f"\n{'backend':<20} {'batch 1 (items/s)':>18} {f'batch {args.batch} (items/s)':>20} {'ratio':>7}  outputs")
    for name, r in results.items():
        same = (
            "identical"
            if r.get("identical_outputs")
            else f"max |dp| {r['max_abs_prob_diff']:.1e}, same argmax {r['same_argmax']}"
            if "max_abs_prob_diff" in r
            else "DIFFERENT"
        )
        print(
            f"{name:<20} {r['one_at_a_time_items_s']:>18.1f} {r['batched_items_s']:>20.1f} {r['ratio']:>6.1f}x  {same}"
        )
    results["setup"] = {
        "batch": args.batch,
        "max_tokens": args.max_tokens,
        "threads": torch.get_num_threads(),
        "load_average": os.getloadavg()[0],
    }
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "batching.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
