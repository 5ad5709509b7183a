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


def _opcodes(a: str, b: str):
    """Token-level edit operations, with short islands of sameness (at most one word, e.g. "of", " in ")
    between two changes folded into the change: a rewritten clause reads as one change, not confetti."""
    ta, tb = tokens(a or ""), tokens(b or "")
    ops: list[tuple[str, int, int, int, int]] = list(SequenceMatcher(a=ta, b=tb, autojunk=False).get_opcodes())
    merged = True
    while merged:
        merged = False
        for k in range(1, len(ops) - 1):
            op, i1, i2 = ops[k][:3]
            if (
                op == "equal"
                and ops[k - 1][0] != "equal"
                and ops[k + 1][0] != "equal"
                and sum(t[0].isalnum() or t[0] == "_" for t in ta[i1:i2]) <= 1
            ):
                ops[k - 1 : k + 2] = [("replace", ops[k - 1][1], ops[k + 1][2], ops[k - 1][3], ops[k + 1][4])]
                merged = True
                break
    for op, i1, i2, j1, j2 in ops:
        yield op, escape("".join(ta[i1:i2])), escape("".join(tb[j1:j2]))


def word_diff(a: str, b: str) -> tuple[str, str]:
    """(a with removed words in <del>, b with added words in <ins>), both escaped."""
    out_a, out_b = [], []
    for op, pa_, pb_ in _opcodes(a, b):
        out_a.append(pa_ if op == "equal" or not pa_ else f"<del>{pa_}</del>")
        out_b.append(pb_ if op == "equal" or not pb_ else f"<ins>{pb_}</ins>")
    return "".join(out_a), "".join(out_b)


def inline_diff(a: str, b: str) -> str:
    """One line from a to b: removed words in <del>, added words in <ins>, escaped."""
    out = []
    for op, pa_, pb_ in _opcodes(a, b):
        if op == "equal":
            out.append(pb_)
            continue
        out.append((f"<del>{pa_}</del>" if pa_ else "") + (f"<ins>{pb_}</ins>" if pb_ else ""))
    return "".join(out)


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
            bad_html = (
                f"{escape(bad[:s])}<ins>{escape(repl)}</ins>{escape(bad[s + len(repl) :])}" if repl else escape(bad)
            )
            return ref_html, bad_html, "span offsets"
        return ref_html, word_diff(ref, bad)[1], "span offsets in the reference; word diff in the bad hypothesis"
    a, b = word_diff(ref, bad)
    return a, b, "word diff (no span offsets stored)"
