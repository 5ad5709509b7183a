"""Train the shipped source-only difficulty estimator (`learned`) on the human judgments in ../shared/data.

    python -m mtgauntlet.training.difficulty --shared ../shared/data [--out DIR] [--cache /tmp/...]

Campaigns: mtgauntlet.training.campaigns (one dataset file x test set x protocol).
Target: for each (campaign, language pair, system) the human scores are turned into centred percentile
ranks (ties averaged), so MQM sums, DA and ESA mix and no system's overall level counts; a source's
target is the mean over the systems that translated it (predicted *quality*; difficulty = -quality).
Features: mtgauntlet.models.features (surface, rarity, syntax, e5). Learner: a weighted ridge regression,
separate penalties for the hand-made features and the embedding block, fitted *within* (campaign, lp)
groups (features and targets centred per group, a fixed-effects fit): DEC ranks sources inside one
language pair, so only within-group differences should shape the weights — otherwise a paragraph-level
campaign's long texts with centred targets would teach the model that length does not matter. Each
(campaign, lp) weighs ~sqrt(size), so no campaign dominates.
Selection and the reported numbers: leave-one-campaign-out (LOCO). Holding out campaign C drops from
training every item whose source text occurs in C. The configuration is chosen *inside* each outer fold
by an inner LOCO over the remaining campaigns (nested), so a held-out number never saw its campaign,
not even through the choice of configuration. The shipped model is then refit on all campaigns with the
configuration the full LOCO prefers. DEMETR is never used here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mtgauntlet.corpora.langs import split_lp
from mtgauntlet.evaluation.dec import dec, score_sources
from mtgauntlet.models.features import feature_names, fit_ridge, source_features
from mtgauntlet.training.campaigns import CAMPAIGNS, load_campaigns, source_key

VERSION = "2"
SYNTAX_LANGS = ("en", "es", "fr")
BASELINES = ("length", "syntax", "rarity", "random")


@dataclass(frozen=True)
class Config:
    groups: tuple[str, ...] = ("surface", "rarity", "syntax", "e5")
    alpha: float = 100.0  # penalty of the hand-made features (standardised)
    alpha_e5: float = 10000.0  # penalty of the embedding block


# cheapest first: a later configuration must beat an earlier one by more than TIE to be chosen
CONFIGS = {
    "surface+rarity": Config(("surface", "rarity"), 100.0, 0.0),
    "surface+rarity+e5 (10/3000)": Config(("surface", "rarity", "e5"), 10.0, 3000.0),
    "surface+rarity+e5 (100/3000)": Config(("surface", "rarity", "e5"), 100.0, 3000.0),
    "surface+rarity+e5 (100/10000)": Config(("surface", "rarity", "e5"), 100.0, 10000.0),
    "surface+rarity+e5 (1000/10000)": Config(("surface", "rarity", "e5"), 1000.0, 10000.0),
    "surface+rarity+syntax+e5 (100/3000)": Config(("surface", "rarity", "syntax", "e5"), 100.0, 3000.0),
}
TIE = 0.002


@dataclass
class Item:
    campaign: str
    lp: str
    item_id: str
    src: str
    target: float


def campaign_items(campaign: str, rows: list[dict]) -> list[Item]:
    """One item per (lp, item_id): mean over systems of the centred percentile rank within (lp, system)."""
    from scipy.stats import rankdata

    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        by[(r["lp"], r["system"])].append(r)
    acc: dict[tuple[str, str], list[float]] = defaultdict(list)
    src: dict[tuple[str, str], str] = {}
    for rs in by.values():
        ranks = (rankdata([r["score"] for r in rs]) - 0.5) / len(rs) - 0.5
        for r, v in zip(rs, ranks):
            acc[(r["lp"], r["item_id"])].append(float(v))
            src[(r["lp"], r["item_id"])] = r["src"]
    return [Item(campaign, lp, iid, src[(lp, iid)], float(np.mean(v))) for (lp, iid), v in sorted(acc.items())]


class FeatureStore:
    """Per-group feature cache (one .npz per group, keyed by language + text): features are computed once."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.data: dict[str, dict[str, np.ndarray]] = {}

    def _group(self, g: str) -> dict[str, np.ndarray]:
        if g not in self.data:
            p = self.folder / f"{g}.npz"
            self.data[g] = dict(np.load(p)) if p.exists() else {}
        return self.data[g]

    def get(self, texts: list[str], lang: str, groups: tuple[str, ...]) -> np.ndarray:
        keys = [hashlib.sha1(f"{lang}\t{t}".encode()).hexdigest() for t in texts]
        parts = []
        for g in groups:
            d = self._group(g)
            missing = [i for i, k in enumerate(keys) if k not in d]
            for s in range(0, len(missing), 500):
                chunk = missing[s : s + 500]
                t0 = time.time()
                X = source_features([texts[i] for i in chunk], lang, groups=(g,), syntax_langs=SYNTAX_LANGS)
                d.update({keys[i]: x for i, x in zip(chunk, X)})
                np.savez(self.folder / f"{g}.npz", **d)  # type: ignore[arg-type]  # numpy's stub: d could be allow_pickle=
                print(f"  {g} features of {len(chunk)} {lang} texts in {time.time() - t0:.0f} s", flush=True)
            parts.append(np.vstack([d[k] for k in keys]) if keys else np.zeros((0, len(feature_names((g,))))))
        return np.hstack(parts)


