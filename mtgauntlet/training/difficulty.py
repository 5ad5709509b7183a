"""Train the shipped source-only difficulty regressor (`learned`) on human judgments in ../shared/data.

    python -m mtgauntlet.training.difficulty --shared ../shared/data --out mtgauntlet/data/models

Target: per source segment, the mean human score over systems, z-normalised within each (test set,
language pair) so MQM sums and 0-100 scores mix; the model predicts quality, difficulty = -quality.
Features: mtgauntlet.models.features (surface + wordfreq rarity + multilingual-e5 embedding).
Held-out report: a model trained on Google MQM 2020-21 only is scored (DEC) on WMT23 (MQM en-de,
zh-en, he-en and the en-de ESA campaign); the shipped model is then refit on all data.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from mtgauntlet.corpora.formats import read_google_mqm, read_wmt23_esa, read_wmt23_mtme
from mtgauntlet.corpora.langs import split_lp
from mtgauntlet.evaluation.dec import dec
from mtgauntlet.models.features import SURFACE, fit_ridge, source_features

VERSION = "1"
ALPHAS = (1.0, 10.0, 30.0, 100.0, 300.0, 1000.0)


def load_sets(shared: Path) -> dict[str, list[dict]]:
    return {
        "google-mqm": read_google_mqm(shared / "google-wmt-mqm/google_mqm_seg_scores.tsv.gz").rows,
        "wmt23-mqm": read_wmt23_mtme(shared / "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz", score="mqm").rows,
        "wmt23-da": read_wmt23_mtme(shared / "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz", score="da_sqm").rows,
        "wmt23-esa": read_wmt23_esa(shared / "wmt23-mqm-mtme/wmt23_ende_esa_campaign.tsv.gz").rows,
    }


def targets(rows: list[dict], name: str) -> list[tuple[str, str, str, float]]:
    """(group, lp, src, z-scored mean quality) per unique source; group = set name + lp (+ test set)."""
    acc: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for r in rows:
        testset = r["item_id"].split(":")[0] if ":" in r["item_id"] else name
        acc[(f"{name}/{testset}/{r['lp']}", r["lp"], r["src"])].append(r["score"])
    by_group: dict[str, list[tuple[str, str, float]]] = defaultdict(list)
    for (g, lp, src), v in acc.items():
        by_group[g].append((lp, src, float(np.mean(v))))
    out = []
    for g, items in by_group.items():
        vals = np.array([m for _, _, m in items])
        mu, sd = vals.mean(), vals.std() or 1.0
        out.extend((g, lp, src, (m - mu) / sd) for lp, src, m in items)
    return out


class FeatureCache:
    def __init__(self, path: Path):
        self.path = path
        self.data = dict(np.load(path, allow_pickle=False)) if path.exists() else {}

    def get(self, texts: list[str], lang: str) -> np.ndarray:
        keys = [hashlib.sha1(f"{lang}\t{t}".encode()).hexdigest() for t in texts]
        missing = [i for i, k in enumerate(keys) if k not in self.data]
        if missing:
            t0 = time.time()
            feats = source_features([texts[i] for i in missing], lang)
            for i, f in zip(missing, feats):
                self.data[keys[i]] = f
            np.savez(self.path, **self.data)
            print(f"  features for {len(missing)} {lang} texts in {time.time() - t0:.0f} s", flush=True)
        return np.vstack([self.data[k] for k in keys])


def design(items, cache: FeatureCache):
    X = np.zeros((len(items), 0))
    parts, order = [], []
    by_lang: dict[str, list[int]] = defaultdict(list)
    for i, (_, lp, _, _) in enumerate(items):
        by_lang[split_lp(lp)[0]].append(i)
    X = None
    for lang, idx in by_lang.items():
        F = cache.get([items[i][2] for i in idx], lang)
        if X is None:
            X = np.zeros((len(items), F.shape[1]))
        X[idx] = F
    y = np.array([t for *_, t in items])
    groups = [g for g, *_ in items]
    return X, y, groups


def choose_alpha(X, y, groups, names) -> float:
    uniq = sorted(set(groups))
    best, best_score = ALPHAS[0], -np.inf
    for a in ALPHAS:
        cors = []
        for g in uniq:
            test = np.array([x == g for x in groups])
            m = fit_ridge(X[~test], y[~test], a, names, {})
            pred = m.predict(X[test])
            cors.append(np.corrcoef(pred, y[test])[0, 1])
        score = float(np.nanmean(cors))
        print(f"  alpha={a:g}: leave-one-group-out Pearson {score:.3f}", flush=True)
        if score > best_score:
            best, best_score = a, score
    return best


def dec_of(model, judgments, cache) -> dict:
    scores = {}
    by_lp: dict[str, dict[str, str]] = defaultdict(dict)
    for j in judgments:
        by_lp[j["lp"]][j["item_id"]] = j["src"]
    for lp, items in by_lp.items():
        ids = sorted(items)
        F = cache.get([items[i] for i in ids], split_lp(lp)[0])
        pred = model.predict(F)
        scores.update({(lp, i): -float(p) for i, p in zip(ids, pred)})
    return dec(judgments, scores)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared/data")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "data" / "models"))
    ap.add_argument("--cache", default="/tmp/mtgauntlet-train-features.npz")
    args = ap.parse_args()
    shared, out = Path(args.shared), Path(args.out)
    sets = load_sets(shared)
    cache = FeatureCache(Path(args.cache))
    names = list(SURFACE) + [f"e5_{i}" for i in range(384)]

    print("held-out run: train on google-mqm, test DEC on WMT23", flush=True)
    train = targets(sets["google-mqm"], "google-mqm")
    X, y, groups = design(train, cache)
    alpha = choose_alpha(X, y, groups, names)
    held = fit_ridge(X, y, alpha, names, {})
    report = {"alpha_heldout": alpha, "heldout_dec": {}}
    for name in ("wmt23-mqm", "wmt23-esa", "wmt23-da"):
        r = dec_of(held, sets[name], cache)
        report["heldout_dec"][name] = r
        print(f"  held-out DEC on {name}: {r['dec']:.3f} {r['per_lp']}", flush=True)

    print("final fit on all sets", flush=True)
    items = []
    for name, rows in sets.items():
        items.extend(targets(rows, name))
    X, y, groups = design(items, cache)
    alpha = choose_alpha(X, y, groups, names)
    signature = (f"model:learned-difficulty|data:google-mqm+wmt23-mqm+wmt23-da+wmt23-esa|n:{len(items)}|"
                 f"features:surface{len(SURFACE)}+e5-small-384|target:z-mean-quality|alpha:{alpha:g}|version:{VERSION}")
    meta = {"signature": signature, "version": VERSION, "alpha": alpha, "n_train": len(items),
            "heldout": {k: {"dec": v["dec"], "per_lp": v["per_lp"]} for k, v in report["heldout_dec"].items()},
            "trained": time.strftime("%Y-%m-%d")}
    model = fit_ridge(X, y, alpha, names, meta)
    out.mkdir(parents=True, exist_ok=True)
    model.save(out / "learned_difficulty.npz")
    (out / "learned_difficulty.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"saved {out / 'learned_difficulty.npz'}\n{signature}")


if __name__ == "__main__":
    main()
