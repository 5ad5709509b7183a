"""Train the combination weights of the shipped QE (`qe`) — reproducible, offline.

    python -m mtgauntlet.training.qe --shared ../shared/data --n 300

Data: FLORES-200 devtest, both es->en and en->es. For each source, the human reference is the good
translation and this project's SMAUG builder (model-free default: entity swap, number change,
negation, clause insertion, span deletion) makes critically wrong ones. A pairwise logistic model on
the standardised signal differences (good - bad) learns the weights; the logit is then centred and
scaled (one standard deviation over the training translations = 1 logit unit), so scores spread over
0..100 and rank like the model; they are not probabilities. DEMETR is never used here: it stays a held-out test (benchmarks/qe.py).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from mtgauntlet.runner.build_runner import item_rng
from mtgauntlet.builders.base import iter_items
from mtgauntlet.builders.smaug import SmaugBuilder
from mtgauntlet.corpora.formats import read_flores
from mtgauntlet.models.features import LinearModel
from mtgauntlet.models.shipped_qe import SIGNALS, ShippedQE

VERSION = "1"


def pairs_for(shared: Path, src: str, tgt: str, n: int, offset: int):
    rows = read_flores(shared / "flores200-devtest/flores200_devtest.tsv.gz", src=src, tgt=tgt).rows[offset:offset + n]
    builder = SmaugBuilder(src_lang=src, tgt_lang=tgt, good_from="reference")
    items = iter_items(rows)
    builder.prepare(items)
    results = builder.process_batch(items, [item_rng(13, it.index) for it in items])
    return [(r["src"], r["ref"], r["bad"], r["phenomenon"]) for res in results for r in res.records]


def fit_pairwise_logistic(D: np.ndarray, l2: float = 1.0, iters: int = 200) -> np.ndarray:
    """Weights w maximising sum log sigmoid(w.d) - l2/2 |w|^2 (Newton's method)."""
    w = np.zeros(D.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(D @ w)))
        grad = D.T @ (1 - p) - l2 * w
        H = -(D.T * (p * (1 - p))) @ D - l2 * np.eye(D.shape[1])
        step = np.linalg.solve(H, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared/data")
    ap.add_argument("--n", type=int, default=300, help="FLORES sentences per direction")
    ap.add_argument("--lm", action="store_true", help="also train the LM-likelihood signal (the shipped model does)")
    ap.add_argument("--cache", default="/tmp/mtgauntlet-qe-features.npz", help="feature cache (re-runs are fast)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "data" / "models"))
    args = ap.parse_args()
    shared = Path(args.shared)
    qe = ShippedQE("" if args.lm else "#fast", model_path="/nonexistent")
    G, B = [], []
    cache = Path(args.cache)
    key = f"n{args.n}-lm{int(args.lm)}"
    if cache.exists() and key in np.load(cache).files:
        G, B = np.load(cache)[key]
    else:
        for src, tgt, offset in (("es", "en", 0), ("en", "es", 500)):
            t0 = time.time()
            pairs = pairs_for(shared, src, tgt, args.n, offset)
            srcs = [p[0] for p in pairs]
            G.append(qe.features(srcs, [p[1] for p in pairs], src, tgt))
            B.append(qe.features(srcs, [p[2] for p in pairs], src, tgt))
            print(f"{src}->{tgt}: {len(pairs)} pairs, features in {time.time() - t0:.0f} s", flush=True)
        G, B = np.vstack(G), np.vstack(B)
        np.savez(cache, **{key: np.stack([G, B])})
    allx = np.vstack([G, B])
    mean, std = np.nanmean(allx, 0), np.nanstd(allx, 0)
    mean = np.where(np.isnan(mean), 0.0, mean)
    std = np.where(~np.isfinite(std) | (std == 0), 1.0, std)
    model = LinearModel(mean, std, np.zeros(len(SIGNALS)), 0.0, list(SIGNALS), {})
    Zg, Zb = model.transform(G), model.transform(B)
    w = fit_pairwise_logistic(Zg - Zb)
    acc = float(np.mean((Zg - Zb) @ w > 0))
    # scale: logits vary far more between sources than between a translation and its perturbation, so
    # centre them on the mean over all training translations and put one standard deviation at 1 logit
    # unit (about 27..73 on the 0..100 scale): scores stay spread out (no saturation at 100 for easy
    # sources) and averages across sources mean something, while the ranking is the pairwise model's.
    allz = np.concatenate([Zg @ w, Zb @ w])
    mid, scale = float(allz.mean()), float(allz.std()) or 1.0
    b = -mid / scale
    w = w / scale
    used = [name for name, wi in zip(SIGNALS, w) if abs(wi) > 1e-9]
    signature = (f"model:qe|data:flores-devtest-es-en+en-es|pairs:{len(Zg)}|perturbations:smaug-modelfree|"
                 f"signals:{'+'.join(used)}|version:{VERSION}")
    meta = {"signature": signature, "weights": dict(zip(SIGNALS, map(float, w))), "intercept": float(b),
            "train_pairwise_accuracy": acc, "trained": time.strftime("%Y-%m-%d"), "version": VERSION}
    model.coef, model.intercept, model.meta = w, float(b), meta
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model.save(out / "qe.npz")
    (out / "qe.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(meta, indent=2))


if __name__ == "__main__":
    main()
