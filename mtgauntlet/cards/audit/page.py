"""The whole page: header with the headline numbers, table of contents, sections, inline style and script."""

from __future__ import annotations

from typing import Any

from mtgauntlet import __version__
from mtgauntlet.cards.audit.assets import CSS, SCRIPT, SEARCH_SCRIPT
from mtgauntlet.cards.audit.diff_section import diff as diff_section
from mtgauntlet.cards.audit.examples import examples
from mtgauntlet.cards.audit.markup import e, fmt_value, page_head
from mtgauntlet.cards.audit.methods_section import methods
from mtgauntlet.cards.audit.search import search_index, search_section
from mtgauntlet.cards.audit.sections import overview, quality, validation
from mtgauntlet.cards.audit.source import AuditSource
from mtgauntlet.schema import utcnow


def _kpis(src: AuditSource, data: dict[str, Any], diff_data: dict[str, Any] | None) -> str:
    rep = data["validation"]
    n = sum(t.num_rows for t in src.tables.values())
    failed = sum(r["status"] == "fail" for r in rep["rules"])
    not_checked = sum(r["status"] == "not_checked" for r in rep["rules"])
    flagged = sum(f["records"] for f in data["flags"].values())
    items = [
        ("", fmt_value(n), "records"),
        ("", str(len(src.tables)), "record kinds: " + ", ".join(src.tables)),
        (
            "pass" if rep["passed"] else "fail",
            "PASSED" if rep["passed"] else "FAILED",
            f"validation: {failed} failed, {not_checked} not checked",
        ),
        ("", fmt_value(flagged), "records flagged"),
    ]
    if diff_data is not None:
        rec = diff_data["records"].values()
        changes = (
            f"+{sum(len(d['added']) for d in rec)} −{sum(len(d['removed']) for d in rec)} "
            f"⇄{sum(len(d['replaced']) for d in rec)} ~{sum(len(d['changed']) for d in rec)}"
        )
        items.append(("", changes, "records added / removed / replaced / changed"))
    return (
        '<div class="kpis">'
        + "".join(f'<div class="kpi {cls}"><b>{e(big)}</b><span>{e(small)}</span></div>' for cls, big, small in items)
        + "</div>"
    )


def render(
    src: AuditSource, data: dict[str, Any], diff_data: dict[str, Any] | None = None, old_label: str | None = None
) -> str:
    parts = [
        overview(src, data),
        validation(data, src),
        quality(data),
        search_section(*search_index(src.tables, data["shown_ids"])),
        examples(data),
        methods(data),
    ]
    if diff_data is not None:
        parts.append(diff_section(diff_data, old_label or "the previous version", data["shown_ids"]))
    toc = [
        ("overview", "Overview"),
        ("validation", "Validation"),
        ("quality", "Data quality"),
        ("search", "Search"),
        ("examples", "Examples"),
    ]
    if data["methods"]:
        toc.append(("methods", "Method plots"))
    if diff_data is not None:
        toc.append(("diff", "Diff"))
    version = f' <span class="ver">v{e(src.version)}</span>' if src.version else ""
    audited = utcnow().isoformat()
    head = page_head(f"Audit: {src.name}" + (f" {src.version}" if src.version else ""), CSS)
    return f"""{head}<body>
<header class="top">
<div class="eyebrow">mtgauntlet audit · {e(src.what)}</div>
<h1>{e(src.name)}{version}</h1>
<p class="sub">{e(src.where())} · audited {e(audited)}</p>
{_kpis(src, data, diff_data)}
</header>
<nav class="toc">{"".join(f'<a href="#{sid}">{e(label)}</a>' for sid, label in toc)}</nav>
<main>
{"".join(p for p in parts if p)}
</main>
<footer>Written by <code>gauntlet audit</code> (mtgauntlet {e(__version__)}). Self-contained: styles, plots and the
filter script are inline; nothing is loaded from the network.</footer>
<script>{SCRIPT}{SEARCH_SCRIPT}</script>
</body>
</html>
"""
