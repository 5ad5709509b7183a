"""Escaping for the dataset card: every user or data string that reaches README.md goes through one of these.

The Hub renders cards as Markdown with HTML allowed, so a name like ``<img src=x onerror=...>`` or
``[x](javascript:...)`` must come out as text. :func:`md_text` makes a string inert Markdown text (HTML
characters as entities, Markdown punctuation backslash-escaped, one line); :func:`md_code` puts it in a code
span that no backtick inside can close; :func:`md_fence` does the same for a fenced block. The YAML header is
written by ``yaml.safe_dump`` (through huggingface_hub), which quotes whatever needs quoting.
"""

from __future__ import annotations

import re
from typing import Any

_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!~])")
_TICKS = re.compile(r"`+")


def one_line(value: Any) -> str:
    return " ".join(str("" if value is None else value).split())


def md_text(value: Any) -> str:
    """``value`` as literal text in a Markdown paragraph, heading or table cell (pipes are the table's job)."""
    text = _MD_PUNCT.sub(r"\\\1", one_line(value))
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_code(value: Any) -> str:
    """``value`` as an inline code span (shown verbatim; HTML inside a code span is never interpreted)."""
    text = one_line(value)
    run = max((len(m) for m in _TICKS.findall(text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) or run else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_fence(text: str, info: str = "") -> str:
    """A fenced code block holding ``text`` verbatim: the fence is longer than any backtick run inside."""
    run = max((len(m) for m in _TICKS.findall(text)), default=0)
    fence = "`" * max(3, run + 1)
    return f"{fence}{info}\n{text.rstrip()}\n{fence}"
