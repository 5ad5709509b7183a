"""Pair sets as tables: ACES (TSV or JSON lines), Span-ACES and the WMT challenge-set TSV.

=============== ======================================================================================
format          columns (in any order; others are kept)
=============== ======================================================================================
aces            ``source, good-translation, incorrect-translation, reference, phenomena`` and the language
                pair as ``langpair`` or ``lp``; or JSON lines with these keys
span-aces       the ACES columns and the spans ``good-translation-span, incorrect-translation-span``
wmt-challenge   ``lp, source, good, incorrect, reference, phenomena``
=============== ======================================================================================

Each row becomes a ``challenge_pair``: the set's other columns are kept, numeric ones (every value a number or
empty; not an ``…id`` column) in ``scores`` (read later with ``col:NAME``), the rest in ``extra`` as text. A row's
``source_id`` is its row number (1 = the first row after the header), or the value of an ``id`` column when the
file has one (``source_id``, ``id`` or ``ID``, the first present; export writes ``source_id``). A value of an ``id`` or
``ID`` column names one row: a repeat is an error naming both lines (``source_id``, the source row a pair was made
from, may repeat); a row repeated field for field is refused the same way. Scores, languages and texts are checked by
:mod:`mtgauntlet.sets.field_checks`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mtgauntlet.errors import InputError
from mtgauntlet.sets.categories import any_category
from mtgauntlet.sets.field_checks import Once, score_value, texts_in
from mtgauntlet.sets.imported import ImportedSet, extra_json, numeric_columns, split_lp
from mtgauntlet.sets.text_files import parse_json, read_text, read_tsv, text_lines, write_tsv


@dataclass(frozen=True)
class PairColumns:
    """Which column of a format holds which field; the first name is the one written on export."""

    src: tuple[str, ...]
    good: tuple[str, ...]
    bad: tuple[str, ...]
    ref: tuple[str, ...]
    phenomenon: tuple[str, ...]
    lp: tuple[str, ...]
    good_span: tuple[str, ...] = ()
    bad_span: tuple[str, ...] = ()


ACES = PairColumns(
    ("source",), ("good-translation",), ("incorrect-translation",), ("reference",), ("phenomena",), ("langpair", "lp")
)
SPAN_ACES = replace(ACES, good_span=("good-translation-span",), bad_span=("incorrect-translation-span",))
WMT_CHALLENGE = PairColumns(("source",), ("good",), ("incorrect",), ("reference",), ("phenomena",), ("lp",))
FORMATS = {"aces": ACES, "span-aces": SPAN_ACES, "wmt-challenge": WMT_CHALLENGE}
FIELDS = ("src", "good", "bad", "ref", "phenomenon", "lp", "good_span", "bad_span")
ID_COLUMNS = ("source_id", "id", "ID")  # the first one present is the source_id
ROW_IDS = ("id", "ID")  # a set's own row ids: each names one row


def _is_id(column: str) -> bool:
    return column.lower().endswith("id")


def _resolve(spec: PairColumns, columns: Iterable[str], path: str, fmt: str) -> dict[str, str]:
    """field -> the file's column for it; a missing required column is a one-line error."""
    present = set(columns)
    out = {}
    for f in FIELDS:
        names = getattr(spec, f)
        if not names:
            continue
        found = next((n for n in names if n in present), None)
        if found is None:
            raise InputError(
                f"no column {' or '.join(repr(n) for n in names)} (a {fmt} file has "
                f"{', '.join(getattr(spec, g)[0] for g in FIELDS if getattr(spec, g))})",
                file=path,
                line=1,
            )
        out[f] = found
    return out


