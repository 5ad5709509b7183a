"""The examples section: a sample of records per phenomenon / variant / topic, each edit shown as a diff.

SMAUG: the changed span of the reference struck out, its replacement in the bad hypothesis highlighted.
MT-breaker: the trajectory from the seed to the kept text, each step's source diffed against the previous one,
with its translations and QE. Filter buttons (by group, flagged only) need the inline script; without it every
example shows, grouped under headings.
"""

from __future__ import annotations

from typing import Any

from mtgauntlet.cards.audit.markup import anchor, badge, e, fmt_value, section, tag
from mtgauntlet.cards.audit.textdiff import smaug_edit, word_diff
from mtgauntlet.schema import checks_dict
from mtgauntlet.validators.validate import MAIN_TEXT

# shown in the card's head (or not worth a line): left out of the field list
HEAD_FIELDS = {
    "id",
    "created_at",
    "builder",
    "builder_version",
    "_flags",
    "_id",
    "_source",
    "checks",
    "trajectory",
    "src_lang",
    "tgt_lang",
    "qe_score",
    "difficulty",
    "rank",
    "llm_failures",
    "perturbation",
    "source_dataset",
    "source_id",
}


def _row(label: str, html: str) -> str:
    return f"<tr><th>{e(label)}</th><td>{html}</td></tr>"


def _smaug(rec: dict[str, Any]) -> str:
    ref_html, bad_html, how = smaug_edit(rec)
    rows = [
        _row("source", e(rec.get("src"))),
        _row("reference", ref_html),
        _row("bad", bad_html),
        _row(
            "good",
            e(rec.get("good"))
            + (f' <span class="note">({e(rec.get("good_origin"))})</span>' if rec.get("good_origin") else ""),
        ),
    ]
    checks = checks_dict(rec.get("checks"))
    check_txt = " · ".join(f"{k} = {fmt_value(v) if v is not None else 'not checked'}" for k, v in checks.items())
    located = "" if how == "span offsets" else f"edit located by {e(how)}; "
    return (
        f'<table class="fields">{"".join(rows)}</table>'
        f'<div class="checks">{located}{"checks: " + e(check_txt) if check_txt else ""}</div>'
    )


def kept_step(rec: dict[str, Any]) -> int | None:
    """Index of the trajectory step that was kept: its source is the record's text (the QE breaks ties)."""
    steps = rec.get("trajectory") or []
    same = [i for i, s in enumerate(steps) if s.get("source") == rec.get("text")]
    exact = [i for i in same if steps[i].get("qe_mean") == rec.get("qe_score")]
    return exact[0] if exact else same[0] if same else None


def _trajectory(rec: dict[str, Any]) -> str:
    steps = rec.get("trajectory") or []
    rows, prev = [], None
    kept, kept_i = rec.get("text"), kept_step(rec)
    for i, s in enumerate(steps):
        source = s.get("source") or ""
        shown = e(source) if prev is None else word_diff(prev, source)[1]
        prev = source
        translations = "<br>".join(e(t) for t in (s.get("translations") or []))
        qe = ", ".join(f"{q:.1f}" for q in (s.get("qe") or []) if q is not None)
        cls = ' class="kept"' if i == kept_i else ""
        rows.append(
            f'<tr{cls}><td class="num">{e(s.get("step"))}{" ★" if cls else ""}</td><td>{shown}</td>'
            f'<td>{translations}</td><td class="num">{e(qe)}</td>'
            f'<td class="num">{e(fmt_value(s.get("qe_mean")))}</td></tr>'
        )
    head = (
        "<tr><th class=num>step</th><th>source (changes against the previous step)</th><th>translation(s)</th>"
        "<th class=num>QE</th><th class=num>mean</th></tr>"
    )
    fields = [
        _row("kept text", e(kept)),
        _row("seed", e(rec.get("seed")) if rec.get("seed") else '<span class="note">none (seedless)</span>'),
    ]
    return (
        (
            f'<table class="fields">{"".join(fields)}</table>'
            f'<table class="traj"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'
            '<div class="checks">★ = the kept step (lowest QE: hardest)</div>'
        )
        if rows
        else f'<table class="fields">{"".join(fields)}</table>'
    )


