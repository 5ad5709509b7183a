"""Ready-made readers for common MT data layouts, returning normalised rows.

parallel rows:  src, ref, src_lang, tgt_lang, source_dataset, source_id, [domain, topic, doc_id, url, good]
judgment rows:  lp, item_id, src, system, tgt, score, protocol, [domain]   (the `judgment` record kind; read by
                :mod:`.judgment_formats`)
challenge rows: src, ref, good, bad, phenomenon, lp, src_lang, tgt_lang, source_dataset, source_id
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mtgauntlet.corpora.judgment_formats import read_google_mqm, read_judgments, read_wmt23_esa, read_wmt23_mtme
from mtgauntlet.corpora.langs import ALIASES, normalize_lang, primary, split_lp
from mtgauntlet.corpora.readers import DEFAULT_MAX_CHARS, RowSet, guess_format, read_rows
from mtgauntlet.corpora.row_ids import assign_ids, row_id
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