def _record(
    fields: dict[str, str],
    row: dict[str, Any],
    others: list[str],
    numeric: list[str],
    *,
    path: str,
    line: int,
    row_number: int,
    id_col: str | None,
) -> dict[str, Any]:
    for col, value in row.items():
        texts_in(value, file=path, line=line, field=col)
    rec: dict[str, Any] = {}
    for f, col in fields.items():
        value = row[col]
        if value is None and f in ("ref", "good_span", "bad_span"):
            rec[f] = None
            continue
        if not isinstance(value, str):
            raise InputError(f"expected text, got {type(value).__name__}", file=path, line=line, field=col)
        rec[f] = value
    for f in ("src", "good", "bad", "phenomenon"):
        if rec[f] == "":
            raise InputError(
                "empty value (every pair needs a source, both translations and a phenomenon)",
                file=path,
                line=line,
                field=fields[f],
            )
    rec["src_lang"], rec["tgt_lang"] = split_lp(rec["lp"], file=path, line=line, field_name=fields["lp"])
    scores = {c: score_value(row.get(c), file=path, line=line, field=c) for c in numeric}
    rec["scores"] = scores or None
    rec["extra"] = extra_json({c: row[c] for c in others if c not in numeric and c in row})
    rec["aces_category"] = any_category(rec["phenomenon"])
    rec["good_spans"] = marked_spans(rec.get("good_span"), rec.get("good"))
    rec["bad_spans"] = marked_spans(rec.get("bad_span"), rec.get("bad"))
    rec["source_id"] = str(row[id_col]) if id_col and row.get(id_col) is not None else str(row_number)
    return rec


def marked_spans(marked: Any, text: Any) -> list[dict[str, Any]] | None:
    """Span-ACES's span column as error spans (the same shape as ``mqm-spans``'s): when it is the translation with
    its spans marked ``<v>…</v>``, their character offsets into the translation; when it is a text that occurs
    exactly once in the translation, that occurrence; None otherwise (no span column, an ambiguous span)."""
    from mtgauntlet.sets.formats.mqm_spans import unmark

    if not isinstance(marked, str) or not isinstance(text, str) or not marked:
        return None
    if "<v>" in marked:
        plain, spans = unmark(marked)
        if plain != text:
            return None
    elif text.count(marked) == 1:
        spans = [(text.index(marked), text.index(marked) + len(marked))]
    else:
        return None
    return [{"start": a, "end": b, "severity": None, "category": None, "rater": None} for a, b in spans]


def _json_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """JSON lines (line numbers), or one JSON array of objects (item numbers)."""
    text = read_text(path)
    if text.lstrip().startswith("["):
        items = parse_json(text, path)
        for i, obj in enumerate(items, start=1):
            if not isinstance(obj, dict):
                raise InputError(f"item {i}: expected a JSON object", file=str(path))
            yield i, obj
        return
    for i, line in enumerate(text_lines(path), start=1):
        if not line.strip():
            continue
        obj = parse_json(line, path, line=i)
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object per line", file=str(path), line=i)
        yield i, obj


def _json_numeric(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    def number(v):
        return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))

    return [c for c in columns if all(number(r.get(c)) for r in rows) and any(r.get(c) is not None for r in rows)]