def design(items: list[Item], store: FeatureStore, groups: tuple[str, ...]) -> np.ndarray:
    X = np.zeros((len(items), len(feature_names(groups))))
    by_lang: dict[str, list[int]] = defaultdict(list)
    for i, it in enumerate(items):
        by_lang[split_lp(it.lp)[0]].append(i)
    for lang, idx in by_lang.items():
        X[idx] = store.get([items[i].src for i in idx], lang, groups)
    return X


def weights(items: list[Item]) -> np.ndarray:
    size: dict[tuple[str, str], int] = defaultdict(int)
    for it in items:
        size[(it.campaign, it.lp)] += 1
    w = np.array([size[(it.campaign, it.lp)] ** -0.5 for it in items])
    return w * len(w) / w.sum()


def fit(config: Config, X: np.ndarray, items: list[Item], meta: dict | None = None):
    """Fixed-effects ridge: features and targets centred within each (campaign, lp) group."""
    names = feature_names(config.groups)
    alpha = np.array([config.alpha_e5 if n.startswith("e5_") else config.alpha for n in names])
    w = weights(items)
    y = np.array([it.target for it in items])
    Xc = np.array(X, dtype=np.float64)
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, it in enumerate(items):
        groups[(it.campaign, it.lp)].append(i)
    for idx in groups.values():
        mu = _nanmean(X[idx])
        Xc[idx] = X[idx] - np.where(np.isnan(mu), 0.0, mu)
        y[idx] = y[idx] - np.average(y[idx], weights=w[idx])
    model = fit_ridge(Xc, y, alpha, names, meta or {}, weights=w)
    raw = _nanmean(X)  # a missing feature is imputed with its raw training mean
    model.mean = np.where(np.isnan(raw), 0.0, raw)
    return model


def _nanmean(X: np.ndarray) -> np.ndarray:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column (no parser for the language)
        return np.nanmean(X, axis=0)


class Data:
    """Judgments, items and feature matrices of every campaign (features per feature-group set)."""

    def __init__(self, camps: dict[str, list[dict]], store: FeatureStore):
        self.camps, self.store = camps, store
        self.items = {c: campaign_items(c, rows) for c, rows in camps.items()}
        self.keys = {c: {source_key(it.src) for it in its} for c, its in self.items.items()}
        self._X: dict[tuple[str, tuple], np.ndarray] = {}

    def X(self, c: str, groups: tuple[str, ...]) -> np.ndarray:
        if (c, groups) not in self._X:
            self._X[(c, groups)] = design(self.items[c], self.store, groups)
        return self._X[(c, groups)]

    def train_set(self, campaigns: list[str], held: list[str], groups):
        """Items (and features) of ``campaigns`` whose source occurs in none of ``held``."""
        blocked = set().union(*(self.keys[h] for h in held)) if held else set()
        its, xs = [], []
        for c in campaigns:
            keep = [i for i, it in enumerate(self.items[c]) if source_key(it.src) not in blocked]
            its += [self.items[c][i] for i in keep]
            xs.append(self.X(c, groups)[keep])
        return its, np.vstack(xs)

    def dec_of(self, c: str, model, groups) -> dict:
        pred = model.predict(self.X(c, groups))
        return dec(self.camps[c], {(it.lp, it.item_id): -float(p) for it, p in zip(self.items[c], pred)})


def loco(data: Data, config: Config, campaigns: list[str]) -> dict[str, float]:
    out = {}
    for held in campaigns:
        its, X = data.train_set([c for c in campaigns if c != held], [held], config.groups)
        out[held] = data.dec_of(held, fit(config, X, its), config.groups)["dec"]
    return out


def choose(scores: dict[str, float]) -> str:
    """The first configuration (cheapest) within TIE of the best mean DEC."""
    top = max(scores.values())
    return next(k for k in scores if scores[k] >= top - TIE)


