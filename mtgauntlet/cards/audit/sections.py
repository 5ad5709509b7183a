"""The overview, validation and data-quality sections of the audit page."""

from __future__ import annotations

from typing import Any

from mtgauntlet.cards.audit import svg
from mtgauntlet.cards.audit.markup import (
    anchor,
    badge,
    data_value,
    e,
    figure,
    fmt_value,
    plain_row,
    section,
    table,
    value_cell,
)
from mtgauntlet.cards.audit.sensitivity import sensitivity_section
from mtgauntlet.cards.audit.source import AuditSource
from mtgauntlet.cards.card import failure_counts
from mtgauntlet.core.usage_report import summary_line as usage_line

NOT_STATED = "not stated"
IDS_LISTED = 60  # ids written out per flag row (the rest are counted)


def _stated(value: Any, origin: str | None) -> str:
    if not value:
        return f'<span class="note">{NOT_STATED}</span>'
    text = ", ".join(value) if isinstance(value, list) else str(value)
    return f'{e(text)} <span class="note">(from the {e(origin)})</span>' if origin else e(text)


def _counts_tables(kind: str, counts: dict[str, dict[str, int]]) -> str:
    parts = []
    for label, values in counts.items():
        if label == "records":
            continue
        top = max(values.values(), default=1) or 1
        rows = []
        for i, (key, n) in enumerate(values.items()):
            if i == 30:
                rows.append(f'<tr><td colspan="3" class="note">… {len(values) - 30} more</td></tr>')
                break
            width = max(1, round(60 * n / top))
            rows.append(
                f'<tr><td>{e(key)}</td><td><span class="bar" style="width:{width}px"></span></td>'
                f"{value_cell(n, f'{kind}:{label}:{key}', 'data-count')}</tr>"
            )
        parts.append(table([label, "", "records"], rows, num_cols=(2,)))
    return f'<div class="grid">{"".join(parts)}</div>'


