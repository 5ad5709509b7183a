"""Error-span annotations in Google's MQM format (github.com/google/wmt-mqm-human-evaluation, e.g.
``mqm_ted_ende.tsv``): one row per error, ``system, doc, doc_id, seg_id, rater, source, target, category,
severity[, comment]``, the error's span marked ``<v>…</v>`` in ``target`` (or in ``source`` for an omission), and
``No-error`` rows for a rater who found none. Read with quoting off.

Each (lp, seg_id, system) becomes one ``human_score`` record: ``tgt`` the target with the markers taken out (every
row of an item must give the same text), ``spans`` the target spans (``start``, ``end``: character offsets into that
text, end exclusive; ``severity``, ``category``, ``rater``), and ``scores.mqm`` the MQM score as Google computes it
(Freitag et al. 2021): per rater the sum of the error weights (Major 5, Minor 1, Minor Fluency/Punctuation 0.1,
Non-translation 25, Neutral 0), averaged over the item's raters and negated (0 = no error). An error marked in the
source or not at all counts in the score but gives no target span (counted). The language pair is the ``lp`` column,
else the file name's ``_ende`` / ``_zhen`` part (``mqm_ted_ende.tsv.gz`` -> en-de).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from mtgauntlet.errors import InputError
from mtgauntlet.sets.field_checks import language_pair, text_value
from mtgauntlet.sets.imported import ImportedSet, extra_json
from mtgauntlet.sets.text_files import read_tsv

REQUIRED = ("system", "seg_id", "rater", "source", "target", "category", "severity")
MARK = re.compile(r"</?v>")
_LP_IN_NAME = re.compile(r"_([a-z]{2})([a-z]{2})(?=[._]|$)")


def mqm_weight(category: str, severity: str) -> float:
    """Google's MQM weight of one error (Freitag et al. 2021)."""
    sev, cat = severity.strip().lower(), category.strip().lower()
    if sev in ("no-error", "neutral") or cat == "no-error":
        return 0.0
    if cat.startswith("non-translation"):
        return 25.0
    if sev == "major" or sev == "critical":
        return 5.0
    if sev == "minor":
        return 0.1 if cat == "fluency/punctuation" else 1.0
    return 0.0


def unmark(marked: str) -> tuple[str, list[tuple[int, int]]]:
    """The text without ``<v>``/``</v>`` and the (start, end) of each marked span in it."""
    out, spans, pos, start = [], [], 0, None
    for m in MARK.finditer(marked):
        out.append(marked[pos : m.start()])
        here = sum(len(x) for x in out)
        if m.group() == "<v>":
            start = here
        elif start is not None:
            spans.append((start, here))
            start = None
        pos = m.end()
    out.append(marked[pos:])
    return "".join(out), spans


def _lp_of(path: Path, row: dict[str, str]) -> str | None:
    if row.get("lp"):
        return row["lp"]
    found = _LP_IN_NAME.findall(path.name)  # the last one: mqm_test_ende.tsv -> en-de
    return f"{found[-1][0]}-{found[-1][1]}" if found else None


def read_mqm_spans(path: str | Path) -> ImportedSet:
    p = Path(path)
    table = read_tsv(p)
    missing = [c for c in REQUIRED if c not in table.columns]
    if missing:
        raise InputError(
            f"no column {missing[0]!r} (Google's MQM format has {', '.join(REQUIRED)}; it has "
            f"{', '.join(table.columns)})",
            file=str(p),
            line=1,
        )
    items: dict[tuple[str, str, str], dict[str, Any]] = {}
    weights: dict[tuple[str, str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    out = ImportedSet("human_score", files=[p])
    for line, row in table.rows:
        lp = _lp_of(p, row)
        if lp is None:
            raise InputError("no lp column and no _xxyy language pair in the file name", file=str(p), line=line)
        src_lang, tgt_lang = language_pair(lp, file=str(p), line=line, field="lp")
        for c in ("source", "target", "system", "seg_id", "rater"):
            text_value(row[c], file=str(p), line=line, field=c)
        for c in ("seg_id", "system"):
            if not row[c]:
                raise InputError("empty value", file=str(p), line=line, field=c)
        key = (lp, row["seg_id"], row["system"])
        tgt, marked = unmark(row["target"])
        src, _ = unmark(row["source"])
        item = items.setdefault(
            key,
            {
                "lp": lp,
                "seg_id": row["seg_id"],
                "system": row["system"],
                "src": src,
                "ref": None,
                "tgt": tgt,
                "doc": row.get("doc") or None,
                "domain": None,
                "src_lang": src_lang,
                "tgt_lang": tgt_lang,
                "spans": [],
                "_line": line,
            },
        )
        if item["tgt"] != tgt:
            raise InputError(
                f"target of lp {lp}, seg_id {key[1]}, system {key[2]} differs from line {item['_line']}'s",
                file=str(p),
                line=line,
                field="target",
            )
        weights[key][row["rater"]] += mqm_weight(row["category"], row["severity"])
        if row["category"].strip().lower() == "no-error":
            continue
        if not marked:
            out.skipped["error without a target span (in the MQM score, no span)"] += 1
        for start, end in marked:
            item["spans"].append(
                {
                    "start": start,
                    "end": end,
                    "severity": row["severity"],
                    "category": row["category"],
                    "rater": row["rater"],
                }
            )
    for key, item in items.items():
        item.pop("_line")
        per_rater = weights[key]
        item["scores"] = {"mqm": 0.0 - sum(per_rater.values()) / len(per_rater)}  # 0.0 -: no negative zero
        item["extra"] = extra_json({"raters": sorted(per_rater)})
        out.records.append(item)
    return out
