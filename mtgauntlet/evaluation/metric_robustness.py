"""Metric robustness on (good, bad) challenge pairs: WMT-style Kendall-like tau and SMAUG's d (eq. 2).

tau = (Concordant - Discordant) / (Concordant + Discordant), where a pair is concordant when the metric
scores the good hypothesis strictly higher; **ties count as discordant** (as in the WMT challenge-set
evaluation). d = mean of (s_good - s_bad) over concordant pairs, on scores min-max normalised over all
good and bad scores of the set, so metrics with different ranges compare.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from mtgauntlet.errors import GauntletError


@dataclass
class PairSet:
    src: list[str]
    ref: list[str | None]
    good: list[str]
    bad: list[str]
    phenomenon: list[str]
    lp: list[str]
    src_lang: list[str]
    tgt_lang: list[str]
    extra: dict[str, list[Any]]


def tau_and_d(good: Sequence[float], bad: Sequence[float], lo: float, hi: float) -> tuple[float, float, int, int]:
    g, b = np.asarray(good, dtype=float), np.asarray(bad, dtype=float)
    conc = g > b
    n_c, n_d = int(conc.sum()), int((~conc).sum())
    tau = (n_c - n_d) / (n_c + n_d) if n_c + n_d else float("nan")
    span = (hi - lo) or 1.0
    d = float(((g[conc] - b[conc]) / span).mean()) if n_c else 0.0
    return tau, d, n_c, n_d


def load_pairs(path: str) -> PairSet:
    """A build/release dir or Parquet of smaug_pair records, a DEMETR JSONL, or an ACES TSV."""
    from pathlib import Path

    from mtgauntlet.corpora.formats import read_aces, read_demetr, sniff_named_format

    named, name = sniff_named_format(path), str(path)
    if named == "aces":
        rows = read_aces(path).rows
    elif named == "demetr" or name.endswith((".jsonl", ".jsonl.gz")):
        rows = read_demetr(path).rows
    elif name.endswith((".tsv", ".tsv.gz")):
        rows = read_aces(path).rows
    else:
        from mtgauntlet.records import load_records

        if not Path(path).exists():
            raise GauntletError(f"{path}: not found")
        rows = load_records(Path(path), kind="smaug_pair").to_pylist()
    if not rows:
        raise GauntletError(f"{path}: no challenge pairs")
    for key in ("good", "bad", "phenomenon"):
        if key not in rows[0]:
            raise GauntletError(f"{path}: records have no '{key}' field (need good/bad/phenomenon)")
    lp = [r.get("lp") or f"{r.get('src_lang')}-{r.get('tgt_lang')}" for r in rows]
    extra_keys = [k for k in rows[0] if k not in ("src", "ref", "good", "bad", "phenomenon", "lp")]
    return PairSet(src=[r.get("src") or "" for r in rows], ref=[r.get("ref") for r in rows],
                   good=[r["good"] for r in rows], bad=[r["bad"] for r in rows],
                   phenomenon=[r["phenomenon"] for r in rows], lp=lp,
                   src_lang=[r.get("src_lang") or l.split("-")[0] for r, l in zip(rows, lp)],
                   tgt_lang=[r.get("tgt_lang") or l.split("-")[-1] for r, l in zip(rows, lp)],
                   extra={k: [r.get(k) for r in rows] for k in extra_keys})


def filter_pairs(pairs: PairSet, lps: Sequence[str] | None = None, phenomena: Sequence[str] | None = None) -> PairSet:
    keep = [i for i, (lp, ph) in enumerate(zip(pairs.lp, pairs.phenomenon))
            if (not lps or lp in lps) and (not phenomena or ph in phenomena)]
    pick = lambda xs: [xs[i] for i in keep]  # noqa: E731
    return PairSet(pick(pairs.src), pick(pairs.ref), pick(pairs.good), pick(pairs.bad), pick(pairs.phenomenon),
                   pick(pairs.lp), pick(pairs.src_lang), pick(pairs.tgt_lang),
                   {k: pick(v) for k, v in pairs.extra.items()})


def score_pairs(pairs: PairSet, metric: str, skipped: dict[str, str] | None = None) -> tuple[list[float], list[float]]:
    """Scores of good and bad hypotheses under ``metric``: chrf, bleu, col:GOOD,BAD, or a QE spec.

    For a QE backend that cannot serve a language pair, that pair's scores are NaN and the reason is
    put in ``skipped`` (lp -> reason); :func:`evaluate` leaves NaN pairs out."""
    if metric in ("chrf", "bleu"):
        from sacrebleu.metrics import BLEU, CHRF

        if any(r is None or r == "" for r in pairs.ref):
            raise GauntletError(f"{metric} needs references; some pairs have none")
        m = CHRF() if metric == "chrf" else BLEU(effective_order=True)
        score = lambda h, r: m.sentence_score(h, [r]).score  # noqa: E731
        return ([score(h, r) for h, r in zip(pairs.good, pairs.ref)],
                [score(h, r) for h, r in zip(pairs.bad, pairs.ref)])
    if metric.startswith("col:"):
        gcol, _, bcol = metric[4:].partition(",")
        if gcol not in pairs.extra or bcol not in pairs.extra:
            raise GauntletError(f"columns {gcol!r}/{bcol!r} not in the set (have: {', '.join(pairs.extra)})")
        return [float(x) for x in pairs.extra[gcol]], [float(x) for x in pairs.extra[bcol]]
    from mtgauntlet.models import registry

    from mtgauntlet.errors import BackendUnavailable

    qe = registry.load("qe", metric)
    good, bad = [float("nan")] * len(pairs.good), [float("nan")] * len(pairs.bad)
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (s, t) in enumerate(zip(pairs.src_lang, pairs.tgt_lang)):
        groups.setdefault((s, t), []).append(i)
    for (sl, tl), idx in groups.items():
        srcs = [pairs.src[i] for i in idx]
        try:
            gs = qe.score(srcs, [pairs.good[i] for i in idx], sl, tl)
            bs = qe.score(srcs, [pairs.bad[i] for i in idx], sl, tl)
        except BackendUnavailable as exc:
            if skipped is not None:
                skipped[f"{sl}-{tl}"] = str(exc)
            continue
        for i, g, b in zip(idx, gs, bs):
            good[i], bad[i] = g, b
    return good, bad


def evaluate(pairs: PairSet, good: Sequence[float], bad: Sequence[float]) -> list[dict[str, Any]]:
    """Per (phenomenon, lp) and overall per lp: n, tau, d, concordant, discordant."""
    allv = np.concatenate([np.asarray(good, float), np.asarray(bad, float)])
    if np.isnan(allv).all():
        return []
    lo, hi = float(np.nanmin(allv)), float(np.nanmax(allv))
    keys: dict[tuple[str, str], list[int]] = {}
    for i, (ph, lp) in enumerate(zip(pairs.phenomenon, pairs.lp)):
        if np.isnan(good[i]) or np.isnan(bad[i]):
            continue
        keys.setdefault((ph, lp), []).append(i)
        keys.setdefault(("all", lp), []).append(i)
    out = []
    for (ph, lp), idx in sorted(keys.items(), key=lambda kv: (kv[0][1], kv[0][0] == "all", kv[0][0])):
        tau, d, c, dis = tau_and_d([good[i] for i in idx], [bad[i] for i in idx], lo, hi)
        out.append({"phenomenon": ph, "lp": lp, "n": len(idx), "tau": tau, "d": d, "concordant": c,
                    "discordant": dis})
    return out
