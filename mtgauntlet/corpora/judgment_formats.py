"""Ready-made readers for human judgment tables, returning normalised rows (the `judgment` record kind).

judgment rows:  lp, item_id, src, system, tgt, score, protocol, [domain]
"""

from __future__ import annotations

import math
import re
from typing import Any

from mtgauntlet.corpora.readers import RowSet, read_rows
from mtgauntlet.corpora.row_ids import row_id
from mtgauntlet.errors import InputError


def _float(value: Any, path: str, line: int, field: str) -> float | None:
    if value is None or value == "" or value == "None":
        return None
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise InputError(f"not a number: {value!r}", file=path, line=line, field=field) from None
    return None if math.isnan(f) else f


HUMAN_SYSTEM = re.compile(r"^(ref-?[A-Z]|Human-[A-Z]+(\.\d+)?)$")  # WMT names of human translations


def _is_human(row: dict[str, Any], human_col: str | None) -> bool:
    if human_col and human_col in row:
        return str(row.get(human_col)).strip().lower() in ("1", "true", "yes")
    return bool(HUMAN_SYSTEM.match(str(row.get("system", ""))))


def _judgments(
    rs: RowSet,
    score_col: str,
    protocol: str,
    item_col: str,
    testset_col: str | None = None,
    keep_refs: bool = False,
    human_col: str | None = "is_human_ref",
) -> RowSet:
    """Normalised judgment rows; ``human`` marks human translations (``is_human_ref``, or WMT's ref/Human-
    system names where the layout has no such column). Without ``keep_refs`` they are skipped and counted."""
    rows = []
    for r in rs.rows:
        score = _float(r.get(score_col), rs.path, r["_line"], score_col)
        if score is None:
            rs.skipped.append((r["_line"], score_col, "no score"))
            continue
        human = _is_human(r, human_col)
        if human and not keep_refs:
            rs.skipped.append((r["_line"], human_col or "system", "human translation"))
            continue
        item = row_id(r, item_col, rs.path)
        if testset_col:
            item = f"{r[testset_col]}:{item}"
        rows.append(
            {
                "lp": r["lp"],
                "item_id": item,
                "src": r["src"],
                "system": r["system"],
                "tgt": r.get("tgt") or None,
                "score": score,
                "protocol": protocol,
                "human": human,
                "protocol_source": "layout",
                "domain": r.get("domain") or (r.get(testset_col) if testset_col else None),
                "_line": r["_line"],
            }
        )
    rs.rows = rows
    return rs


def read_google_mqm(path, on_error: str = "raise", keep_refs: bool = False, **_) -> RowSet:
    """google/wmt-mqm-human-evaluation segment scores (MQM: 0 best, more negative worse)."""
    rs = read_rows(
        path,
        format="tsv",
        quoting="none",
        required=["testset", "lp", "seg_id", "system", "mqm_avg_score", "src"],
        text_fields=["src"],
        on_error=on_error,
    )
    return _judgments(rs, "mqm_avg_score", "mqm", "seg_id", testset_col="testset", keep_refs=keep_refs)


def _read_wmt23_table(path, score: str, on_error: str) -> RowSet:
    """A WMT23 judgment table (TSV without quoting) with the columns lp, seg_id, system, ``score`` and src."""
    return read_rows(
        path,
        format="tsv",
        quoting="none",
        required=["lp", "seg_id", "system", score, "src"],
        text_fields=["src"],
        on_error=on_error,
    )


def read_wmt23_mtme(path, score: str = "mqm", on_error: str = "raise", keep_refs: bool = False, **_) -> RowSet:
    """WMT23 mt-metrics-eval table: score 'mqm' or 'da_sqm'."""
    rs = _read_wmt23_table(path, score, on_error)
    return _judgments(rs, score, "mqm" if score == "mqm" else "da", "seg_id", keep_refs=keep_refs)


