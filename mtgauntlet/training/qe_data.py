"""The data of the shipped QE's training (:mod:`mtgauntlet.training.qe`): the sample of human judgments, the
FLORES critical-error pairs (reference against its SMAUG perturbation), and every row's QE signals, cached on
disk, with each sampled source's quality predicted by the difficulty model trained without its campaign."""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from mtgauntlet.corpora.langs import split_lp
from mtgauntlet.models.shipped_qe import SIGNALS, ShippedQE
from mtgauntlet.training.campaigns import load_campaigns, source_key


def human_sample(camps: dict[str, list[dict]], per_lp: int) -> dict[str, list[dict]]:
    out = {}
    for c, rows in camps.items():
        by: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
        for r in rows:
            if r["tgt"]:
                by[r["lp"]][source_key(r["src"])].append(r)
        sel = []
        for lp in sorted(by):
            keys = sorted(by[lp], key=lambda s: hashlib.sha1(s.encode()).hexdigest())[:per_lp]
            sel += [r for k in keys for r in by[lp][k]]
        if sel:
            out[c] = sel
    return out


def critical_pairs(shared: Path, src: str, tgt: str, n: int, offset: int) -> list[tuple[str, str, str]]:
    """(source, reference, perturbed reference) from FLORES devtest rows [offset, offset + n)."""
    from mtgauntlet.builders.base import iter_items
    from mtgauntlet.builders.options.smaug import SmaugOptions
    from mtgauntlet.builders.smaug import SmaugBuilder
    from mtgauntlet.core.builds import item_rng
    from mtgauntlet.corpora.formats import read_flores
    from mtgauntlet.options import options_of

    rows = read_flores(shared / "flores200-devtest/flores200_devtest.tsv.gz", src=src, tgt=tgt).rows[
        offset : offset + n
    ]
    # the good hypothesis (Apertium) is not used: the pair is (reference, perturbed reference)
    builder = SmaugBuilder(options_of(SmaugOptions, src_lang=src, tgt_lang=tgt, translator="apertium"))
    items = iter_items(rows)
    builder.prepare(items)
    results = builder.process_batch(items, [item_rng(13, it.index) for it in items])
    return [(r["src"], r["ref"], r["bad"]) for res in results for r in res.records]


class SignalStore:
    """QE signal rows cached on disk, keyed by languages, source and translation (features cost minutes)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.data = dict(np.load(self.path)) if self.path.exists() else {}

    def get(self, qe: ShippedQE, srcs: list[str], hyps: list[str], sl: str, tl: str, tag: str) -> np.ndarray:
        keys = [hashlib.sha1(f"{tag}\t{sl}\t{tl}\t{s}\t{h}".encode()).hexdigest() for s, h in zip(srcs, hyps)]
        todo = [i for i, k in enumerate(keys) if k not in self.data]
        for a in range(0, len(todo), 400):
            part = todo[a : a + 400]
            t0 = time.time()
            X = qe.features([srcs[i] for i in part], [hyps[i] for i in part], sl, tl)
            self.data.update({keys[i]: x for i, x in zip(part, X)})
            self.path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(self.path, **self.data)
            print(
                f"  {tag} {sl}-{tl}: signals of {a + len(part)}/{len(todo)} rows in {time.time() - t0:.0f} s",
                flush=True,
            )
        return np.vstack([self.data[k] for k in keys]) if keys else np.zeros((0, len(SIGNALS)))


def prefill_embeddings(pairs: list[tuple[str, str]], folder: Path) -> None:
    """Put e5 vectors cached by the difficulty training (keyed by language + text) into the embedder's memo."""
    from mtgauntlet.models import registry
    from mtgauntlet.training.difficulty import FeatureStore

    cached = FeatureStore(folder)._group("e5")
    emb = registry.load("embedder", "e5")
    memo = getattr(emb, "_memo", None)
    if memo is None or not cached:
        return
    for lang, text in pairs:
        v = cached.get(hashlib.sha1(f"{lang}\t{text}".encode()).hexdigest())
        if v is not None and len(memo) < emb.MEMO_LIMIT:
            memo[text] = np.asarray(v, dtype=np.float32)


def human_signals(
    sample: dict[str, list[dict]], store: SignalStore, e5_cache: Path | None = None
) -> dict[str, np.ndarray]:
    # the full signal set, the LM likelihood included (as `qe` scores; `qe#fast` leaves it out)
    qe = ShippedQE("", model_path="/nonexistent")
    if e5_cache is not None:
        texts = [(split_lp(r["lp"])[0], r["src"]) for rows in sample.values() for r in rows]
        texts += [(split_lp(r["lp"])[1], r["tgt"]) for rows in sample.values() for r in rows]
        prefill_embeddings(list(dict.fromkeys(texts)), e5_cache)
    out = {}
    for c, rows in sample.items():
        X = np.zeros((len(rows), len(SIGNALS)))
        by: dict[str, list[int]] = defaultdict(list)
        for i, r in enumerate(rows):
            by[r["lp"]].append(i)
        for lp, idx in by.items():
            sl, tl = split_lp(lp)
            X[idx] = store.get(qe, [rows[i]["src"] for i in idx], [rows[i]["tgt"] for i in idx], sl, tl, "human+lm")
        out[c] = X
    return out


def loco_src_quality(shared: Path, sample: dict[str, list[dict]], cache: Path) -> dict[str, np.ndarray]:
    """Per sampled row: the quality of its source predicted by the `learned` recipe trained without its campaign."""
    from mtgauntlet.models.difficulty import LearnedDifficulty
    from mtgauntlet.training import difficulty as D

    fields: dict[str, Any] = {
        k: tuple(v) if k == "groups" else v for k, v in LearnedDifficulty().model.meta["config"].items()
    }
    cfg = D.Config(**fields)
    camps = load_campaigns(shared)
    data = D.Data(camps, D.FeatureStore(cache))
    out = {}
    for c, rows in sample.items():
        its, X = data.train_set([x for x in camps if x != c], [c], cfg.groups)
        model = D.fit(cfg, X, its)
        items = [D.Item(c, r["lp"], r["item_id"], r["src"], 0.0) for r in rows]
        out[c] = model.predict(D.design(items, data.store, cfg.groups))
    return out