def nested_loco(data: Data, configs: dict[str, Config]) -> dict[str, dict]:
    """Outer LOCO; the configuration of each outer fold is chosen by an inner LOCO on the other campaigns."""
    names = list(data.camps)
    out = {}
    for held in names:
        rest = [c for c in names if c != held]
        inner = {k: float(np.mean(list(loco(data, cfg, rest).values()))) for k, cfg in configs.items()}
        best = choose(inner)
        cfg = configs[best]
        its, X = data.train_set(rest, [held], cfg.groups)
        res = data.dec_of(held, fit(cfg, X, its), cfg.groups)
        out[held] = {"dec": res["dec"], "per_lp": res["per_lp"], "config": best}
        print(f"  held out {held}: DEC {res['dec']:.3f} (config {best})", flush=True)
    return out


def _per_pair(est: Any) -> Callable[[list[str], str], list[float | None]]:
    """``est.difficulty`` asked with a language pair ``xx-yy`` (as `score_sources` calls it)."""
    return lambda texts, lp: est.difficulty(texts, *split_lp(lp))


def baselines(camps: dict[str, list[dict]]) -> dict[str, dict[str, dict]]:
    """DEC of the heuristics per campaign (syntax only where a spaCy pipeline covers the source language)."""
    from mtgauntlet.errors import BackendUnavailable
    from mtgauntlet.models import registry

    out: dict[str, dict[str, dict]] = {}
    for spec in BASELINES:
        est = registry.load("difficulty", spec)
        out[spec] = {}
        for c, rows in camps.items():
            scores = {}
            for lp in sorted({r["lp"] for r in rows}):
                sub = [r for r in rows if r["lp"] == lp]
                try:
                    scores.update(score_sources(sub, _per_pair(est)))
                except BackendUnavailable:
                    continue
            res = dec([r for r in rows if (r["lp"], str(r["item_id"])) in scores], scores)
            out[spec][c] = {"dec": res["dec"], "per_lp": res["per_lp"]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default="../shared/data")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "data" / "models"))
    ap.add_argument("--cache", default="/tmp/mtgauntlet-difficulty-features", help="feature cache folder")
    args = ap.parse_args()
    camps = load_campaigns(Path(args.shared))
    data = Data(camps, FeatureStore(Path(args.cache)))
    print("campaigns: " + ", ".join(f"{c} ({len(data.items[c])} sources)" for c in camps), flush=True)
    base = baselines(camps)
    print("nested leave-one-campaign-out:", flush=True)
    held = nested_loco(data, CONFIGS)
    full = {k: loco(data, cfg, list(camps)) for k, cfg in CONFIGS.items()}
    best = choose({k: float(np.mean(list(r.values()))) for k, r in full.items()})
    cfg = CONFIGS[best]
    print(f"{'campaign':<14}{'learned':>9}" + "".join(f"{b:>9}" for b in BASELINES), flush=True)
    for c in camps:
        print(f"{c:<14}{held[c]['dec']:>9.3f}" + "".join(f"{base[b][c]['dec']:>9.3f}" for b in BASELINES))
    mean = float(np.mean([held[c]["dec"] for c in camps]))
    print(
        f"{'mean':<14}{mean:>9.3f}"
        + "".join(f"{np.nanmean([base[b][c]['dec'] for c in camps]):>9.3f}" for b in BASELINES)
    )
    its, X = data.train_set(list(camps), [], cfg.groups)
    signature = (
        f"model:learned-difficulty|data:{'+'.join(camps)}|n:{len(its)}|features:{'+'.join(cfg.groups)}|"
        f"target:rank-per-system|ridge:{cfg.alpha:g}/{cfg.alpha_e5:g}|version:{VERSION}"
    )
    meta = {
        "signature": signature,
        "version": VERSION,
        "config": asdict(cfg),
        "config_name": best,
        "syntax_langs": list(SYNTAX_LANGS),
        "n_train": len(its),
        "campaigns": [asdict(c) for c in CAMPAIGNS],
        "loco": {c: held[c] for c in camps},
        "loco_mean": mean,
        "loco_by_config": {k: {c: round(v, 4) for c, v in r.items()} for k, r in full.items()},
        "baselines": base,
        "trained": time.strftime("%Y-%m-%d"),
    }
    model = fit(cfg, X, its, meta)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model.save(out / "learned_difficulty.npz")
    (out / "learned_difficulty.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"saved {out / 'learned_difficulty.npz'}\n{signature}")


if __name__ == "__main__":
    main()
