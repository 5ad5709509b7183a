"""Ready-made readers for common MT data layouts, returning normalised rows.

parallel rows:  src, ref, src_lang, tgt_lang, source_dataset, source_id, [domain, topic, doc_id, url, good]
judgment rows:  lp, item_id, src, system, tgt, score, protocol, [domain]   (the `judgment` record kind)
challenge rows: src, ref, good, bad, phenomenon, lp, src_lang, tgt_lang, source_dataset, source_id
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mtgauntlet.corpora.langs import ALIASES, normalize_lang, primary, split_lp
from mtgauntlet.corpora.readers import DEFAULT_MAX_CHARS, RowSet, guess_format, read_rows
from mtgauntlet.errors import InputError

FLORES_LANGS = (
    "eng",
    "deu",
    "spa",
    "por",
    "fra",
    "ita",
    "ces",
    "pol",
    "rus",
    "ukr",
    "isl",
    "hin",
    "jpn",
    "cmn_Hans",
    "kor",
    "ara",
)


def _flores_col(lang: str) -> str:
    for code, tag in ALIASES.items():
        if code in FLORES_LANGS and (tag == lang or code == lang):
            return code
    return lang


def row_id(row: dict[str, Any], key: str, path: str) -> str:
    """The row's own id from column ``key``, kept as written (``0`` and ``"0"`` are ids like any other); a missing
    or blank id is refused, naming file, line and field (never replaced by a line number or another column)."""
    value = row.get(key)
    if value is None or not str(value).strip():
        raise InputError("empty id", file=path, line=row.get("_line"), field=key)
    return str(value)


def id_column(rs: RowSet, keys: tuple[str, ...]) -> str | None:
    """The first of ``keys`` that the file has as a column (any row holding it), or None: rows then use their line."""
    return next((k for k in keys if any(k in r for r in rs.rows)), None)


def assign_ids(
    rs: RowSet,
    keys: tuple[str, ...],
    on_error: str,
    make: Callable[[dict[str, Any], str], str] = lambda row, value: value,
) -> None:
    """``source_id`` of every row: ``make(row, id)`` from the file's id column (the first of ``keys`` it has), else
    the row's line. A row with a blank id is refused, or skipped and counted ("empty id") when skipping."""
    key = id_column(rs, keys)
    rows = []
    for r in rs.rows:
        if key is None:
            r["source_id"] = str(r["_line"])
        else:
            try:
                r["source_id"] = make(r, row_id(r, key, rs.path))
            except InputError:
                if on_error != "skip":
                    raise
                rs.skipped.append((r["_line"], key, "empty id"))
                continue
        rows.append(r)
    rs.rows = rows


def read_flores(
    path, src: str = "en", tgt: str | None = "es", on_error: str = "raise", limit=None, max_chars=DEFAULT_MAX_CHARS
) -> RowSet:
    """FLORES-200 wide TSV (one column per language: eng, deu, spa, ...); ``tgt=None`` reads the source only."""
    sc = _flores_col(src)
    columns = {"src": sc}
    if tgt is not None:
        columns["ref"] = _flores_col(tgt)
    rs = read_rows(
        path,
        format="tsv",
        quoting="none",
        columns=columns,
        required=["id", "domain", "topic"],
        text_fields=list(columns),
        on_error=on_error,
        limit=limit,
        max_chars=max_chars,
    )
    sl = normalize_lang(sc)
    tl = normalize_lang(columns["ref"]) if tgt is not None else None
    assign_ids(rs, ("id",), on_error)
    for r in rs.rows:
        r.update(src_lang=sl, tgt_lang=tl, source_dataset="flores200-devtest", url=r.get("URL"))
    return rs


def _tsv_only(path, layout: str, what: str) -> None:
    """A named TSV layout given a file whose name says it is something else: one error that says what to use."""
    try:
        fmt = guess_format(path)
    except InputError:
        return  # no telling from the name: read it as the layout's TSV
    if fmt not in ("tsv", "csv"):
        raise InputError(
            f"--format {layout} reads {what}, and this is a {fmt} file by its name; read it with "
            f"--format {fmt} and the options naming its columns",
            file=str(path),
        )


def read_wmt24(path, lp: str | None = None, on_error: str = "raise", limit=None, max_chars=DEFAULT_MAX_CHARS) -> RowSet:
    """WMT24 general test set TSV (csv-quoted fields with tabs); the canary lines are skipped and counted."""
    _tsv_only(path, "wmt24", "the WMT24 general test set TSV (columns lp, line_id, doc_id, domain, src, refA)")
    rs = read_rows(
        path,
        format="tsv",
        quoting="csv",
        columns={"ref": "refA"},
        required=["lp", "line_id", "doc_id", "domain", "src"],
        text_fields=["src"],
        on_error=on_error,
        where={"lp": lp} if lp else None,
        max_chars=max_chars,
    )
    assign_ids(rs, ("line_id",), on_error, lambda row, value: f"{row['lp']}:{value}")
    rows = []
    for r in rs.rows:
        if r["domain"] == "canary":
            rs.skipped.append((r["_line"], "domain", "canary line"))
            continue
        s, t = split_lp(r["lp"])
        r.update(src_lang=s, tgt_lang=t, source_dataset="wmt24-general")
        rows.append(r)
        if limit and len(rows) >= limit:
            break
    rs.rows = rows
    return rs


