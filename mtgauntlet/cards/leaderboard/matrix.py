"""The leaderboard page's matrices: phenomenon × metric accuracy (the blind-spot view), significance clusters,
and the span statistics.

A matrix cell holds the value, its 95% interval and the metric's significance cluster (``#1`` = top group), and is
coloured by the value on a red (0) to green (1) scale with the text kept dark; every string is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mtgauntlet.cards.audit.markup import e, table

SPAN_STATISTICS = ("span_precision", "span_recall", "span_f1", "span_f1_severity", "error_free_f1")


def colour(value: float | None) -> str:
    """A background colour for a value in [0, 1]: red (0) through yellow to green (1); none for a missing value."""
    if value is None:
        return ""
    x = min(1.0, max(0.0, float(value)))
    hue = int(round(120 * x))  # 0 red, 60 yellow, 120 green
    return f"background: hsl({hue}, 70%, 82%);"


def cell(r: dict[str, Any] | None, key: str) -> str:
    """One matrix cell: value, [interval], #cluster; ``data-value`` holds the exact value."""
    if r is None or r.get("value") is None:
        return "<td></td>"
    value = float(r["value"])
    text = format(value, ".3f")
    if r.get("ci_low") is not None and r.get("ci_high") is not None:
        text += f' <span class="ci">[{format(r["ci_low"], ".3f")}, {format(r["ci_high"], ".3f")}]</span>'
    if r.get("cluster") is not None:
        text += f' <span class="cl" title="significance cluster">#{int(r["cluster"])}</span>'
    return f'<td class="num" style="{colour(value)}" data-key="{e(key)}" data-value="{e(repr(value))}">{text}</td>'


def phenomenon_matrix(rows: Sequence[dict[str, Any]], statistic: str = "accuracy") -> str:
    """Phenomena (rows, ``all`` first) × metrics (columns, best overall first) of a pair set, pooled over its
    language pairs: the statistic with its interval and cluster, coloured."""
    mine = [r for r in rows if r["statistic"] == statistic and r["lp"] == "all"]
    if not mine:
        return ""
    at = {(r["phenomenon"], r["metric"]): r for r in mine}
    overall = {r["metric"]: (r["value"] if r["value"] is not None else -1.0) for r in mine if r["phenomenon"] == "all"}
    metrics = sorted({r["metric"] for r in mine}, key=lambda m: (-overall.get(m, -1.0), m))
    phenomena = sorted({r["phenomenon"] for r in mine}, key=lambda p: (p != "all", p))
    body = [
        f"<tr><td>{e(ph)}</td>" + "".join(cell(at.get((ph, m)), f"{ph}|{m}|{statistic}") for m in metrics) + "</tr>"
        for ph in phenomena
    ]
    return (
        f'<h3>Blind spots: {e(statistic)} per phenomenon and metric</h3><div class="wide">'
        + table(["phenomenon", *metrics], body, "stats matrix", num_cols=tuple(range(1, len(metrics) + 1)))
        + "</div>"
    )


def human_columns(rows: Sequence[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    """The (statistic, grouping, system_score) columns a human-judgment set's rows have, in a fixed order."""
    order: tuple[str, ...] = ("seg_acc_eq", "seg_pearson", "seg_kendall", "sys_pairwise_accuracy", "sys_pearson")
    order += ("sys_soft_pairwise_accuracy", *SPAN_STATISTICS)
    seen = {(r["statistic"], r["grouping"], r.get("system_score")) for r in rows}
    return sorted(
        seen,
        key=lambda c: (order.index(c[0]) if c[0] in order else len(order), c[0], c[1], c[2] != "corpus", c[2] or ""),
    )


def column_label(c: tuple[str, str, str | None]) -> str:
    statistic, grouping, system_score = c
    bits = [grouping] if grouping != "none" else []
    bits += [system_score] if system_score else []
    return statistic + (f" ({', '.join(bits)})" if bits else "")


def metric_table(rows: Sequence[dict[str, Any]], key: str) -> str:
    """Metrics × the statistics their rows have (one language pair and gold, or the pooled rows)."""
    columns = human_columns(rows)
    at = {(r["metric"], r["statistic"], r["grouping"], r.get("system_score")): r for r in rows}
    metrics = sorted({r["metric"] for r in rows})
    body = [
        f"<tr><td>{e(m)}</td>"
        + "".join(cell(at.get((m, *c)), f"{key}|{m}|{column_label(c)}") for c in columns)
        + "</tr>"
        for m in metrics
    ]
    head = ["metric", *(column_label(c) for c in columns)]
    return '<div class="wide">' + table(head, body, "stats", num_cols=tuple(range(1, len(head)))) + "</div>"
