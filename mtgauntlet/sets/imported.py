"""What a format reader returns: the records of one set (without the common fields the importer adds) and what it
skipped, with reasons."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.sets.field_checks import language_pair


@dataclass
class ImportedSet:
    """``records``: dicts of the kind's own fields plus ``src_lang``, ``tgt_lang``, ``source_id``;
    ``files``: the files read (their sha256 may recognise the data); ``skipped``: reason -> rows not kept."""

    kind: str
    records: list[dict[str, Any]] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)


def split_lp(lp: str, *, file: str, line: int | None, field_name: str) -> tuple[str, str]:
    """(source language, target language) of a language pair ``src-tgt`` (see
    :func:`mtgauntlet.sets.field_checks.language_pair`)."""
    return language_pair(lp, file=file, line=line, field=field_name)


def as_number(text: str) -> float | None:
    """A numeric column's value (empty or None = missing); raises ValueError for other text. ``inf`` parses (so a
    column holding it is still a score column): :func:`~mtgauntlet.sets.field_checks.score_value` then refuses it."""
    t = text.strip()
    if t in ("", "None", "none", "nan", "NaN", "NA"):
        return None
    return float(t)


def numeric_columns(rows: list[dict[str, str]], columns: list[str]) -> list[str]:
    """The columns whose every value is a number or missing, and at least one is a number."""
    out = []
    for c in columns:
        seen = False
        for r in rows:
            try:
                v = as_number(r[c])
            except ValueError:
                break
            seen = seen or v is not None
        else:
            if seen:
                out.append(c)
    return out


def extra_json(values: dict[str, Any]) -> str | None:
    """The set's other columns as a JSON object in their order (null when there are none)."""
    return json.dumps(values, ensure_ascii=False) if values else None