def _parallel_samples_direction(lp: str | None, src_lang: str | None, tgt_lang: str | None) -> tuple[str | None, str]:
    """(the file's lp filter 'en-xx' or None, direction 'xx-en' | 'en-xx') from --lp and the declared languages."""
    pair = split_lp(lp) if lp else None
    src = src_lang or (pair[0] if pair else None)
    tgt = tgt_lang or (pair[1] if pair else None)
    langs = [x for x in (src, tgt) if x]
    if not langs:
        return None, "xx-en"
    en = [x for x in langs if x.split("-")[0] == "en"]
    if not en:
        raise InputError(
            f"the parallel-samples layout pairs English with another language; got {'-'.join(langs)}", file=None
        )
    direction = "en-xx" if src and src.split("-")[0] == "en" else "xx-en"
    other = next((x for x in langs if x.split("-")[0] != "en"), None)
    return (f"en-{other.split('-')[0]}" if other else None), direction


def read_parallel_samples(
    path,
    lp: str | None = None,
    corpus: str | None = None,
    direction: str | None = None,
    on_error: str = "raise",
    limit=None,
    src_lang: str | None = None,
    tgt_lang: str | None = None,
    max_chars=DEFAULT_MAX_CHARS,
) -> RowSet:
    """The en/xx pair table (corpus, lp, line_id, en, xx). The direction follows the declared languages
    (``src_lang='en'`` makes English the source) or ``direction`` ('xx-en' | 'en-xx'); default xx-en."""
    file_lp, derived = _parallel_samples_direction(lp, src_lang, tgt_lang)
    direction = direction or derived
    if direction not in ("xx-en", "en-xx"):
        raise ValueError("direction must be 'xx-en' or 'en-xx'")
    where = {k: v for k, v in (("lp", file_lp), ("corpus", corpus)) if v}
    rs = read_rows(
        path,
        format="tsv",
        quoting="none",
        required=["corpus", "lp", "line_id", "en", "xx"],
        text_fields=["en", "xx"],
        on_error=on_error,
        where=where or None,
        max_chars=max_chars,
    )
    assign_ids(rs, ("line_id",), on_error, lambda row, value: f"{row['corpus']}:{row['lp']}:{value}")
    rows = []
    for r in rs.rows:
        en, xx = split_lp(r["lp"])
        if direction == "xx-en":
            r.update(src=r["xx"], ref=r["en"], src_lang=xx, tgt_lang=en)
        else:
            r.update(src=r["en"], ref=r["xx"], src_lang=en, tgt_lang=xx)
        r.update(source_dataset=r["corpus"])
        rows.append(r)
        if limit and len(rows) >= limit:
            break
    rs.rows = rows
    return rs


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


def read_wmt23_mtme(path, score: str = "mqm", on_error: str = "raise", keep_refs: bool = False, **_) -> RowSet:
    """WMT23 mt-metrics-eval table: score 'mqm' or 'da_sqm'."""
    rs = read_rows(
        path,
        format="tsv",
        quoting="none",
        required=["lp", "seg_id", "system", score, "src"],
        text_fields=["src"],
        on_error=on_error,
    )
    return _judgments(rs, score, "mqm" if score == "mqm" else "da", "seg_id", keep_refs=keep_refs)


def read_wmt23_esa(path, score: str = "ESA-1", on_error: str = "raise", keep_refs: bool = True, **_) -> RowSet:
    """WMT23 en-de ESA campaign (ESA-1, ESA-2, MQM-1, ESAAI-1, ESAAI-2 columns); system refA is the human
    translation (marked ``human``; kept by default, as before)."""
    rs = read_rows(
        path,
        format="tsv",
        quoting="none",
        required=["lp", "seg_id", "system", score, "src"],
        text_fields=["src"],
        on_error=on_error,
    )
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


def read_demetr(path, include_base: bool = False, on_error: str = "raise", **_) -> RowSet:
    """DEMETR JSONL: good=mt_sent, bad=pert_sent, ref=eng_sent, phenomenon=pert_name; skips pert_check=False."""
    rs = read_rows(
        path,
        format="jsonl",
        required=["id", "src_sent", "eng_sent", "mt_sent", "pert_sent", "pert_name"],
        on_error=on_error,
    )
    rows = []
    for r in rs.rows:
        if r.get("pert_check") is False:
            rs.skipped.append((r["_line"], "pert_check", "perturbation not applied"))
            continue
        if not include_base and str(r["pert_name"]).startswith("base_"):
            continue
        sl = normalize_lang(r.get("lang_tag", "und")) if r.get("lang_tag") else "und"
        rows.append(
            {
                "src": r["src_sent"],
                "ref": r["eng_sent"],
                "good": r["mt_sent"],
                "bad": r["pert_sent"],
                "phenomenon": r["pert_name"],
                "severity": r.get("severity"),
                "src_lang": sl,
                "tgt_lang": "en",
                "lp": f"{sl}-en",
                "source_dataset": "demetr",
                "source_id": f"{r['pert_name']}:{row_id(r, 'id', rs.path)}:{sl}",
                "item": r["id"],
                "_line": r["_line"],
            }
        )
    rs.rows = rows
    return rs


