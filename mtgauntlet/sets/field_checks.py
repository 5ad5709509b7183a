"""The checks every importer applies to the values of a row, each failure one line naming the file, the line and the
field (an :class:`~mtgauntlet.errors.InputError`, exit 2):

- a score is a finite number or missing (``inf``, ``-inf``, ``1e400`` and a JSON ``Infinity`` are malformed values,
  like ``n/a``; ``nan`` and an empty cell are a missing score, as before);
- a language pair is two language codes ``SRC-TGT``, each an ISO 639 code with optional ``_`` subtags
  (``en-de``, ``en-cs_CZ``, ``spa_Latn-eng_Latn``); nothing else (no markup, no spaces);
- a text holds no NUL byte (which no TSV, JSON-lines or Parquet consumer reads back the same);
- a row's id (an id column's value, or the whole row when there is none) appears once: a repeat names both lines.

Generic on purpose: any format reader (``sets/formats/``) calls these with its own file, line and field names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable
from typing import Any

from mtgauntlet.errors import InputError

LANGUAGE_CODE = re.compile(r"[A-Za-z]{2,3}(?:_[A-Za-z0-9]{2,8})*")
MISSING = ("", "None", "none", "nan", "NaN", "NA")


def score_value(value: Any, *, file: str, line: int | None, field: str) -> float | None:
    """A score cell (text, JSON number or null) as a finite float, or None where it is missing."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text in MISSING:
            return None
        try:
            number = float(text)
        except ValueError:
            raise InputError(f"not a number: {value!r}", file=file, line=line, field=field) from None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and math.isnan(value):
            return None
        try:
            number = float(value)
        except OverflowError:  # an integer too large for a float
            number = math.inf
    else:
        raise InputError(f"not a number: {value!r}", file=file, line=line, field=field)
    if not math.isfinite(number):
        raise InputError(
            f"not a finite number: {value!r} (a score is a finite number, or empty when missing)",
            file=file,
            line=line,
            field=field,
        )
    return number


def language_pair(lp: Any, *, file: str, line: int | None, field: str) -> tuple[str, str]:
    """(source language, target language) of ``SRC-TGT``, each side a language code."""
    parts = lp.split("-") if isinstance(lp, str) else []
    if len(parts) != 2 or not all(LANGUAGE_CODE.fullmatch(p) for p in parts):
        raise InputError(
            f"language pair {str(lp)[:80]!r}: expected two language codes SRC-TGT (e.g. de-en, en-cs_CZ)",
            file=file,
            line=line,
            field=field,
        )
    return parts[0], parts[1]


def text_value(value: Any, *, file: str, line: int | None, field: str) -> Any:
    """``value`` unchanged; a text holding a NUL byte is refused (anything else is kept byte for byte)."""
    if isinstance(value, str) and "\x00" in value:
        raise InputError(
            f"a NUL byte at character {value.index(chr(0))}: text cannot hold one", file=file, line=line, field=field
        )
    return value


def texts_in(value: Any, *, file: str, line: int | None, field: str) -> None:
    """:func:`text_value` on every text inside a JSON value (strings, list items, object keys and values)."""
    if isinstance(value, str):
        text_value(value, file=file, line=line, field=field)
    elif isinstance(value, list):
        for v in value:
            texts_in(v, file=file, line=line, field=field)
    elif isinstance(value, dict):
        for k, v in value.items():
            texts_in(k, file=file, line=line, field=field)
            texts_in(v, file=file, line=line, field=field)


class Once:
    """Where each key was first seen; a key seen again is an error naming both lines."""

    def __init__(self, file: str, what: str):
        self.file, self.what = file, what
        self.first: dict[Hashable, int | None] = {}

    def see(self, key: Hashable, line: int | None, field: str | None = None, shown: str = "") -> None:
        """Note ``key`` on ``line``; ``shown``: how the message names the key (nothing: ``what`` says it all)."""
        if key in self.first:
            raise InputError(
                f"{self.what}{' ' + shown if shown else ''} again: line {line} repeats line {self.first[key]}",
                file=self.file,
                line=line,
                field=field,
            )
        self.first[key] = line
