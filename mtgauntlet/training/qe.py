"""Train the combination weights of the shipped QE (`qe`) — reproducible, offline.

    python -m mtgauntlet.training.qe --shared ../shared/data [--per-lp 100] [--n 300]

Data, as pairs "the first translation is better than the second":
1. human judgments: the campaigns of mtgauntlet.training.campaigns that store translations (all but
   gmqm-news20); per (campaign, language pair) up to ``--per-lp`` sources (a fixed hash order, so the
   campaigns that share WMT23 sources pick the same ones) with every system's translation. Two kinds of
   pairs: *within-source* pairs (two systems' translations of one source whose human scores differ) and
   *segment* pairs (drawn uniformly among the rows of one (campaign, lp) whose scores differ — what
   segment-level Kendall tau counts);
2. critical errors: FLORES-200 devtest es->en and en->es, the human reference against this project's
   SMAUG perturbation of it (model-free: entity swap, number change, negation, clause insertion, span
   deletion).
The model is fitted in two stages, pairwise logistic on standardised signal differences both times:
(a) the *translation evidence* — every signal but the source prior — from the within-source human pairs
together with the critical-error pairs, which weigh ``lambda`` (> 0: they always take part) times the
human pairs in total. Both kinds compare translations of one source, so what a source's content does to a
signal (a technical source gets a lower LM likelihood whatever the translation) cannot pull on the
weights; (b) two numbers from the segment pairs: the weight of that evidence as one score and the weight
of the source prior ``src_quality`` (a hard source gets a lower score). ``src_quality`` of a human row is
the prediction of a difficulty model trained without that row's campaign (the shipped ``learned``
recipe). Stage (b) never turns the evidence around (its weight stays >= 0).
Every signal of `qe` is computed for every row, the LM likelihood of the translation too.
Selection: ``lambda`` and the penalty are chosen by leave-one-campaign-out on the human judgments (mean
segment tau_b of the held-out campaign, per lp then averaged), among the settings whose accuracy on
held-out critical-error pairs (FLORES sentences not used for training) stays within 0.01 of the
critical-error-only model (if none does, the setting that keeps them best). DEMETR is never used here:
it stays a held-out test (benchmarks/qe.py).
The logit is then centred and scaled (one standard deviation over the training translations = 1 logit
unit), so scores spread over 0..100; they rank like the model and are not probabilities.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from mtgauntlet.evaluation.dec import kendall_tau_b
from mtgauntlet.models.features import LinearModel
from mtgauntlet.models.shipped_qe import SIGNALS, ShippedQE
from mtgauntlet.training.campaigns import load_campaigns
from mtgauntlet.training.qe_data import SignalStore, critical_pairs, human_sample, human_signals, loco_src_quality

VERSION = "3"
LAMBDAS = (0.1, 0.3, 1.0, 3.0, 10.0)  # > 0: the critical-error pairs always take part
L2S = (1.0, 10.0)


# -- model ----------------------------------------------------------------------------------------------
def human_pairs(rows: list[dict], n_per_lp: int, rng: np.random.Generator) -> np.ndarray:
    """Index pairs (better, worse) drawn uniformly within each lp among rows with different scores."""
    by: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by[r["lp"]].append(i)
    out = []
    for members in by.values():
        idx = np.array(members)
        a, b = rng.choice(idx, n_per_lp), rng.choice(idx, n_per_lp)
        sa, sb = np.array([rows[i]["score"] for i in a]), np.array([rows[i]["score"] for i in b])
        keep = sa != sb
        out.append(np.stack([np.where(sa > sb, a, b)[keep], np.where(sa > sb, b, a)[keep]], axis=1))
    return np.vstack(out) if out else np.zeros((0, 2), dtype=int)


def fit_pairwise_logistic(D: np.ndarray, weights: np.ndarray, l2: float, iters: int = 100) -> np.ndarray:
    """w maximising sum_i weights_i log sigmoid(w.d_i) - l2/2 |w|^2 (Newton's method)."""
    w = np.zeros(D.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(D @ w)))
        grad = D.T @ (weights * (1 - p)) - l2 * w
        H = -(D.T * (weights * p * (1 - p))) @ D - l2 * np.eye(D.shape[1])
        step = np.linalg.solve(H, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def standardiser(X: np.ndarray) -> LinearModel:
    mean, std = np.nanmean(X, 0), np.nanstd(X, 0)
    mean = np.where(np.isnan(mean), 0.0, mean)
    std = np.where(~np.isfinite(std) | (std == 0), 1.0, std)
    return LinearModel(mean, std, np.zeros(X.shape[1]), 0.0, list(SIGNALS), {})


def within_source_pairs(rows: list[dict], n_per_lp: int, rng: np.random.Generator) -> np.ndarray:
    """Index pairs (better, worse) of two translations of one source (uniform over the sources of each lp
    that have two different scores)."""
    by: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for i, r in enumerate(rows):
        by[r["lp"]][str(r["item_id"])].append(i)
    out = []
    for srcs in by.values():
        groups = [np.array(v) for v in srcs.values() if len({rows[i]["score"] for i in v}) > 1]
        if not groups:
            continue
        for g in rng.integers(0, len(groups), n_per_lp):
            a, b = rng.choice(groups[g], 2, replace=False)
            if rows[a]["score"] != rows[b]["score"]:
                out.append((a, b) if rows[a]["score"] > rows[b]["score"] else (b, a))
    return np.array(out, dtype=int).reshape(-1, 2)


def without_lm(X: np.ndarray) -> np.ndarray:
    """Signal rows as ``qe#fast`` scores them: the LM column NaN, i.e. imputed at the training mean."""
    X = X.copy()
    X[:, SIGNALS.index("lm")] = np.nan
    return X


def _diffs(std: LinearModel, Xh: list[np.ndarray], pairs_h: list[np.ndarray]) -> np.ndarray:
    Ds = [std.transform(X[p[:, 0]]) - std.transform(X[p[:, 1]]) for X, p in zip(Xh, pairs_h) if len(p)]
    return np.vstack(Ds) if Ds else np.zeros((0, len(SIGNALS)))


def train(
    Xh: list[np.ndarray],
    pairs_h: list[np.ndarray],
    within_h: list[np.ndarray],
    G: np.ndarray,
    B: np.ndarray,
    lam: float,
    l2: float,
    std: LinearModel,
) -> np.ndarray:
    """Weights over standardised signals (two stages, see the module doc): human campaigns ``Xh`` with their
    segment pairs ``pairs_h`` and within-source pairs ``within_h``; critical pairs (G better than B)."""
    src = SIGNALS.index("src_quality")
    Dh, Dc = _diffs(std, Xh, within_h), std.transform(G) - std.transform(B)
    if not len(Dh):
        D, w = Dc, np.ones(len(Dc))
    else:
        D = np.vstack([Dh, Dc])
        w = np.concatenate([np.ones(len(Dh)), np.full(len(Dc), lam * len(Dh) / len(Dc))])
    w = w * len(w) / w.sum()
    evidence = fit_pairwise_logistic(D, w, l2)
    evidence[src] = 0.0  # equal within a source: the prior is weighed in stage (b)
    F = [np.stack([Z @ evidence, Z[:, src]], axis=1) for Z in map(std.transform, Xh)]
    Ds = [f[p[:, 0]] - f[p[:, 1]] for f, p in zip(F, pairs_h) if len(p)]
    if not Ds:
        return evidence
    stacked = np.vstack(Ds)
    a, b = fit_pairwise_logistic(stacked, np.ones(len(stacked)), 1.0)
    out = max(a, 0.0) * evidence
    out[src] = b
    return out


def segment_tau(rows: list[dict], scores: np.ndarray) -> tuple[float, float]:
    """(segment-level tau_b per lp, averaged; mean within-source tau_b)."""
    by: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by[r["lp"]].append(i)
    seg = [kendall_tau_b(scores[idx], [rows[i]["score"] for i in idx]) for idx in by.values()]
    src: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        src[(r["lp"], r["item_id"])].append(i)
    within = [kendall_tau_b(scores[idx], [rows[i]["score"] for i in idx]) for idx in src.values() if len(idx) > 2]
    return float(np.nanmean(seg)), float(np.nanmean(within))


class Experiment:
    """Signals, pairs and the critical-error sets of one training run; fits and scores settings."""

    def __init__(
        self, Xh: dict[str, np.ndarray], sample: dict[str, list[dict]], G, B, Gv, Bv, pairs_per_lp: int, seed: int = 13
    ):
        self.Xh, self.sample, self.G, self.B, self.Gv, self.Bv = Xh, sample, G, B, Gv, Bv
        self.std = standardiser(np.vstack(list(Xh.values()) + [G, B]))
        rng = np.random.default_rng(seed)
        self.pairs = {c: human_pairs(sample[c], pairs_per_lp, rng) for c in sample}
        self.within = {c: within_source_pairs(sample[c], pairs_per_lp, rng) for c in sample}
        self.settings = [(lam, l2) for lam in LAMBDAS for l2 in L2S]

    def fit(self, campaigns: list[str], setting) -> np.ndarray:
        lam, l2 = setting
        return train(
            [self.Xh[c] for c in campaigns],
            [self.pairs[c] for c in campaigns],
            [self.within[c] for c in campaigns],
            self.G,
            self.B,
            lam,
            l2,
            self.std,
        )

    def critical_acc(self, w: np.ndarray) -> float:
        return float(np.mean((self.std.transform(self.Gv) - self.std.transform(self.Bv)) @ w > 0))

    def taus(self, c: str, w: np.ndarray, fast: bool = False) -> tuple[float, float]:
        """(segment tau_b, within-source tau_b) of held-out ``c``; ``fast``: as ``qe#fast`` scores, without the LM."""
        X = without_lm(self.Xh[c]) if fast else self.Xh[c]
        return segment_tau(self.sample[c], self.std.transform(X) @ w)

    def choose(self, campaigns: list[str]) -> tuple:
        """The setting with the best mean LOCO segment tau over ``campaigns`` among those that keep the
        accuracy on held-out critical errors within 0.01 of the critical-error-only model."""
        floor = self.critical_acc(self.fit([], (1.0, 1.0))) - 0.01
        acc = {st: self.critical_acc(self.fit(campaigns, st)) for st in self.settings}
        ok = [st for st in self.settings if acc[st] >= floor]
        if not ok:  # none keeps the critical errors: the one that keeps them best
            return max(self.settings, key=lambda st: acc[st])
        scores = {
            st: float(np.mean([self.taus(c, self.fit([x for x in campaigns if x != c], st))[0] for c in campaigns]))
            for st in ok
        }
        return max(scores, key=lambda st: scores[st])

    def nested_loco(self) -> dict[str, dict]:
        out = {}
        for c in self.sample:
            rest = [x for x in self.sample if x != c]
            st = self.choose(rest)
            w = self.fit(rest, st)
            seg, within = self.taus(c, w)
            fast = self.taus(c, w, fast=True)
            out[c] = {
                "segment_tau": seg,
                "within_source_tau": within,
                "fast_segment_tau": fast[0],
                "fast_within_source_tau": fast[1],
                "lambda": st[0],
                "l2": st[1],
                "critical_val_acc": self.critical_acc(w),
            }
            print(
                f"  held out {c}: segment tau_b {seg:+.3f}, within-source {within:+.3f}; qe#fast {fast[0]:+.3f} "
                f"({fast[1]:+.3f}) (lambda {st[0]:g}, l2 {st[1]:g})",
                flush=True,
            )
        return out


def load_experiment(shared: Path, per_lp: int, n: int, pairs: int, cache: Path, difficulty_cache: Path) -> Experiment:
    store = SignalStore(cache)
    print(
        "critical-error pairs (FLORES es<->en; the last third of the sources of each direction validates)", flush=True
    )
    qe_lm = ShippedQE("", model_path="/nonexistent")
    G, B, Gv, Bv = [], [], [], []
    for src, tgt, offset in (("es", "en", 0), ("en", "es", 500)):
        trip = critical_pairs(shared, src, tgt, n, offset)
        g = store.get(qe_lm, [t[0] for t in trip], [t[1] for t in trip], src, tgt, "critical")
        b = store.get(qe_lm, [t[0] for t in trip], [t[2] for t in trip], src, tgt, "critical")
        order = {s: i for i, s in enumerate(dict.fromkeys(t[0] for t in trip))}
        val = np.array([order[t[0]] >= 2 * len(order) // 3 for t in trip])
        G.append(g[~val])
        B.append(b[~val])
        Gv.append(g[val])
        Bv.append(b[val])
    print("human judgments", flush=True)
    sample = human_sample(load_campaigns(shared), per_lp)
    Xh = human_signals(sample, store, difficulty_cache)
    q = loco_src_quality(shared, sample, difficulty_cache)
    for c in Xh:
        Xh[c][:, SIGNALS.index("src_quality")] = q[c]
    return Experiment(Xh, sample, np.vstack(G), np.vstack(B), np.vstack(Gv), np.vstack(Bv), pairs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default="../shared/data")
    ap.add_argument("--per-lp", type=int, default=100, help="sources per (campaign, lp) from the judgments")
    ap.add_argument("--n", type=int, default=300, help="FLORES sentences per direction for critical errors")
    ap.add_argument("--pairs", type=int, default=20000, help="human pairs drawn per (campaign, lp)")
    ap.add_argument("--cache", default="/tmp/mtgauntlet-qe-signals.npz", help="signal cache (re-runs are fast)")
    ap.add_argument("--difficulty-cache", default="/tmp/mtgauntlet-difficulty-features")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "data" / "models"))
    args = ap.parse_args()
    ex = load_experiment(
        Path(args.shared), args.per_lp, args.n, args.pairs, Path(args.cache), Path(args.difficulty_cache)
    )
    print("nested leave-one-campaign-out on the judgments:", flush=True)
    held = ex.nested_loco()
    names = list(ex.sample)
    lam, l2 = ex.choose(names)
    G, B, std = np.vstack([ex.G, ex.Gv]), np.vstack([ex.B, ex.Bv]), ex.std
    w = train(
        [ex.Xh[c] for c in names], [ex.pairs[c] for c in names], [ex.within[c] for c in names], G, B, lam, l2, std
    )
    Xh = ex.Xh
    # scale: centre the logits on the training translations and put one standard deviation at 1 logit unit
    allz = np.concatenate([std.transform(X) @ w for X in Xh.values()] + [std.transform(G) @ w, std.transform(B) @ w])
    mid, scale = float(allz.mean()), float(allz.std()) or 1.0
    w, b = w / scale, -mid / scale
    used = [n for n, wi in zip(SIGNALS, w) if abs(wi) > 1e-9]
    signature = (
        f"model:qe|data:{'+'.join(names)}(per-lp:{args.per_lp})+flores-smaug-es-en+en-es|"
        f"pairs:within+critical(lambda:{lam:g})>segment|l2:{l2:g}|signals:{'+'.join(used)}|version:{VERSION}"
    )
    meta = {
        "signature": signature,
        "version": VERSION,
        "weights": dict(zip(SIGNALS, map(float, w))),
        "intercept": b,
        "lambda": lam,
        "l2": l2,
        "per_lp": args.per_lp,
        "loco": held,
        "loco_mean_segment_tau": float(np.mean([v["segment_tau"] for v in held.values()])),
        "trained": time.strftime("%Y-%m-%d"),
    }
    model = LinearModel(std.mean, std.std, w, b, list(SIGNALS), meta)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model.save(out / "qe.npz")
    (out / "qe.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(meta, indent=2))


if __name__ == "__main__":
    main()
