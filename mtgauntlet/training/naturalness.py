"""Calibrate the LM naturalness score (validators/fluency.py) — reproducible, offline.

    python -m mtgauntlet.training.naturalness --shared ../shared/data --n 200

Mean token log-probabilities of English FLORES devtest sentences (natural) and the same sentences with
their words shuffled (unnatural) under the embedded LLM; the logistic's midpoint is halfway between the
two class means and its scale a quarter of their distance, so natural text maps near 100 and word
salad near 0. DEMETR is not used (it is the held-out test).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from mtgauntlet.corpora.formats import read_flores
from mtgauntlet.validators.fluency import mean_logprobs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared/data")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "data" / "models"))
    args = ap.parse_args()
    rows = read_flores(Path(args.shared) / "flores200-devtest/flores200_devtest.tsv.gz", src="en", tgt="de").rows
    natural = [r["src"] for r in rows[-args.n :]]
    rng = random.Random(13)
    shuffled = []
    for t in natural:
        w = t.split()
        rng.shuffle(w)
        shuffled.append(" ".join(w))
    a, b = np.array(mean_logprobs(natural)), np.array(mean_logprobs(shuffled))
    mid, scale = float((a.mean() + b.mean()) / 2), float(abs(a.mean() - b.mean()) / 4)
    meta = {
        "midpoint": mid,
        "scale": scale,
        "natural_mean": float(a.mean()),
        "shuffled_mean": float(b.mean()),
        "pairwise_accuracy": float(np.mean(a > b)),
        "llm": "smollm2",
        "signature": f"model:lm-naturalness|data:flores-devtest-eng-last{args.n}+shuffled|llm:smollm2|version:1",
        "trained": time.strftime("%Y-%m-%d"),
    }
    out = Path(args.out) / "lm_naturalness.json"
    out.write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(meta, indent=2))


if __name__ == "__main__":
    main()
