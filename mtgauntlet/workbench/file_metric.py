"""``-m file:PATH``: a metric someone already ran elsewhere (e.g. on a GPU cluster), read from a JSON-lines file.

One line per item: ``lp``, ``seg_id``, ``system`` for a human-judgment set (or ``id``, the record id, and ``side``,
``good`` or ``bad``, for a pair set), an optional ``score`` (a number) and optional ``spans``: a list of
``{"start": int, "end": int, "severity": str}`` (character offsets into the item's translation, end exclusive; an
empty list says the metric found no error). An item of the set without a line has no score (``failure`` says so);
a line that names no item of the set is ignored. The signature names the file and its sha256, so a changed file
scores again; a value belongs to its record (never shared between sets).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.errors import InputError, UsageError
from mtgauntlet.workbench.metrics import Scorer
from mtgauntlet.workbench.sets import PAIR_KINDS, Items

Answer = tuple[float | None, str | None, list[dict[str, Any]] | None]


@dataclass
class FileScorer(Scorer):
    """A ``file:`` metric: its answers by item key ((lp, seg_id, system) or (record id, side))."""

    answers: dict[tuple[str, str, str], tuple[float | None, list[dict[str, Any]] | None]] = field(default_factory=dict)


def _spans(value: Any, where: str, line: int) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise InputError("spans: expected a list of {start, end, severity}", file=where, line=line, field="spans")
    out = []
    for s in value:
        try:
            start, end = int(s["start"]), int(s["end"])
        except (KeyError, TypeError, ValueError):
            raise InputError("spans: each needs integer start and end", file=where, line=line, field="spans") from None
        if start < 0 or end < start:
            raise InputError(f"spans: start {start}, end {end}", file=where, line=line, field="spans")
        severity = s.get("severity")
        out.append({"start": start, "end": end, "severity": None if severity is None else str(severity)})
    return out


def file_scorer(spec: str) -> FileScorer:
    from mtgauntlet.fileio import sha256_file

    path = Path(spec[len("file:") :])
    if not path.is_file():
        raise UsageError(f"--metric {spec}: no such file")
    answers: dict[tuple[str, str, str], tuple[float | None, list[dict[str, Any]] | None]] = {}
    where = str(path)
    with path.open(encoding="utf-8") as f:
        for line_no, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"not JSON: {exc.msg}", file=where, line=line_no) from None
            if not isinstance(obj, dict):
                raise InputError("expected a JSON object", file=where, line=line_no)
            if "id" in obj:
                key = ("", str(obj["id"]), str(obj.get("side", "")))
            elif all(k in obj for k in ("lp", "seg_id", "system")):
                key = (str(obj["lp"]), str(obj["seg_id"]), str(obj["system"]))
            else:
                raise InputError("name the item: lp, seg_id, system (or id and side)", file=where, line=line_no)
            score = obj.get("score")
            if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
                raise InputError(f"not a number: {score!r}", file=where, line=line_no, field="score")
            if score is not None and not math.isfinite(score):
                raise InputError(f"not a finite number: {score!r}", file=where, line=line_no, field="score")
            if key in answers:
                raise InputError(f"item {key} again", file=where, line=line_no)
            answers[key] = (None if score is None else float(score), _spans(obj.get("spans"), where, line_no))
    signature = f"file:{path.name}|sha256={sha256_file(path)[:16]}"
    return FileScorer(spec, signature, answers=answers)


def file_values(scorer: FileScorer, items: Items, idx: Sequence[int]) -> list[Answer]:
    """The file's (score, failure, spans) of each item."""
    out: list[Answer] = []
    pairs = items.set.kind in PAIR_KINDS
    for i in idx:
        key = (
            ("", items.record_id[i], items.side[i])
            if pairs
            else (items.lp[i], str(items.seg_id[i]), str(items.system[i]))
        )
        hit = scorer.answers.get(key)
        if hit is None:
            out.append((None, f"{scorer.name}: no line for this item", None))
            continue
        score, spans = hit
        failure = None if score is not None or spans is not None else f"{scorer.name}: no score and no spans"
        out.append((score, failure, spans))
    return out