def read_pairs(path: str | Path, fmt: str) -> ImportedSet:
    """A pair set in format ``fmt`` (aces, span-aces, wmt-challenge); ACES also as JSON lines (.jsonl)."""
    spec, p = FORMATS[fmt], Path(path)
    out = ImportedSet("challenge_pair", files=[p])
    if ".jsonl" in p.name or p.name.endswith((".json", ".json.gz")):
        rows = list(_json_rows(p))
        columns = list(dict.fromkeys(k for _, r in rows for k in r))
        fields = _resolve(spec, columns, str(p), fmt)
        for i, r in rows:
            missing = [c for c in fields.values() if c not in r]
            if missing:
                raise InputError(f"no key {missing[0]!r}", file=str(p), line=i)
        id_col = next((c for c in ID_COLUMNS if c in columns), None)
        others = [c for c in columns if c not in fields.values() and c != id_col]
        numeric = _json_numeric([r for _, r in rows], [c for c in others if not _is_id(c)])
    else:
        table = read_tsv(p)
        rows, columns = table.rows, table.columns
        fields = _resolve(spec, columns, str(p), fmt)
        id_col = next((c for c in ID_COLUMNS if c in columns), None)
        others = [c for c in columns if c not in fields.values() and c != id_col]
        numeric = numeric_columns([r for _, r in rows], [c for c in others if not _is_id(c)])
    ids, same = Once(str(p), f"{id_col} value"), Once(str(p), "the same row")
    for n, (line, row) in enumerate(rows, start=1):
        if id_col in ROW_IDS:  # an id names one row (source_id may repeat: several pairs made from one source row)
            ids.see(json.dumps(row.get(id_col)), line, id_col, shown=repr(row.get(id_col)))
        same.see(json.dumps(row, sort_keys=True, ensure_ascii=False), line)
        out.records.append(_record(fields, row, others, numeric, path=str(p), line=line, row_number=n, id_col=id_col))
    return out


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def pair_rows(kind: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """challenge_pair or smaug_pair records as pair dicts (fields + their extra columns and scores)."""
    from mtgauntlet.schema import checks_dict

    out = []
    for r in records:
        lp = r.get("lp") or "-".join(x for x in (r.get("src_lang"), r.get("tgt_lang")) if x)
        row = {
            "src": r["src"],
            "good": r["good"],
            "bad": r["bad"],
            "ref": r.get("ref"),
            "phenomenon": r["phenomenon"],
            "lp": lp,
            "good_span": r.get("good_span"),
            "bad_span": r.get("bad_span"),
            "id": r["id"],
            "source_id": r.get("source_id"),
        }
        if kind == "smaug_pair":
            more = {k: r.get(k) for k in ("perturbation", "good_origin") if r.get(k) is not None}
        else:
            more = json.loads(r["extra"]) if r.get("extra") else {}
        row["more"] = {**more, **checks_dict(r.get("scores"))}
        out.append(row)
    return out


def write_pairs(path: Path, fmt: str, kind: str, records: list[dict[str, Any]], jsonl: bool = False) -> int:
    """Write pair records as ``fmt`` (aces or wmt-challenge) as TSV, or ``jsonl`` as JSON lines (the set's own
    columns keep their JSON types there); returns the rows written."""
    spec = FORMATS[fmt]
    rows = pair_rows(kind, records)
    main = [f for f in FIELDS if getattr(spec, f)]
    if fmt == "wmt-challenge":  # its header: lp, source, good, incorrect, reference, phenomena
        main = ["lp", *[f for f in main if f != "lp"]]
    if any(r["good_span"] is not None or r["bad_span"] is not None for r in rows) and not spec.good_span:
        main += ["good_span", "bad_span"]
        spec = replace(spec, good_span=SPAN_ACES.good_span, bad_span=SPAN_ACES.bad_span)
    header = [getattr(spec, f)[0] for f in main]
    if any(r["source_id"] is not None for r in rows):
        header.append(ID_COLUMNS[0])
    more = list(dict.fromkeys(k for r in rows for k in r["more"]))
    clash = [k for k in more if k in header]
    if clash:
        raise InputError(
            f"the set's own column {clash[0]!r} has the name of a {fmt} column; rename it first", file=str(path)
        )

    def cells(text: bool) -> Iterator[tuple[str, dict[str, Any]]]:
        for r in rows:
            values = {getattr(spec, f)[0]: r[f] for f in main}
            values[ID_COLUMNS[0]] = r["source_id"]
            values.update({k: _cell(r["more"].get(k)) if text else r["more"].get(k) for k in more})
            yield f"record {r['id']}", values

    if jsonl:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.writelines(
                json.dumps({k: values.get(k) for k in header + more}, ensure_ascii=False) + "\n"
                for _, values in cells(False)
            )
        return len(rows)
    return write_tsv(path, header + more, cells(True))
