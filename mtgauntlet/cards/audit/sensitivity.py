"""Metric sensitivity per phenomenon on the audit page, from attached ``gauntlet evaluate metric --json`` results:
for each metric, phenomenon and language pair, Kendall-like tau (how often the metric prefers the good hypothesis
over the bad one) and d (by how much), as that command computed them (SMAUG eq. 1-2)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mtgauntlet.cards.audit.markup import e, table, value_cell
from mtgauntlet.errors import GauntletError
from mtgauntlet.fileio import read_json_object

KEYS = ("metric", "phenomenon", "lp", "n", "tau", "d")


def load_metric_results(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """Rows (file, metric, phenomenon, lp, n, tau, d) of each ``evaluate metric --json`` output."""
    rows = []
    for p in paths:
        doc = read_json_object(Path(p), "metric results")
        results = doc.get("results")
        if not isinstance(results, list) or not all(
            isinstance(r, dict) and {"metric", "phenomenon", "tau"} <= set(r) for r in results
        ):
            raise GauntletError(
                f"{p}: not the output of `gauntlet evaluate metric --json` (no results with metric, phenomenon and tau)"
            )
        rows += [{"file": Path(p).name, **{k: r.get(k) for k in KEYS}} for r in results]
    return rows


def sensitivity_section(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    body = [
        f"<tr><td>{e(r['metric'])}</td><td>{e(r['phenomenon'])}</td><td>{e(r['lp'])}</td>"
        + value_cell(r["n"])
        + value_cell(r["tau"], f"{r['metric']}:{r['phenomenon']}:{r['lp']}:tau", "data-sensitivity")
        + value_cell(r["d"], f"{r['metric']}:{r['phenomenon']}:{r['lp']}:d", "data-sensitivity")
        + f'<td class="note">{e(r["file"])}</td></tr>'
        for r in rows
    ]
    return (
        '<h3>Metric sensitivity per phenomenon</h3><p class="note">From the attached <code>gauntlet evaluate '
        "metric --json</code> results: tau = (concordant − discordant) / pairs (1 = the metric always scores the "
        "good hypothesis above the bad one), d = the mean normalised score gap over concordant pairs.</p>"
        + table(["metric", "phenomenon", "lp", "pairs", "tau", "d", "from"], body, num_cols=(3, 4, 5))
    )
