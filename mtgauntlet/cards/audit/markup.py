"""HTML building blocks. Everything that comes from data or metadata goes through :func:`e` (html.escape,
quotes included); numbers shown in cells also carry their exact value in ``data-value`` (JSON) so that tests
and scripts can read the page's numbers without parsing formatted text."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from mtgauntlet import __version__

STATUS_LABEL = {"pass": "PASS", "fail": "FAIL", "not_checked": "NOT CHECKED"}


def e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def page_head(title: str, css: str) -> str:
    """A self-contained page's start, up to ``</head>``: ``title`` is escaped here, ``css`` is the page's styles."""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="mtgauntlet {e(__version__)}">
<title>{e(title)}</title>
<style>{css}</style>
</head>
"""


def anchor(kind: str, record_id: str) -> str:
    """A safe, unique element id for a record (ids are data: never put them in an attribute unhashed)."""
    return "rec-" + hashlib.sha1(f"{kind}\0{record_id}".encode()).hexdigest()[:14]


def fmt_value(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isnan(v):
            return "n/a"
        if v == int(v) and abs(v) < 1e9:
            return f"{int(v):,}"
        return f"{v:.4g}" if abs(v) >= 1e-3 else f"{v:.3e}"
    return str(v)


def data_value(v: Any) -> str:
    if isinstance(v, float) and math.isnan(v):
        return '"nan"'
    try:
        return json.dumps(v)
    except TypeError:
        return json.dumps(str(v))


def value_cell(v: Any, key: str | None = None, attr: str = "data-metric") -> str:
    """A right-aligned number cell; ``key`` names the value for machine readers (``attr``="key")."""
    cls = "num na" if v is None or (isinstance(v, float) and math.isnan(v)) else "num"
    title = ' title="not computed"' if v is None else ""
    tag = f' {attr}="{e(key)}" data-value="{e(data_value(v))}"' if key is not None else ""
    return f'<td class="{cls}"{tag}{title}>{e(fmt_value(v))}</td>'


def badge(status: str) -> str:
    return f'<span class="badge {e(status)}">{e(STATUS_LABEL.get(status, status))}</span>'


def tag(text: Any) -> str:
    return f'<span class="badge tag">{e(text)}</span>'


def table(header: Sequence[str], rows: Iterable[str], cls: str = "", num_cols: Sequence[int] = ()) -> str:
    """``rows`` are ready ``<tr>`` strings; header cells are escaped here."""
    head = "".join(
        f'<th class="num">{e(h)}</th>' if i in num_cols else f"<th>{e(h)}</th>" for i, h in enumerate(header)
    )
    body = "".join(rows)
    if not body:
        return ""
    return f'<table class="{e(cls)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def plain_row(*cells: Any) -> str:
    return "<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>"


def figure(svg: str, caption: str) -> str:
    if not svg:
        return ""
    return f"<figure>{svg}<figcaption>{e(caption)}</figcaption></figure>"


def section(sid: str, title: str, body: str) -> str:
    return f'<section class="part" id="{e(sid)}"><h2>{e(title)}</h2>{body}</section>'
