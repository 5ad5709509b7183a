"""Metric robustness on (good, bad) challenge pairs: WMT-style Kendall-like tau and SMAUG's d (eq. 2).

tau = (Concordant - Discordant) / (Concordant + Discordant), where a pair is concordant when the metric
scores the good hypothesis strictly higher. Ties (``ties``): ``discordant`` counts them as discordant, as
the WMT challenge-set evaluation does (the default); ``ignore`` leaves them out of both counts, as the
SMAUG paper's eq. 1 is written. d = mean of (s_good - s_bad) over concordant pairs, on scores min-max
normalised over all good and bad scores of the set, so metrics with different ranges compare. With no
concordant pair d is undefined (0/0 in eq. 2): it is missing (None), never 0.

Aggregates of the SMAUG paper's figures: per metric and phenomenon, mean and standard deviation of tau
over language pairs (Figures 4-7), and the Pearson correlation of tau and d over (metric, language pair)
points, each the mean over phenomena (Figure 8): tau over all phenomena, d over those where it is defined (an
undefined d leaves only the d mean, never the tau mean); both term counts are reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mtgauntlet.core import progress
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


TIES = ("discordant", "ignore")


def tau_and_d(
    good: Sequence[float] | np.ndarray,
    bad: Sequence[float] | np.ndarray,
    lo: float,
    hi: float,
    ties: str = "discordant",
) -> tuple[float, float, int, int]:
    """(tau, d, concordant, discordant); with ``ties="ignore"`` tied pairs are in neither count. tau is NaN
    without a counted pair, d is NaN without a concordant pair (both undefined there)."""
    if ties not in TIES:
        raise GauntletError(f"ties must be one of {', '.join(TIES)}, not {ties!r}")
    g, b = np.asarray(good, dtype=float), np.asarray(bad, dtype=float)
    conc = g > b
    n_c = int(conc.sum())
    n_d = int((g < b).sum()) if ties == "ignore" else int((~conc).sum())
    tau = (n_c - n_d) / (n_c + n_d) if n_c + n_d else float("nan")
    span = (hi - lo) or 1.0
    d = float(((g[conc] - b[conc]) / span).mean()) if n_c else float("nan")
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
    return pairs_of(rows, str(path))


def pairs_of(rows: list[dict], path: str) -> PairSet:
    """The pairs of challenge rows (good, bad, phenomenon; src, ref, lp or src_lang/tgt_lang when there) read
    from ``path`` (or, from Python, a table named so)."""
    if not rows:
        raise GauntletError(f"{path}: no challenge pairs")
    for key in ("good", "bad", "phenomenon"):
        if key not in rows[0]:
            raise GauntletError(f"{path}: records have no '{key}' field (need good/bad/phenomenon)")
    lp = [r.get("lp") or f"{r.get('src_lang')}-{r.get('tgt_lang')}" for r in rows]
    extra_keys = [k for k in rows[0] if k not in ("src", "ref", "good", "bad", "phenomenon", "lp")]
    return PairSet(
        src=[r.get("src") or "" for r in rows],
        ref=[r.get("ref") for r in rows],
        good=[r["good"] for r in rows],
        bad=[r["bad"] for r in rows],
        phenomenon=[r["phenomenon"] for r in rows],
        lp=lp,
        src_lang=[r.get("src_lang") or pair.split("-")[0] for r, pair in zip(rows, lp)],
        tgt_lang=[r.get("tgt_lang") or pair.split("-")[-1] for r, pair in zip(rows, lp)],
        extra={k: [r.get(k) for r in rows] for k in extra_keys},
    )


def filter_pairs(pairs: PairSet, lps: Sequence[str] | None = None, phenomena: Sequence[str] | None = None) -> PairSet:
    keep = [
        i
        for i, (lp, ph) in enumerate(zip(pairs.lp, pairs.phenomenon))
        if (not lps or lp in lps) and (not phenomena or ph in phenomena)
    ]
    pick = lambda xs: [xs[i] for i in keep]  # noqa: E731
    return PairSet(
        pick(pairs.src),
        pick(pairs.ref),
        pick(pairs.good),
        pick(pairs.bad),
        pick(pairs.phenomenon),
        pick(pairs.lp),
        pick(pairs.src_lang),
        pick(pairs.tgt_lang),
        {k: pick(v) for k, v in pairs.extra.items()},
    )


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
        return (
            [score(h, r) for h, r in zip(pairs.good, pairs.ref)],
            [score(h, r) for h, r in zip(pairs.bad, pairs.ref)],
        )
    if metric.startswith("col:"):
        gcol, _, bcol = metric[4:].partition(",")
        if gcol not in pairs.extra or bcol not in pairs.extra:
            raise GauntletError(f"columns {gcol!r}/{bcol!r} not in the set (have: {', '.join(pairs.extra)})")
        return [float(x) for x in pairs.extra[gcol]], [float(x) for x in pairs.extra[bcol]]
    from mtgauntlet.errors import BackendUnavailable
    from mtgauntlet.models.qe_ensemble import load_qe

    qe = load_qe(metric)
    good, bad = [float("nan")] * len(pairs.good), [float("nan")] * len(pairs.bad)
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (s, t) in enumerate(zip(pairs.src_lang, pairs.tgt_lang)):
        groups.setdefault((s, t), []).append(i)
    done = 0
    for (sl, tl), idx in groups.items():
        srcs = [pairs.src[i] for i in idx]
        try:
            gs = qe.score(srcs, [pairs.good[i] for i in idx], sl, tl)
            progress.step(2 * done + len(idx), 2 * len(pairs.good))  # the good side of this language pair
            bs = qe.score(srcs, [pairs.bad[i] for i in idx], sl, tl)
        except BackendUnavailable as exc:
            if skipped is not None:
                skipped[f"{sl}-{tl}"] = str(exc)
            continue
        finally:
            done += len(idx)
            progress.step(2 * done, 2 * len(pairs.good))
        for i, g, b in zip(idx, gs, bs):  # a failed score (None) stays NaN: the pair is left out
            good[i] = float("nan") if g is None else g
            bad[i] = float("nan") if b is None else b
    return good, bad


def evaluate(
    pairs: PairSet, good: Sequence[float], bad: Sequence[float], ties: str = "discordant"
) -> list[dict[str, Any]]:
    """Per (phenomenon, lp) and overall per lp: n, tau, d, concordant, discordant, ties."""
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
        g, b = [good[i] for i in idx], [bad[i] for i in idx]
        tau, d, c, dis = tau_and_d(g, b, lo, hi, ties)
        out.append(
            {
                "phenomenon": ph,
                "lp": lp,
                "n": len(idx),
                "tau": _defined(tau),
                "d": _defined(d),
                "concordant": c,
                "discordant": dis,
                "ties": int(sum(x == y for x, y in zip(g, b))),
            }
        )
    return out


def _defined(x: float) -> float | None:
    """NaN (an undefined tau or d) as None, so that JSON output says null and no mean takes it as a number."""
    return None if x != x else float(x)


def _mean_std(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    v = [x for x in values if x is not None and x == x]
    if not v:
        return None, None
    return float(np.mean(v)), (float(np.std(v, ddof=1)) if len(v) > 1 else None)


def tau_over_lps(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (metric, phenomenon): mean and sample standard deviation (ddof=1; None with one lp) of tau over
    language pairs, and mean d — the bars and black error bars of the SMAUG paper's Figures 4-7."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in results:
        groups.setdefault((r.get("metric", ""), r["phenomenon"]), []).append(r)
    out = []
    for (metric, ph), rows in groups.items():
        mean, std = _mean_std([r["tau"] for r in rows])
        out.append(
            {
                "metric": metric,
                "phenomenon": ph,
                "lps": len(rows),
                "tau_mean": mean,
                "tau_std": std,
                "d_mean": _mean_std([r["d"] for r in rows])[0],
            }
        )
    return out


def tau_d_correlation(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Pearson r between tau and d over (metric, lp) points (the SMAUG paper's Figure 8: r = 0.8924 over the WMT22
    metrics). A point's tau is the mean over all of that lp's phenomena, its d the mean over the phenomena whose d
    is defined: a phenomenon without a concordant pair (d is 0/0) stays in the tau mean (a tau of -1 pulls the
    point down) and leaves only the d mean. Each point has ``n_tau`` and ``n_d`` (its terms); ``tau_terms`` and
    ``d_terms`` are their sums, ``left_out`` counts the undefined d terms (and ``tau_left_out`` the undefined
    taus: no counted pair). A point with no defined d has ``d`` None and is not in r; r is None with fewer than 3
    points that have both."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in results:
        if r["phenomenon"] != "all":
            groups.setdefault((r.get("metric", ""), r["lp"]), []).append(r)
    points: list[dict[str, Any]] = []
    for (m, lp), rows in sorted(groups.items()):
        taus = [r["tau"] for r in rows if r["tau"] is not None]
        ds = [r["d"] for r in rows if r["d"] is not None]
        points.append(
            {
                "metric": m,
                "lp": lp,
                "tau": float(np.mean(taus)) if taus else None,
                "d": float(np.mean(ds)) if ds else None,
                "n_tau": len(taus),
                "n_d": len(ds),
                "n_phenomena": len(rows),
            }
        )
    both = [p for p in points if p["tau"] is not None and p["d"] is not None]
    pearson = None
    if len(both) >= 3:
        t, d = np.array([p["tau"] for p in both]), np.array([p["d"] for p in both])
        pearson = float(np.corrcoef(t, d)[0, 1]) if t.std() > 0 and d.std() > 0 else None
    phenomena = sum(p["n_phenomena"] for p in points)
    tau_terms, d_terms = sum(p["n_tau"] for p in points), sum(p["n_d"] for p in points)
    return {
        "pearson_r": pearson,
        "n_points": len(both),
        "points": points,
        "tau_terms": tau_terms,
        "d_terms": d_terms,
        "left_out": phenomena - d_terms,
        "tau_left_out": phenomena - tau_terms,
    }
