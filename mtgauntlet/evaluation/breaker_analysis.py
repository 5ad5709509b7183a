"""Analysis of MT-breaker trajectories: the step curve (paper Figure 2) and the transfer matrix (Table 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np


def step_curve(records: Sequence[dict[str, Any]]) -> list[dict[str, float]]:
    """Per step: mean QE over items, and mean of the cumulative-minimum QE up to that step."""
    max_step = max((s["step"] for r in records for s in (r.get("trajectory") or [])), default=-1)
    rows = []
    for step in range(max_step + 1):
        cur, cummin = [], []
        for r in records:
            traj = [s for s in (r.get("trajectory") or []) if s["step"] <= step]
            if not traj:
                continue
            at = [s for s in traj if s["step"] == step]
            if at:
                cur.append(at[0]["qe_mean"])
            cummin.append(min(s["qe_mean"] for s in traj))
        rows.append({"step": step, "mean_qe": float(np.mean(cur)) if cur else float("nan"),
                     "cummin_qe": float(np.mean(cummin)) if cummin else float("nan"), "items": len(cur)})
    return rows


def summary(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Headline numbers of a set. With seeds, the selected text can never score above its seed (the seed is
    step 0 of the trajectory and takes part in the selection), so the seed-vs-final gap alone overstates what
    the editor did; ``items_improved`` and ``edit_mean_qe`` say whether its edits themselves were harder."""
    starts = [r["trajectory"][0]["qe_mean"] for r in records if r.get("trajectory")]
    edits = [s["qe_mean"] for r in records for s in (r.get("trajectory") or []) if s["step"] > 0]
    improved = [r for r in records if r.get("trajectory") and r["qe_score"] < r["trajectory"][0]["qe_mean"]]
    return {
        "items": len(records),
        "start_mean_qe": float(np.mean(starts)) if starts else None,
        "final_mean_qe": float(np.mean([r["qe_score"] for r in records])) if records else None,
        "items_improved": len(improved),
        "edit_steps": len(edits),
        "edit_mean_qe": float(np.mean(edits)) if edits else None,
        "llm_failures": int(sum(r.get("llm_failures") or 0 for r in records)),
    }


def plot_step_curve(curve: Sequence[dict[str, float]], path: str | Path, title: str = "MT-breaker") -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [c["step"] for c in curve]
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    ax.plot(steps, [c["mean_qe"] for c in curve], marker="o", label="mean QE at step")
    ax.plot(steps, [c["cummin_qe"] for c in curve], marker="s", label="mean cumulative-min QE")
    ax.set_xlabel("step")
    ax.set_ylabel("QE (higher = easier)")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def transfer_matrix(records: Sequence[dict[str, Any]], mt_specs: Sequence[str], qe_spec: str, src_lang: str,
                    tgt_lang: str) -> dict[str, dict[str, float]]:
    """Mean QE of the final texts: rows = target model they were built against, columns = evaluation model."""
    from mtgauntlet.builders.mtbreaker import Scorer

    groups: dict[str, list[str]] = {}
    for r in records:
        groups.setdefault(",".join(r.get("target_models") or []), []).append(r["text"])
    out: dict[str, dict[str, float]] = {}
    for target, texts in sorted(groups.items()):
        out[target] = {}
        for spec in mt_specs:
            scored = Scorer([spec], qe_spec, src_lang, tgt_lang)(texts)
            out[target][spec] = float(np.mean([q[0] for _, q in scored]))
    return out
