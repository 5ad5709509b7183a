"""The numbers behind the method plots: MT-breaker step curve, bandit search curve and top-k topics,
difficulty of a subset against its corpus."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import pyarrow as pa

from mtgauntlet.cards.audit.source import AuditSource


def mtbreaker(table: pa.Table) -> dict[str, Any] | None:
    """Step curve (mean and cumulative-minimum QE per step, paper Figure 2) and headline numbers per variant."""
    from mtgauntlet.evaluation.breaker_analysis import step_curve, summary

    if "trajectory" not in table.column_names:
        return None
    rows = [
        r
        for r in table.select(
            [c for c in ("method", "trajectory", "qe_score", "llm_failures") if c in table.column_names]
        ).to_pylist()
        if r.get("trajectory")
    ]
    if not rows:
        return None
    by_variant: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_variant[str(r.get("method") or "all")].append(r)
    return {"variants": {v: {"curve": step_curve(rs), "summary": summary(rs)} for v, rs in sorted(by_variant.items())}}


def bandit(pulls: pa.Table | None, records: pa.Table | None, k: int | None) -> dict[str, Any] | None:
    """Search curve from the pull log (each pull's difficulty; mean observed difficulty of the current top-k
    topics after each pull) and the topics ranked by mean observed difficulty, as the search ranks them."""
    if pulls is not None and pulls.num_rows:
        rows = sorted(
            (
                r
                for r in pulls.select(["step", "topic", "difficulty", "phase"]).to_pylist()
                if r["difficulty"] is not None
            ),
            key=lambda r: r["step"],
        )
        sums: dict[str, float] = defaultdict(float)
        counts: dict[str, int] = defaultdict(int)
        curve = []
        kk = k or 1
        for i, r in enumerate(rows, start=1):
            sums[r["topic"]] += r["difficulty"]
            counts[r["topic"]] += 1
            top = sorted(sums, key=lambda t: (-sums[t] / counts[t], t))[:kk]
            curve.append(
                {
                    "pull": i,
                    "difficulty": r["difficulty"],
                    "phase": r["phase"],
                    "top_k_mean": float(np.mean([sums[t] / counts[t] for t in top])),
                }
            )
        topics = [
            {"topic": t, "pulls": counts[t], "mean_difficulty": sums[t] / counts[t]}
            for t in sorted(sums, key=lambda t: (-sums[t] / counts[t], t))
        ]
        origin = "pull log"
    elif records is not None and "topic" in records.column_names and "difficulty" in records.column_names:
        per: dict[str, list[float]] = defaultdict(list)
        for t, d in zip(records.column("topic").to_pylist(), records.column("difficulty").to_pylist()):
            if d is not None:
                per[str(t)].append(float(d))
        topics = [
            {"topic": t, "pulls": len(v), "mean_difficulty": float(np.mean(v))}
            for t, v in sorted(per.items(), key=lambda kv: (-float(np.mean(kv[1])), kv[0]))
        ]
        curve, origin = [], "released texts (the pull log is not part of this path)"
    else:
        return None
    for i, t in enumerate(topics):
        t["top_k"] = k is None or i < k
    return {"k": k, "curve": curve, "topics": topics, "origin": origin}


def subset(table: pa.Table, corpus: pa.Table | None) -> dict[str, Any] | None:
    if "difficulty" not in table.column_names:
        return None
    chosen = [float(v) for v in table.column("difficulty").to_pylist() if v is not None]
    scored = (
        [float(v) for v in corpus.column("difficulty").to_pylist() if v is not None]
        if corpus is not None and "difficulty" in corpus.column_names
        else None
    )
    estimators = (
        sorted({str(e) for e in table.column("estimator").to_pylist()}) if "estimator" in table.column_names else []
    )
    return {"subset": chosen, "corpus": scored, "estimators": estimators}


def method_data(src: AuditSource) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "breaker_text" in src.tables:
        mb = mtbreaker(src.tables["breaker_text"])
        if mb:
            out["mtbreaker"] = mb
    if "topic_text" in src.tables or src.pulls is not None:
        k = src.build_config("bandit").get("k")
        bd = bandit(src.pulls, src.tables.get("topic_text"), int(k) if isinstance(k, (int, float)) else None)
        if bd:
            out["bandit"] = bd
    if "selected_text" in src.tables:
        sb = subset(src.tables["selected_text"], src.corpus)
        if sb:
            out["subset"] = sb
    return out
