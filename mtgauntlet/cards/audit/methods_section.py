"""The method-plots section: MT-breaker step curve, bandit search curve and top-k topics, subset vs corpus."""

from __future__ import annotations

from typing import Any

import numpy as np

from mtgauntlet.cards.audit import svg
from mtgauntlet.cards.audit.markup import e, figure, section, table, value_cell


def _mtbreaker(mb: dict[str, Any]) -> str:
    out = []
    for variant, v in mb["variants"].items():
        curve = v["curve"]
        chart = svg.lines(
            {
                "mean QE at step": [(c["step"], c["mean_qe"]) for c in curve],
                "mean cumulative-min QE": [(c["step"], c["cummin_qe"]) for c in curve],
            },
            title=f"MT-breaker {variant} step curve",
            xlabel="step",
            ylabel="QE (higher = easier)",
        )
        s = v["summary"]
        rows = [
            f"<tr><td>{e(label)}</td>{value_cell(s.get(key), f'mtbreaker:{variant}:{key}')}</tr>"
            for key, label in (
                ("items", "items"),
                ("start_mean_qe", "mean QE at step 0 (seed)"),
                ("final_mean_qe", "mean QE of kept texts"),
                ("items_improved", "items where an edit beat step 0"),
                ("edit_steps", "edit steps"),
                ("edit_mean_qe", "mean QE of the edits"),
                ("llm_failures", "unusable LLM answers"),
            )
        ]
        out.append(
            f'<h3>MT-breaker: <code>{e(variant)}</code></h3><div class="plots">'
            + figure(chart, "Mean QE per step and mean cumulative minimum (paper Figure 2); lower = harder.")
            + table(["", "value"], rows, num_cols=(1,))
            + "</div>"
        )
    return "".join(out)


def _bandit(bd: dict[str, Any]) -> str:
    out = ["<h3>Bandit topic search</h3>"]
    figs = []
    if bd["curve"]:
        k = bd["k"] or 1
        figs.append(
            figure(
                svg.lines(
                    {
                        f"mean difficulty of the current top-{k} topics": [
                            (c["pull"], c["top_k_mean"]) for c in bd["curve"]
                        ]
                    },
                    points={"difficulty of the pull": [(c["pull"], c["difficulty"]) for c in bd["curve"]]},
                    title="bandit search curve",
                    xlabel="pull",
                    ylabel="difficulty (100 − QE)",
                ),
                f"Search curve over {len(bd['curve'])} pulls (from the {bd['origin']}).",
            )
        )
    figs.append(
        figure(
            svg.hbars(
                [(t["topic"], t["mean_difficulty"], t["top_k"]) for t in bd["topics"][:25]],
                title="topics by mean difficulty",
                xlabel="mean difficulty (100 − QE)",
            ),
            f"Topics ranked by mean observed difficulty (from the {bd['origin']}); "
            + (f"the top {bd['k']} (coloured) are released." if bd["k"] else ""),
        )
    )
    out.append(f'<div class="plots">{"".join(figs)}</div>')
    rows = [
        f"<tr><td>{e(t['topic'])}</td>{value_cell(t['pulls'])}"
        f"{value_cell(t['mean_difficulty'], 'bandit:topic:' + t['topic'])}"
        f"<td>{'top-k' if t['top_k'] else ''}</td></tr>"
        for t in bd["topics"][:50]
    ]
    out.append(table(["topic", "pulls" if bd["curve"] else "texts", "mean difficulty", ""], rows, num_cols=(1, 2)))
    return "".join(out)


def _subset(sb: dict[str, Any]) -> str:
    series = {"subset": sb["subset"]}
    if sb["corpus"]:
        series = {"corpus (all scored texts)": sb["corpus"], "subset (kept)": sb["subset"]}
    est = ", ".join(sb["estimators"]) or "?"
    chart = svg.histogram(
        series,
        title="difficulty of the subset against its corpus",
        share=bool(sb["corpus"]),
        xlabel=f"difficulty ({est}; higher = harder)",
    )
    note = (
        ""
        if sb["corpus"]
        else (
            '<p class="note">The scored corpus is not part of this path (a subset build '
            "keeps it in its work/ shards); only the subset is shown.</p>"
        )
    )
    rows = []
    for name, vals in series.items():
        q = np.percentile(vals, [0, 25, 50, 75, 100]) if vals else [float("nan")] * 5
        rows.append(
            f"<tr><td>{e(name)}</td>{value_cell(len(vals))}" + "".join(value_cell(float(x)) for x in q) + "</tr>"
        )
    return (
        "<h3>Difficulty-selected subset</h3>"
        + note
        + '<div class="plots">'
        + figure(chart, "Share of texts per difficulty bin: the subset should sit in the corpus's hard tail.")
        + table(["", "texts", "min", "25%", "median", "75%", "max"], rows, num_cols=(1, 2, 3, 4, 5, 6))
        + "</div>"
    )


def methods(data: dict[str, Any]) -> str:
    m = data["methods"]
    parts = []
    if "mtbreaker" in m:
        parts.append(_mtbreaker(m["mtbreaker"]))
    if "bandit" in m:
        parts.append(_bandit(m["bandit"]))
    if "subset" in m:
        parts.append(_subset(m["subset"]))
    if not parts:
        return ""
    return section("methods", "5. Method plots", "".join(parts))
