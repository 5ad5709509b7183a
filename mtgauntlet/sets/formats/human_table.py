"""Human judgments as one flat TSV (read with quoting off): ``lp, seg_id, system, <score columns>, src, ref, tgt``
and optionally ``doc_id`` (or ``doc``) and ``domain``, like ``wmt23_mtme_seg_scores.tsv.gz``.

Each row becomes a ``human_score``: the score columns named by ``score_cols`` (``--score-col mqm,da_sqm``) go into
``scores``, ordered by name (an empty cell is a missing judgment, null); every other column goes into ``extra`` as
text. A row without any human score is skipped and counted (as in the mt-metrics-eval layout); two rows of one
(lp, seg_id, system) are an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mtgauntlet.errors import InputError, UsageError
from mtgauntlet.sets.field_checks import Once, score_value
from mtgauntlet.sets.imported import ImportedSet, extra_json, split_lp
from mtgauntlet.sets.text_files import read_tsv

REQUIRED = ("lp", "seg_id", "system", "src")
OPTIONAL = {"ref": ("ref",), "tgt": ("tgt",), "doc": ("doc_id", "doc"), "domain": ("domain",)}


def read_human_table(path: str | Path, score_cols: Sequence[str]) -> ImportedSet:
    if not score_cols:
        raise UsageError("--score-col: name the table's human score column(s), e.g. --score-col mqm,da_sqm")
    table = read_tsv(path)
    p = str(path)
    missing = [c for c in (*REQUIRED, *score_cols) if c not in table.columns]
    if missing:
        raise InputError(
            f"no column {missing[0]!r} (a human-table has {', '.join(REQUIRED)}, the score columns "
            f"and optionally ref, tgt, doc_id, domain; it has {', '.join(table.columns)})",
            file=p,
            line=1,
        )
    optional = {f: next((c for c in names if c in table.columns), None) for f, names in OPTIONAL.items()}
    used = {*REQUIRED, *score_cols, *(c for c in optional.values() if c)}
    others = [c for c in table.columns if c not in used]
    out = ImportedSet("human_score", files=[Path(path)])
    seen = Once(p, "lp, seg_id, system")
    for line, row in table.rows:
        key = (row["lp"], row["seg_id"], row["system"])
        seen.see(key, line, "seg_id", shown=", ".join(key))
        for c in ("seg_id", "system"):
            if row[c] == "":
                raise InputError("empty value", file=p, line=line, field=c)
        scores: dict[str, Any] = {}
        for c in sorted(score_cols):  # by name, as every importer orders them
            scores[c] = score_value(row[c], file=p, line=line, field=c)
        if all(v is None for v in scores.values()):
            out.skipped["no human score in the score columns"] += 1
            continue
        src_lang, tgt_lang = split_lp(row["lp"], file=p, line=line, field_name="lp")
        rec = {
            "lp": row["lp"],
            "seg_id": row["seg_id"],
            "system": row["system"],
            "src": row["src"],
            "src_lang": src_lang,
            "tgt_lang": tgt_lang,
            "scores": scores,
            "extra": extra_json({c: row[c] for c in others}),
        }
        for f, col in optional.items():
            rec[f] = row[col] if col else None
        for f in ("doc", "domain"):
            rec[f] = rec[f] or None  # an empty cell: not known
        out.records.append(rec)
    return out
