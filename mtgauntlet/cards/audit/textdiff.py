"""Edits shown as HTML: a SMAUG record's changed span, and a word-level diff between two texts.

Texts are escaped piece by piece; the markup is only ``<del>`` / ``<ins>`` around escaped text.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from html import escape
from typing import Any

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


def tokens(text: str) -> list[str]:
    """Words, runs of white space and single symbols: joined back they give the text byte for byte."""
    return _TOKEN.findall(text)


def word_diff(a: str, b: str) -> tuple[str, str]:
    """(a with removed words in <del>, b with added words in <ins>), both escaped."""
    ta, tb = tokens(a or ""), tokens(b or "")
    out_a, out_b = [], []
    for op, i1, i2, j1, j2 in SequenceMatcher(a=ta, b=tb, autojunk=False).get_opcodes():
        pa_, pb_ = escape("".join(ta[i1:i2])), escape("".join(tb[j1:j2]))
        if op == "equal":
            out_a.append(pa_)
            out_b.append(pb_)
            continue
        if pa_:
            out_a.append(f"<del>{pa_}</del>")
        if pb_:
            out_b.append(f"<ins>{pb_}</ins>")
    return "".join(out_a), "".join(out_b)


def smaug_edit(rec: dict[str, Any]) -> tuple[str, str, str]:
    """(reference HTML, bad HTML, how the edit was located) for a SMAUG record.

    The stored offsets mark ``span_original`` in ``ref``; when ``bad`` is exactly the reference with that span
    replaced by ``span_replacement`` the replacement is highlighted there, otherwise (e.g. a deletion that also
    fixed the final punctuation) the two texts are compared word by word.
    """
    ref, bad = rec.get("ref") or "", rec.get("bad") or ""
    s, e = rec.get("span_start"), rec.get("span_end")
    repl = rec.get("span_replacement") or ""
    if isinstance(s, int) and isinstance(e, int) and 0 <= s <= e <= len(ref):
        ref_html = f"{escape(ref[:s])}<del>{escape(ref[s:e])}</del>{escape(ref[e:])}" if e > s else escape(ref)
        if bad == ref[:s] + repl + ref[e:]:
            bad_html = f"{escape(bad[:s])}<ins>{escape(repl)}</ins>{escape(bad[s + len(repl):])}" if repl \
                else escape(bad)
            return ref_html, bad_html, "span offsets"
        return ref_html, word_diff(ref, bad)[1], "span offsets in the reference; word diff in the bad hypothesis"
    a, b = word_diff(ref, bad)
    return a, b, "word diff (no span offsets stored)"
