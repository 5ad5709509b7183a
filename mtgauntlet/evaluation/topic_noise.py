"""The within-topic spread of item difficulty, estimated from real per-item human scores.

The bandit paper's simulation draws an item of topic t as N(mu_t, sigma^2) and estimates sigma^2 from its data
(the value is not printed). Here the estimate comes from WMT human judgments (``../shared/data/wmt23-mqm-mtme``):

- an item is a source segment, a topic is the document it comes from (``doc_id``; ``group="domain"``: its domain);
- an item's difficulty is 100 minus the mean human score (DA+SQM, 0-100) of a crowd of MT systems that all
  translated it, as a bandit pull scores a text with an artificial crowd (the paper: three MT models). With
  ``crowd=N`` the crowd is N systems drawn at random (``repeats`` draws, pooled); ``crowd=None`` uses every system;
- sigma is the pooled within-topic standard deviation: sqrt(sum over topics of (n_t - 1) s_t^2 / sum (n_t - 1)).
  Topics with one item add nothing. Human references (``is_human_ref``) are not in the crowd.
"""

from __future__ import annotations

import csv
import gzip
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np


def pooled_within_sd(groups: Iterable[Sequence[float]]) -> tuple[float, int]:
    """(pooled within-group sd, degrees of freedom) over groups of values; NaN with no group of two."""
    num, dof = 0.0, 0
    for g in groups:
        if len(g) > 1:
            num += float(np.var(g, ddof=1)) * (len(g) - 1)
            dof += len(g) - 1
    return (float(np.sqrt(num / dof)) if dof else float("nan")), dof


def read_mtme(path: str | Path, lps: Sequence[str] | None = None, score: str = "da_sqm") -> list[dict[str, Any]]:
    """The MT-system rows of a WMT mt-metrics-eval segment table that have ``score`` (human references left out)."""
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        rows = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [
            {**r, score: float(r[score])}
            for r in rows
            if (not lps or r["lp"] in lps)
            and r.get("is_human_ref") in ("0", "", None)
            and r.get(score) not in ("", "None", None)
        ]


def within_topic_sd(
    rows: Sequence[dict[str, Any]],
    *,
    score: str = "da_sqm",
    group: str = "doc_id",
    crowd: int | None = 3,
    repeats: int = 20,
    seed: int = 13,
) -> dict[str, Any]:
    """Pooled within-topic sd of item difficulty (100 - mean crowd score), per language pair pooled together."""
    by_lp: dict[str, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    topic: dict[tuple[str, str], str] = {}
    for r in rows:
        by_lp[r["lp"]][r["seg_id"]][r["system"]] = r[score]
        topic[(r["lp"], r["seg_id"])] = r[group]
    groups: list[list[float]] = []
    per_lp = {}
    for lp, segs in sorted(by_lp.items()):
        systems = sorted({s for v in segs.values() for s in v})
        lp_groups: list[list[float]] = []
        draws = (
            [systems]
            if crowd is None or crowd >= len(systems)
            else [random.Random(f"{seed}:{lp}:{i}").sample(systems, crowd) for i in range(repeats)]
        )
        for members in draws:
            by_topic: dict[str, list[float]] = defaultdict(list)
            for seg, scores in segs.items():
                if all(m in scores for m in members):
                    by_topic[topic[(lp, seg)]].append(100.0 - float(np.mean([scores[m] for m in members])))
            lp_groups += list(by_topic.values())
        per_lp[lp] = {"sigma": pooled_within_sd(lp_groups)[0], "systems": len(systems)}
        groups += lp_groups
    sigma, dof = pooled_within_sd(groups)
    return {
        "sigma": sigma,
        "dof": dof,
        "per_lp": per_lp,
        "score": score,
        "group": group,
        "crowd": crowd,
        "repeats": repeats if crowd else 1,
    }
