"""The leaderboard page: one HTML file, offline (styles and plots inline, no script needed, no external URL),
every value from the results escaped.

Sections: per pair set, a bar chart of the metrics' overall accuracy, the phenomenon × metric matrix (accuracy with
its 95% interval and significance cluster, coloured: the blind-spot view) and a table of metric × phenomenon
(accuracy with its interval, ACES tau, SMAUG tau and d); per human-judgment set, language pair (the pooled rows,
``all``, last) and human score, a bar chart of segment-level acc_eq and a table of metric × statistic (segment level
by grouping, system level by system score, span statistics) with intervals and clusters; DEC rows of difficulty
estimators; and the metrics' signatures. Numbers carry their exact value in ``data-value``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from mtgauntlet import __version__
from mtgauntlet.cards.audit.assets import CSS
from mtgauntlet.cards.audit.markup import e, page_head, table, value_cell
from mtgauntlet.cards.audit.svg import hbars
from mtgauntlet.cards.leaderboard.matrix import metric_table, phenomenon_matrix
from mtgauntlet.schema import utcnow

PAIR_COLUMNS = ("accuracy", "aces_tau", "smaug_tau", "smaug_d")

LEADERBOARD_CSS = """ td.ci { color: #666; white-space: nowrap; } figure.plot { margin: 8px 0; }
div.wide { overflow-x: auto; } span.ci { color: #555; font-size: 85%; } span.cl { font-weight: 600; }"""


def _field(r: dict[str, Any] | None, key: str) -> Any:
    """``r[key]``, or None where there is no row."""
    return None if r is None else r[key]


def _interval(r: dict[str, Any] | None) -> str:
    if not r or r["ci_low"] is None:
        return "<td></td>"
    low, high = format(r["ci_low"], ".3f"), format(r["ci_high"], ".3f")
    return f'<td class="num ci">[{e(low)}, {e(high)}]</td>'


def _pair_section(name: str, version: str, rows: list[dict[str, Any]], sid: str) -> str:
    cells: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in rows:
        cells[(r["metric"], r["phenomenon"], r["statistic"])] = r
    metrics = sorted({r["metric"] for r in rows})
    phenomena = sorted({r["phenomenon"] for r in rows if r["lp"] == "all"}, key=lambda p: (p != "all", p))
    body = []
    for m in metrics:
        for ph in phenomena:
            acc = cells.get((m, ph, "accuracy"))
            if acc is None or acc["lp"] != "all":
                acc = next(
                    (
                        r
                        for r in rows
                        if (r["metric"], r["phenomenon"], r["statistic"], r["lp"]) == (m, ph, "accuracy", "all")
                    ),
                    None,
                )
            vals = {
                s: next(
                    (r for r in rows if (r["metric"], r["phenomenon"], r["statistic"], r["lp"]) == (m, ph, s, "all")),
                    None,
                )
                for s in PAIR_COLUMNS
            }
            body.append(
                f"<tr><td>{e(m)}</td><td>{e(ph)}</td>"
                + value_cell(_field(vals["accuracy"], "value"), f"{m}|{ph}|accuracy")
                + _interval(vals["accuracy"])
                + "".join(value_cell(_field(vals[s], "value"), f"{m}|{ph}|{s}") for s in PAIR_COLUMNS[1:])
                + value_cell(_field(vals["accuracy"], "n"))
                + "</tr>"
            )
    scores = [r for r in rows if r["statistic"] == "aces_score" and r["lp"] == "all"]
    bars = [
        (r["metric"], 100 * r["value"], True)
        for r in rows
        if (r["statistic"], r["phenomenon"], r["lp"]) == ("accuracy", "all", "all") and r["value"] is not None
    ]
    extra = ""
    if scores:
        extra = "<p>ACES score (all phenomena with an ACES category): " + ", ".join(
            f"{e(r['metric'])} <b>{e(format(r['value'], '.3f'))}</b>" for r in scores if r["value"] is not None
        )
        extra += "</p>"
    chart = (
        hbars(
            sorted(bars, key=lambda b: -b[1]), title=f"{name}: accuracy (good scored above bad)", xlabel="accuracy, %"
        )
        if bars
        else ""
    )
    return (
        f'<section id="{e(sid)}"><h2>{e(name)} <span class="ver">v{e(version)}</span> · pairs</h2>'
        f'<figure class="plot">{chart}</figure>{extra}'
        + phenomenon_matrix(rows)
        + "<h3>Every statistic per metric and phenomenon (all language pairs)</h3>"
        + table(
            ["metric", "phenomenon", "accuracy", "95% interval", "ACES tau", "SMAUG tau", "SMAUG d", "n"],
            body,
            "stats",
            num_cols=(2, 3, 4, 5, 6, 7),
        )
        + "</section>"
    )


def _human_section(name: str, version: str, rows: list[dict[str, Any]], sid: str) -> str:
    parts = [f'<section id="{e(sid)}"><h2>{e(name)} <span class="ver">v{e(version)}</span> · human judgments</h2>']
    for lp, gold in sorted({(r["lp"], r["gold"] or "") for r in rows}, key=lambda k: (k[0] == "all", k)):
        mine = [r for r in rows if r["lp"] == lp and (r["gold"] or "") == gold]
        metrics = sorted({r["metric"] for r in mine})
        acc = {r["metric"]: r for r in mine if (r["statistic"], r["grouping"]) == ("seg_acc_eq", "item")}
        bars = [(m, 100 * acc[m]["value"], True) for m in metrics if m in acc and acc[m]["value"] is not None]
        chart = (
            hbars(
                sorted(bars, key=lambda b: -b[1]),
                title=f"{lp} vs {gold}: segment-level acc_eq (by item)",
                xlabel="acc_eq, %",
            )
            if bars
            else ""
        )
        label = "all language pairs (pooled)" if lp == "all" else lp
        parts.append(
            f'<h3>{e(label)} · compared with {e(gold)}</h3><figure class="plot">{chart}</figure>'
            + metric_table(mine, f"{lp}|{gold}")
        )
    return "".join(parts) + "</section>"


def _other_section(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    body = [
        f"<tr><td>{e(r['metric'])}</td><td>{e(r['set'])}</td><td>{e(r['lp'])}</td><td>{e(r['statistic'])}</td>"
        + value_cell(r["value"], f"{r['metric']}|{r['set']}|{r['lp']}|{r['statistic']}")
        + value_cell(r["n"])
        + "</tr>"
        for r in rows
    ]
    return (
        '<section id="estimators"><h2>Difficulty estimators (DEC)</h2>'
        + table(["estimator", "judgments", "lp", "statistic", "value", "n"], body, "stats", (4, 5))
        + "</section>"
    )


def render(stats: list[dict[str, Any]], title: str, where: str, sizes: dict[tuple[str, str], int] | None = None) -> str:
    by_set: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in stats:
        by_set[(r["set"], r["version"], r["record_kind"])].append(r)
    sections, toc = [], []
    for k, ((name, version, kind), rows) in enumerate(sorted(by_set.items())):
        sid = f"set-{k}"
        if kind in ("smaug_pair", "challenge_pair"):
            sections.append(_pair_section(name, version, rows, sid))
        elif kind == "human_score":
            sections.append(_human_section(name, version, rows, sid))
        else:
            continue
        if sizes is not None:
            note = (
                f"{sizes[(name, version)]:,} records in the catalog"
                if (name, version) in sizes
                else "not in the catalog given"
            )
            sections[-1] = sections[-1].replace("</h2>", f' <span class="sub">{e(note)}</span></h2>', 1)
        toc.append((sid, f"{name} {version}"))
    sections.append(
        _other_section([r for r in stats if r["record_kind"] not in ("smaug_pair", "challenge_pair", "human_score")])
    )
    signatures = sorted({(r["metric"], r["metric_signature"]) for r in stats})
    sig_table = table(
        ["metric", "signature"],
        [f"<tr><td>{e(m)}</td><td><code>{e(s)}</code></td></tr>" for m, s in signatures],
        "sigs",
    )
    nav = "".join(f'<a href="#{e(sid)}">{e(label)}</a>' for sid, label in toc)
    head = page_head(title, CSS + LEADERBOARD_CSS)
    return f"""{head}<body>
<header class="top">
<div class="eyebrow">mtgauntlet leaderboard</div>
<h1>{e(title)}</h1>
<p class="sub">{e(where)} · written {e(utcnow().isoformat())} · {len(stats)} statistics,
{len({r["metric"] for r in stats})} metrics, {len(by_set)} sets</p>
</header>
<nav class="toc">{nav}<a href="#signatures">Signatures</a></nav>
<main>
{"".join(s for s in sections if s)}
<section id="signatures"><h2>Metric signatures</h2>{sig_table}</section>
</main>
<footer>Written by <code>gauntlet leaderboard</code> (mtgauntlet {e(__version__)}). Self-contained: styles and
plots are inline; nothing is loaded from the network. Statistics: docs/workbench.md.</footer>
</body>
</html>
"""
