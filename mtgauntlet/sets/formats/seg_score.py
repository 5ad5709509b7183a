"""Metric results (``metric_score`` records) as the WMT metrics task's submission files:

- ``METRIC.seg.score``: ``METRIC<TAB>LP<TAB>TESTSET<TAB>REF<TAB>SYSTEM<TAB>SEG<TAB>SCORE`` per scored item;
- ``METRIC.sys.score``: ``METRIC<TAB>LP<TAB>TESTSET<TAB>REF<TAB>SYSTEM<TAB>SCORE``, the mean of the system's
  segment scores (items the metric failed on are left out of the mean and written as ``None``).

TESTSET is the set's release name, REF ``-`` (the score records do not say which reference a metric read). For a
pair set SYSTEM is the side (``good`` / ``bad``) and SEG the record ``id``; for a human-judgment set SYSTEM and SEG
are the record's ``system`` and ``seg_id``. :func:`seg_score_lines` is a pure function of the score records and a
lookup of the scored records (record id -> lp, system, seg).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError

REF = "-"


def _text(value: Any, what: str) -> str:
    text = str(value)
    if "\t" in text or "\n" in text:
        raise GauntletError(f"{what} {text[:60]!r} holds a TAB or line break; the WMT score files cannot carry it")
    return text


def seg_score_lines(
    scores: Iterable[Mapping[str, Any]], items: Mapping[str, tuple[str, str, str]]
) -> dict[str, tuple[list[str], list[str]]]:
    """metric -> (seg-level lines, sys-level lines). ``items``: record id -> (lp, system, seg) for human-judgment
    records; pair records are looked up by id for their lp and written with their side as the system."""
    seg: dict[str, list[str]] = defaultdict(list)
    sums: dict[str, dict[tuple[str, str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in scores:
        metric, rid = _text(s["metric"], "metric"), s["record_id"]
        if rid not in items:
            raise GauntletError(
                f"score of record {rid} ({s['set']} {s['version']}): the record is not in the set's release"
            )
        lp, system, segment = items[rid]
        if s["side"] in ("good", "bad"):
            system, segment = s["side"], rid
        testset = _text(s["set"], "set name")
        value = s.get("score")
        seg[metric].append(
            "\t".join(
                [
                    metric,
                    _text(lp, "lp"),
                    testset,
                    REF,
                    _text(system, "system"),
                    _text(segment, "segment"),
                    "None" if value is None else repr(float(value)),
                ]
            )
        )
        per = sums[metric][(lp, testset, system)]
        if value is not None:
            per.append(float(value))
    out = {}
    for metric, lines in seg.items():
        sys_lines = [
            "\t".join([metric, lp, testset, REF, system, repr(sum(v) / len(v)) if v else "None"])
            for (lp, testset, system), v in sorted(sums[metric].items())
        ]
        out[metric] = (lines, sys_lines)
    return out


def file_stem(metric: str) -> str:
    """A metric spec as a file name (``comet:Unbabel/wmt22-comet-da`` -> ``comet_Unbabel_wmt22-comet-da``)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", metric).strip(".") or "metric"


def write_seg_scores(out: Path, lines: dict[str, tuple[list[str], list[str]]]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    stems = [file_stem(m) for m in lines]
    if len(set(stems)) != len(stems):
        raise GauntletError("two metrics have the same file name once made safe; export them separately")
    for metric, (seg, sys_) in sorted(lines.items()):
        for suffix, rows in (("seg", seg), ("sys", sys_)):
            p = out / f"{file_stem(metric)}.{suffix}.score"
            p.write_text("".join(r + "\n" for r in rows), encoding="utf-8")
            written.append(p)
    return written
