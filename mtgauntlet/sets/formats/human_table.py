"""Human judgments as one flat TSV (read with quoting off): ``lp, seg_id, system, <score columns>, src, ref, tgt``
and optionally ``doc_id`` (or ``doc``) and ``domain``, like ``wmt23_mtme_seg_scores.tsv.gz``.

Each row becomes a ``human_score``: the score columns named by ``score_cols`` (``--score-col mqm,da_sqm``) go into
``scores``, ordered by name (an empty cell is a missing judgment, null); every other column goes into ``extra`` as
text. A row without any human score is skipped and counted (as in the mt-metrics-eval layout); two rows of one
(lp, seg_id, system) are an error.

Systems as WMT's metrics task (:mod:`mtgauntlet.sets.systems`): rows of human references (a truthy
``is_human_ref`` column; without that column, a system named like one: refA, synthetic_ref) are skipped and counted
unless ``--ref-systems`` keeps them; ``--reference NAME`` makes that reference's rows the reference of their segment
(instead of the ``ref`` column) and never a system; ``--exclude-systems`` leaves systems out.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mtgauntlet.errors import InputError, UsageError
from mtgauntlet.sets.field_checks import Once, score_value
from mtgauntlet.sets.imported import ImportedSet, extra_json, split_lp
from mtgauntlet.sets.systems import TRUE, SystemChoice, looks_like_reference
from mtgauntlet.sets.text_files import read_tsv

REQUIRED = ("lp", "seg_id", "system", "src")
OPTIONAL = {"ref": ("ref",), "tgt": ("tgt",), "doc": ("doc_id", "doc"), "domain": ("domain",)}


def _references(rows: list[tuple[int, dict[str, str]]], choice: SystemChoice, p: str) -> dict[tuple[str, str], str]:
    """(lp, seg_id) -> the text of the reference ``--reference`` names for that lp (its rows' ``tgt``)."""
    wanted = {lp: choice.reference_for(lp) for lp in {row["lp"] for _, row in rows}}
    out: dict[tuple[str, str], str] = {}
    for _, row in rows:
        if wanted.get(row["lp"]) == row["system"]:
            out[(row["lp"], row["seg_id"])] = row.get("tgt", "")
    for lp, name in sorted(wanted.items()):
        if name is not None and not any(k[0] == lp for k in out):
            raise InputError(f"--reference {name}: {lp} has no rows of system {name!r}", file=p, field="system")
    return out


def read_human_table(path: str | Path, score_cols: Sequence[str], choice: SystemChoice | None = None) -> ImportedSet:
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
    choice = choice or SystemChoice()
    if choice.reference and "tgt" not in table.columns:
        raise InputError("--reference takes the reference's rows' tgt: the table has no tgt column", file=p, line=1)
    rows = list(table.rows)
    chosen_refs = _references(rows, choice, p) if choice.reference else {}
    flagged = "is_human_ref" in table.columns
    seen = Once(p, "lp, seg_id, system")
    for line, row in rows:
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
        is_ref = row["is_human_ref"].strip() in TRUE if flagged else looks_like_reference(row["system"])
        why = choice.skip_reason(row["lp"], row["system"], is_ref)
        if why is not None:
            out.skipped[why] += 1
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
        if choice.reference_for(row["lp"]) is not None:
            rec["ref"] = chosen_refs.get((row["lp"], row["seg_id"]))
        for f in ("doc", "domain"):
            rec[f] = rec[f] or None  # an empty cell: not known
        out.records.append(rec)
    return out