def read_wmt23_esa(path, score: str = "ESA-1", on_error: str = "raise", keep_refs: bool = True, **_) -> RowSet:
    """WMT23 en-de ESA campaign (ESA-1, ESA-2, MQM-1, ESAAI-1, ESAAI-2 columns); system refA is the human
    translation (marked ``human``; kept by default, as before)."""
    rs = _read_wmt23_table(path, score, on_error)
    return _judgments(
        rs, score, "mqm" if score.startswith("MQM") else "esa", "seg_id", keep_refs=keep_refs, human_col=None
    )


PROTOCOLS = ("esa", "mqm", "da")


def infer_protocol(scores: list[float]) -> str | None:
    """'mqm' when every score is <= 0 and one is below 0 (MQM penalties: 0 = no error); otherwise None: a
    0-100 table could be ESA/DA (higher = better, perfect 100) or MQM error points, so it must be said."""
    if scores and max(scores) <= 0 < -min(scores):
        return "mqm"
    return None


def read_judgments(
    path,
    columns: dict[str, str] | None = None,
    protocol: str | None = None,
    on_error: str = "raise",
    keep_refs: bool = True,
    quoting: str | None = None,
    **_,
) -> RowSet:
    """Any judgment table (TSV/CSV/JSONL/Parquet, gz ok) with columns lp,item_id,src,system,tgt,score
    [,protocol][,is_human_ref]. The protocol comes from ``protocol``, else the table's protocol column,
    else is inferred from the scores (:func:`infer_protocol`); where it cannot be, an error asks for it.
    Each row says where its protocol came from (``protocol_source``: option, column, inferred)."""
    columns = dict(columns or {})
    if protocol is not None and protocol not in PROTOCOLS:
        raise InputError(f"unknown protocol {protocol!r} (esa, mqm or da)", field="--protocol")
    rs = read_rows(
        path,
        columns=columns,
        required=["lp", "item_id", "src", "system", "score"],
        text_fields=["src"],
        on_error=on_error,
        quoting=quoting,
    )
    score_field = columns.get("score", "score")
    human_col = "human" if "human" in columns else "is_human_ref"
    rows = []
    for r in rs.rows:
        score = _float(r.get("score"), rs.path, r["_line"], score_field)
        if score is None:
            rs.skipped.append((r["_line"], "score", "no score"))
            continue
        proto, source = (protocol, "option") if protocol else (r.get("protocol") or None, "column")
        if proto is not None and proto not in PROTOCOLS:
            raise InputError(
                f"unknown protocol {proto!r} (esa, mqm or da)", file=rs.path, line=r["_line"], field="protocol"
            )
        human = str(r.get(human_col, "")).strip().lower() in ("1", "true", "yes")
        if human and not keep_refs:
            rs.skipped.append((r["_line"], human_col, "human translation"))
            continue
        rows.append(
            {
                "lp": r["lp"],
                "item_id": row_id(r, "item_id", rs.path),
                "src": r["src"],
                "system": str(r["system"]),
                "tgt": r.get("tgt"),
                "score": score,
                "protocol": proto,
                "protocol_source": source,
                "human": human,
                "domain": r.get("domain"),
                "_line": r["_line"],
            }
        )
    unknown = [r for r in rows if r["protocol"] is None]
    if unknown:
        inferred = infer_protocol([r["score"] for r in unknown])
        if inferred is None:
            lo, hi = min(r["score"] for r in unknown), max(r["score"] for r in unknown)
            raise InputError(
                f"no protocol column and no --protocol; the scores ({lo:g} .. {hi:g}) do not tell "
                "the protocol (ESA/DA 0-100, perfect 100; MQM <= 0, perfect 0): pass --protocol "
                "esa|da|mqm",
                file=rs.path,
                field="protocol",
            )
        for r in unknown:
            r.update(protocol=inferred, protocol_source="inferred")
    for r in rows:
        if r["protocol"] == "mqm" and r["score"] > 0:
            raise InputError(
                f"MQM score {r['score']:g} > 0: MQM scores here are penalties (0 = no error, more "
                "negative = worse); negate error points first",
                file=rs.path,
                line=r["_line"],
                field=score_field,
            )
    rs.rows = rows
    return rs