def overview(src: AuditSource, data: dict[str, Any]) -> str:
    meta = [
        ("Name", e(src.name)),
        ("Version", e(src.version) if src.version else f'<span class="note">{NOT_STATED}</span>'),
        ("Audited", e(f"{src.what} at {src.where()}")),
        ("Created", e(src.created_at or NOT_STATED)),
        ("Licence", _stated(src.licence, src.licence_origin)),
        ("Sources", _stated(src.sources, src.sources_origin)),
        ("Builders", e(", ".join(src.builders()) or NOT_STATED)),
    ]
    body = ['<dl class="meta">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in meta) + "</dl>"]
    body.append("<h3>Signatures</h3>")
    body.append(
        "".join(f'<pre class="sig">{e(s)}</pre>' for s in src.signatures) or f'<p class="note">{NOT_STATED}</p>'
    )
    rows = []
    for b in src.builds:
        c = b["counts"] if isinstance(b.get("counts"), dict) else {}
        rejected = c["rejected"] if isinstance(c.get("rejected"), dict) else {}
        skipped = c["skipped"] if isinstance(c.get("skipped"), dict) else {}
        rows.append(
            "<tr>"
            + "".join(f"<td>{e(x)}</td>" for x in (b.get("builder") or "?", b.get("builder_version") or "?"))
            + value_cell(c.get("produced"))
            + f"<td>{e(', '.join(f'{k}: {v}' for k, v in sorted(rejected.items())) or 'none')}</td>"
            + f"<td>{e(', '.join(f'{k}: {v}' for k, v in sorted(skipped.items())) or 'none')}</td>"
            + f"<td>{e(', '.join(f'{k}: {v}' for k, v in failure_counts(c).items()) or 'none')}</td>"
            + f"<td>{e(usage_line(b.get('usage') or {}).removeprefix('usage: ') or 'none')}</td>"
            + f"<td>{e(b.get('finished_at') or b.get('created_at') or '')}</td></tr>"
        )
    unfinished = [b for b in src.builds if b.get("status") not in (None, "complete")]
    for b in unfinished:
        body.append(
            f"<p>{badge('fail')} the {e(b.get('builder') or '?')} build is not complete (status "
            f"{e(b.get('status'))}): this page shows the records written so far.</p>"
        )
    if rows:
        body.append("<h3>Builds</h3>")
        body.append(
            table(
                [
                    "builder",
                    "version",
                    "produced",
                    "rejected (reason: count)",
                    "skipped (reason: count)",
                    "failures (counter: count)",
                    "API usage (requests, tokens, cost)",
                    "finished",
                ],
                rows,
                num_cols=(2,),
            )
        )
    body.append("<h3>Models and packages</h3>")
    body.append(
        table(["role", "model spec"], [plain_row(k, v) for k, v in sorted(src.models.items())])
        or f'<p class="note">models: {NOT_STATED}</p>'
    )
    body.append(
        '<p class="note">'
        + (e(" · ".join(f"{k} {v}" for k, v in sorted(src.versions.items()))) or f"package versions: {NOT_STATED}")
        + "</p>"
    )
    for kind, counts in data["overview"]["counts"].items():
        body.append(
            f'<h3><code>{e(kind)}</code>: <span data-count="{e(kind)}:records:all" '
            f'data-value="{counts["records"]["all"]}">{fmt_value(counts["records"]["all"])}</span> records</h3>'
        )
        body.append(_counts_tables(kind, counts))
    return section("overview", "1. Overview", "".join(body))


def _flag_rows(kind: str, summary: list[dict[str, Any]], shown: set[str]) -> list[str]:
    rows = []
    for f in summary:
        links = []
        for rid in f["ids"][:IDS_LISTED]:
            links.append(
                f'<a href="#{anchor(kind, rid)}">{e(rid)}</a>'
                if rid in shown
                else f'<span title="not among the examples">{e(rid)}</span>'
            )
        more = (
            f' <span class="note">… and {len(f["ids"]) - IDS_LISTED} more</span>' if len(f["ids"]) > IDS_LISTED else ""
        )
        status = {"failed": "fail", "not checked": "not_checked"}.get(f["status"], "nc")
        rows.append(
            f'<tr data-flag="{e(kind)}:{e(f["reason"])}"><td>{badge(status) if status != "nc" else badge(f["status"])}'
            f"</td><td>{e(f['reason'])}</td><td>{e(f['rule'] or 'record check')}</td>"
            f'{value_cell(len(f["ids"]), kind + ":" + f["reason"], "data-flag-count")}<td class="ids">{" ".join(links)}{more}</td></tr>'
        )
    return rows


def release_reports(validation: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Per kind, what the reports attached at release time said (the manifest's ``validation`` is per kind, each
    with its reports): passed only when every report passed; the failed rules of all of them."""
    out = {}
    for kind, entry in (validation or {}).items():
        if not isinstance(entry, dict):
            continue
        reports = [r for r in entry.get("reports") or [] if isinstance(r, dict)]
        failed = list(dict.fromkeys(str(x) for r in reports for x in r.get("failed_rules") or []))
        out[kind] = {
            "passed": bool(reports) and all(r.get("passed") is True for r in reports) and not failed,
            "failed_rules": failed,
            "not_validated": [str(s) for s in entry.get("not_validated") or []],
        }
    return out


def validation(data: dict[str, Any], src: AuditSource) -> str:
    rep = data["validation"]
    n_fail = sum(r["status"] == "fail" for r in rep["rules"])
    n_nc = sum(r["status"] == "not_checked" for r in rep["rules"])
    body = [
        (
            f"<p>Overall: {badge('pass' if rep['passed'] else 'fail')} — {len(rep['rules'])} rules, {n_fail} failed, "
            f"{n_nc} not checked (computed now by <code>gauntlet validate</code>'s functions with the rules below).</p>"
        )
    ]
    for kind, rv in release_reports(src.release_validation).items():
        failed = ", ".join(rv["failed_rules"]) or "none"
        partly = f"; builds not validated: {e(', '.join(rv['not_validated']))}" if rv["not_validated"] else ""
        body.append(
            f'<p class="note" data-release-validation="{e(kind)}" data-value="{e(data_value(rv["passed"]))}">'
            f"At release time the report(s) attached for <code>{e(kind)}</code> said: "
            f"{'passed' if rv['passed'] else 'FAILED'} (failed rules: {e(failed)}){partly}.</p>"
        )
    for kind, entry in rep["kinds"].items():
        body.append(f"<h3><code>{e(kind)}</code></h3>")
        rows = [
            f"<tr><td><code>{e(r['metric'])}</code></td><td>{e(r['threshold'])}</td>"
            f'{value_cell(r["value"], kind + ":" + r["metric"])}<td data-rule="{e(kind)}:{e(r["metric"])}" '
            f'data-value="{e(data_value(r["status"]))}">{badge(r["status"])}</td></tr>'
            for r in rep["rules"]
            if r["kind"] == kind
        ]
        body.append(table(["rule (metric)", "threshold", "value", "status"], rows, num_cols=(2,)))
        for p in entry.get("problems") or []:
            body.append(f"<p>{badge('fail')} {e(p)}</p>")
        for k, why in (entry.get("info") or {}).items():
            body.append(f'<p class="note"><b>{e(k)}</b>: {e(why)}</p>')
        fl = data["flags"].get(kind, {})
        if fl.get("summary"):
            body.append(
                f"<h4>Records that failed, were not checked, or are length outliers "
                f"({fmt_value(fl['records'])} records)</h4>"
            )
            body.append(
                table(
                    ["status", "reason", "rule", "records", "ids (links go to the example)"],
                    _flag_rows(kind, fl["summary"], set(data["shown_ids"].get(kind, []))),
                    num_cols=(3,),
                )
            )
        else:
            body.append('<p class="note">No record failed a record-level check or was left unchecked.</p>')
        mrows = [
            f"<tr><td><code>{e(k)}</code></td>{value_cell(v, f'{kind}:{k}')}</tr>" for k, v in entry["metrics"].items()
        ]
        body.append(
            f"<details><summary>All {len(mrows)} validation metrics of <code>{e(kind)}</code></summary>"
            f"{table(['metric', 'value'], mrows, num_cols=(1,))}</details>"
        )
    return section("validation", "2. Validation", "".join(body))


PHENOMENON_MEASURES = (
    ("n", "records"),
    ("length_ratio", "length ratio (bad / good chars)"),
    ("edit_distance", "edit distance (words, good → bad)"),
    ("span_words", "span length (words of the reference)"),
    ("replacement_words", "replacement length (words)"),
)


def phenomenon_table(kind: str, rows: list[dict[str, Any]]) -> str:
    """Per phenomenon: how big the edits are (means over its records)."""
    if not rows:
        return ""
    body = [
        f"<tr><td>{e(r['phenomenon'])}</td>"
        + "".join(
            value_cell(r[key], f"{kind}:{r['phenomenon']}:{key}", "data-phenomenon") for key, _ in PHENOMENON_MEASURES
        )
        + "</tr>"
        for r in rows
    ]
    return "<h4>Per phenomenon: the size of the edit (means)</h4>" + table(
        ["phenomenon", *(label for _, label in PHENOMENON_MEASURES)], body, num_cols=(1, 2, 3, 4, 5)
    )


GRAMMAR_SHOWN = 50  # flagged texts listed on the page (all are counted)


def grammar_table(kind: str, grammar: dict[str, Any] | None) -> str:
    """The texts the grammar checker flagged (rules ``grammar.*`` on), each with its issues."""
    if grammar is None:
        return ""
    flagged, metrics = grammar["records"], grammar["metrics"]
    head = (
        f'<h4>Grammar: <span data-count="{e(kind)}:grammar:flagged" data-value="{len(flagged)}">'
        f"{len(flagged)}</span> flagged texts</h4>"
    )
    if not flagged:
        unchecked = metrics.get("grammar.unchecked") or 0
        return head + (
            f'<p class="note">none flagged; {unchecked} texts in a language without a checker</p>'
            if unchecked
            else '<p class="note">none flagged</p>'
        )
    rows = []
    for f in flagged[:GRAMMAR_SHOWN]:
        issues = "; ".join(f"{i.get('rule')}: {i.get('message')}" for i in f["issues"])
        rows.append(
            f'<tr data-grammar="{e(kind)}:{e(f["id"])}"><td><code>{e(f["id"])}</code></td>'
            f"<td>{e(f['text'])}</td><td>{e(issues)}</td></tr>"
        )
    more = f'<p class="note">{len(flagged) - GRAMMAR_SHOWN} more not listed</p>' if len(flagged) > GRAMMAR_SHOWN else ""
    return head + table(["id", f"text ({flagged[0]['column']})", "issues (rule: message)"], rows) + more


def quality(data: dict[str, Any]) -> str:
    body = [
        (
            '<p class="note">The data-quality measures of the MT-breaker paper (Table 2), where they apply. '
            "Higher diversity is better; rarity and syntax complexity say whether difficulty comes from rare words "
            "or convoluted sentences.</p>"
        )
    ]
    for kind, q in data["quality"].items():
        body.append(
            f"<h3><code>{e(kind)}</code>"
            + (f" — measured on <code>{e(q['column'])}</code>" if q["column"] else "")
            + "</h3>"
        )
        rows = [
            f"<tr><td>{e(m['label'])}</td>{value_cell(m['value'], kind + ':' + m['key'], 'data-quality')}"
            f'<td class="note">{e(m["how"])}</td></tr>'
            for m in q["measures"]
        ]
        body.append(
            table(["measure", "value", "how"], rows, num_cols=(1,))
            or '<p class="note">No text column to measure in this kind.</p>'
        )
        body.append(phenomenon_table(kind, q.get("phenomena") or []))
        body.append(grammar_table(kind, q.get("grammar")))
        figs = []
        for col, vals in q["distributions"].items():
            label = "QE (0–100, higher = better translation)" if col == "qe_score" else "difficulty (higher = harder)"
            figs.append(
                figure(
                    svg.histogram({col: vals}, title=f"{kind} {col}", xlabel=label),
                    f"{kind}: distribution of {col} over {len(vals)} records",
                )
            )
        if figs:
            body.append(f'<div class="plots">{"".join(figs)}</div>')
    body.append(sensitivity_section(data.get("sensitivity") or []))
    return section("quality", "3. Data quality", "".join(body))