def _generic(rec: dict[str, Any], text_col: str | None, group_by: str | None) -> str:
    """The record's main text, then its other fields on one line (URLs as plain text, never as links)."""
    text = f'<p class="text">{e(rec.get(text_col))}</p>' if text_col and rec.get(text_col) is not None else ""
    meta = []
    for k, v in rec.items():
        if k in HEAD_FIELDS or k in (text_col, group_by) or v is None or v == []:
            continue
        if k == "topic_path" and v == [rec.get("topic")]:
            continue
        meta.append(f"{e(k)}: {e(' › '.join(map(str, v)) if isinstance(v, list) else fmt_value(v))}")
    return text + (f'<div class="checks">{" · ".join(meta)}</div>' if meta else "")


def card(kind: str, rec: dict[str, Any], group_by: str | None) -> str:
    flags = rec.get("_flags") or []
    head = [f'<a class="id" href="#{anchor(kind, rec["_id"])}">{e(rec["_id"])}</a>']
    if group_by and rec.get(group_by) is not None:
        head.append(tag(rec[group_by]))
    for col in ("src_lang",):
        if rec.get(col):
            head.append(f'<span class="note">{e(rec[col])}→{e(rec.get("tgt_lang") or "?")}</span>')
    if rec.get("source_dataset") or rec.get("source_id") is not None:
        where = rec.get("source_dataset") or rec.get("_source") or "the source"
        item = f" item {e(rec['source_id'])}" if rec.get("source_id") is not None else ""
        head.append(f'<span class="note">from {e(where)}{item}</span>')
    if rec.get("perturbation"):
        head.append(f'<span class="note">{e(rec["perturbation"])}</span>')
    for key in ("qe_score", "difficulty", "rank", "llm_failures"):
        if rec.get(key) is not None:
            head.append(f'<span class="note">{e(key)} {e(fmt_value(rec[key]))}</span>')
    for f in flags:
        status = {"failed": "fail", "not checked": "not_checked"}.get(f["status"], "nc")
        head.append(
            f'{badge(status) if status != "nc" else badge(f["status"])} <span class="note">{e(f["reason"])}</span>'
        )
    if kind == "smaug_pair":
        body = _smaug(rec)
    elif rec.get("trajectory"):
        body = _trajectory(rec)
    else:
        body = _generic(rec, MAIN_TEXT.get(kind), group_by)
    cls = "card flagged" if flags else "card"
    return (
        f'<article class="{cls}" id="{anchor(kind, rec["_id"])}"><div class="head">{" ".join(head)}</div>'
        f"{body}</article>"
    )


def examples(data: dict[str, Any]) -> str:
    body = [
        (
            '<p class="note">A seeded sample of records per group, plus every flagged record (up to a cap). '
            "Use the buttons to filter by group (scripts on); with scripts off every example is listed.</p>"
        )
    ]
    for kind, ex in data["examples"].items():
        group_by = ex["group_by"]
        groups = ex["groups"]
        body.append(f"<h3><code>{e(kind)}</code>" + (f" by {e(group_by)}" if group_by else "") + "</h3>")
        buttons = ['<button type="button" data-group="*" aria-pressed="true">all</button>']
        buttons += [
            f'<button type="button" data-group="{e(g)}" aria-pressed="false">{e(g)} '
            f'<span class="note">{info["total"]}</span></button>'
            for g, info in groups.items()
        ]
        body.append(
            f'<div class="filters" data-kind="{e(kind)}" hidden>{"".join(buttons)}'
            '<label><input type="checkbox"> flagged only</label></div>'
        )
        for g, info in groups.items():
            shown = len(info["records"])
            body.append(
                f'<div class="ex-group" data-kind="{e(kind)}" data-group="{e(g)}">'
                f"<h4>{e(group_by or 'group')}: {e(g)} — {info['total']} record{'s' if info['total'] != 1 else ''}, {info['flagged']} flagged, "
                f"{shown} shown</h4>" + "".join(card(kind, r, group_by) for r in info["records"]) + "</div>"
            )
    return section("examples", "4. Examples", "".join(body))