def read_aces(path, on_error: str = "raise", **_) -> RowSet:
    """ACES challenge set TSV: source, good-translation, incorrect-translation, reference, phenomena, langpair."""
    rs = read_rows(
        path,
        format="tsv",
        quoting="none",
        columns={
            "src": "source",
            "good": "good-translation",
            "bad": "incorrect-translation",
            "ref": "reference",
            "phenomenon": "phenomena",
            "lp": "langpair",
        },
        text_fields=["src"],
        on_error=on_error,
    )
    assign_ids(rs, ("ID",), on_error)
    for r in rs.rows:
        try:
            s, t = split_lp(r["lp"])
        except ValueError as exc:
            raise InputError(str(exc), file=rs.path, line=r["_line"], field="langpair") from None
        r.update(src_lang=s, tgt_lang=t, source_dataset="aces")
    return rs


def _primary_or_raw(code) -> str:
    try:
        return primary(code)
    except ValueError:  # reported with its line when the row's code is normalised
        return str(code)


def read_parallel(
    path,
    src_col: str = "src",
    ref_col: str | None = "ref",
    src_lang: str | None = None,
    tgt_lang: str | None = None,
    format: str | None = None,
    extra: dict[str, str] | None = None,
    quoting: str | None = None,
    on_error: str = "raise",
    limit=None,
    dataset: str | None = None,
    require_tgt: bool = True,
    max_chars=DEFAULT_MAX_CHARS,
) -> RowSet:
    """A user's own parallel file with named source/reference columns (``ref_col=None``: source only)."""
    columns = {"src": src_col, **({"ref": ref_col} if ref_col else {}), **(extra or {})}
    rs = read_rows(
        path,
        format=format,
        columns=columns,
        text_fields=["src", "ref"] if ref_col else ["src"],
        quoting=quoting,
        on_error=on_error,
        limit=limit,
        max_chars=max_chars,
    )
    try:
        sl = normalize_lang(src_lang) if src_lang else None
        tl = normalize_lang(tgt_lang) if tgt_lang else None
    except ValueError as exc:
        raise InputError(str(exc), file=str(path), field="src_lang/tgt_lang") from None
    name = dataset or Path(str(path)).name.split(".")[0]
    for r in rs.rows:
        for key, declared in (("src_lang", sl), ("tgt_lang", tl)):
            if r.get(key) in (None, ""):
                r[key] = declared
            elif declared is not None and _primary_or_raw(r[key]) != primary(declared):
                raise InputError(
                    f"the file says {r[key]!r} but --{key.replace('_', '-')} is {declared}",
                    file=rs.path,
                    line=r["_line"],
                    field=key,
                )
        for key in ("src_lang", "tgt_lang"):
            if r.get(key) is None:
                if key == "tgt_lang" and not require_tgt:
                    continue
                raise InputError(
                    "language not given (pass --src-lang/--tgt-lang or add the column)",
                    file=rs.path,
                    line=r["_line"],
                    field=key,
                )
            try:
                r[key] = normalize_lang(r[key])
            except ValueError as exc:
                raise InputError(str(exc), file=rs.path, line=r["_line"], field=key) from None
        r.setdefault("source_dataset", name)
    assign_ids(rs, ("source_id", "id"), on_error)
    return rs


READERS: dict[str, Callable[..., RowSet]] = {
    "flores": read_flores,
    "wmt24": read_wmt24,
    "parallel-samples": read_parallel_samples,
    "google-mqm": read_google_mqm,
    "wmt23-mtme": read_wmt23_mtme,
    "wmt23-esa": read_wmt23_esa,
    "judgments": read_judgments,
    "demetr": read_demetr,
    "aces": read_aces,
    "parallel": read_parallel,
}


def sniff_named_format(path: str | Path) -> str | None:
    """Recognise the ready-made layouts by file name (used when the user gives no --format)."""
    name = Path(str(path)).name.lower()
    for needle, fmt in (
        ("flores200", "flores"),
        ("wmt24_general", "wmt24"),
        ("parallel_samples", "parallel-samples"),
        ("google_mqm", "google-mqm"),
        ("mtme_seg_scores", "wmt23-mtme"),
        ("esa_campaign", "wmt23-esa"),
        ("demetr", "demetr"),
        ("aces", "aces"),
    ):
        if needle in name:
            return fmt
    return None
