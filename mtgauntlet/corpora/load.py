"""One entry point from "a file and what the user said about it" to normalised rows.

:class:`CorpusRequest` holds what a command (or a recipe) asks for: the file, its layout, the columns,
the declared languages. Named layouts (FLORES, WMT24, parallel samples, ...) decide their own columns
and language pairs; the declared languages are checked against them, never silently overridden. Language
codes are normalised once, here, so signatures and records carry the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, overload

from mtgauntlet.corpora.formats import READERS, read_parallel, sniff_named_format
from mtgauntlet.corpora.langs import normalize_lang, primary
from mtgauntlet.corpora.readers import DEFAULT_MAX_CHARS, RowSet
from mtgauntlet.errors import InputError

CHALLENGE_LAYOUTS = ("demetr", "aces")


@dataclass
class CorpusRequest:
    path: str
    format: str | None = None  # tsv/csv/jsonl/parquet/hf or a named layout; None = from the name
    src_col: str = "src"
    ref_col: str | None = "ref"  # None: source-only input (subset, score, seeds)
    src_lang: str | None = None
    tgt_lang: str | None = None
    lp: str | None = None  # language-pair filter of multi-pair layouts
    limit: int | None = None
    skip_bad: bool = False
    columns: dict[str, str] = field(default_factory=dict)  # extra ours=theirs mappings (domain, good, ...)
    quoting: str | None = None
    max_chars: int | None = DEFAULT_MAX_CHARS

    def layout(self) -> str | None:
        if self.format in READERS:
            return self.format
        return None if self.format else sniff_named_format(self.path)


@overload
def lang_option(code: str, option: str) -> str: ...
@overload
def lang_option(code: str | None, option: str) -> str | None: ...
def lang_option(code: str | None, option: str) -> str | None:
    """Normalise a --src-lang/--tgt-lang value (``ES`` -> ``es``, ``zh_Hans`` -> ``zh-Hans``)."""
    if code is None:
        return None
    try:
        return normalize_lang(code)
    except ValueError as exc:
        raise InputError(f"{option}: {exc}") from None


def _pair(lp: str | None) -> tuple[str, str] | None:
    if not lp:
        return None
    a, sep, b = lp.partition("-")
    if not sep:
        raise InputError(f"--lp: expected a language pair such as en-de, got {lp!r}")
    return lang_option(a, "--lp"), lang_option(b, "--lp")


def _same(a: str | None, b: str | None) -> bool:
    return a is None or b is None or primary(a) == primary(b)


def _check_declared(req: CorpusRequest, rows: RowSet, layout: str) -> None:
    """Every row's language pair must agree with the declared languages (the layout decides the pair)."""
    for r in rows.rows:
        for key, declared, option in (
            ("src_lang", req.src_lang, "--src-lang"),
            ("tgt_lang", req.tgt_lang, "--tgt-lang"),
        ):
            if not _same(r.get(key), declared):
                raise InputError(
                    f"the {layout} layout gives the language pair {r.get('src_lang')}-{r.get('tgt_lang')} here, "
                    f"but {option} is {declared}; choose matching languages (or --lp)",
                    file=rows.path,
                    line=r.get("_line"),
                    field=key,
                )


def load_corpus(req: CorpusRequest) -> RowSet:
    """Read the corpus a request names; an input that keeps no row is an error naming the reasons."""
    on_error = "skip" if req.skip_bad else "raise"
    layout = req.layout()
    pair = _pair(req.lp)
    src, tgt = req.src_lang, req.tgt_lang
    if pair and not (_same(pair[0], src) and _same(pair[1], tgt)):
        # the parallel-samples file labels every pair en-xx whatever the direction: its --lp is unordered
        unordered = layout == "parallel-samples" and _same(pair[1], src) and _same(pair[0], tgt)
        if not unordered:
            raise InputError(f"--lp {req.lp} disagrees with --src-lang {src} / --tgt-lang {tgt}")
    common: dict[str, Any] = {"on_error": on_error, "limit": req.limit, "max_chars": req.max_chars}
    if layout == "flores":
        rows = READERS["flores"](
            req.path, src=src or (pair[0] if pair else "en"), tgt=tgt or (pair[1] if pair else None), **common
        )
    elif layout == "wmt24":
        lp = req.lp or (f"{primary(src)}-{primary(tgt)}" if src and tgt else None)
        rows = READERS["wmt24"](req.path, lp=lp, **common)
    elif layout == "parallel-samples":
        rows = READERS["parallel-samples"](req.path, lp=req.lp, src_lang=src, tgt_lang=tgt, **common)
    elif layout in CHALLENGE_LAYOUTS or (layout is not None and layout != "parallel"):
        rows = READERS[layout](req.path, on_error=on_error)
    else:
        layout = None
        fmt = None if req.format in (None, "parallel") else req.format
        rows = read_parallel(
            req.path,
            src_col=req.src_col,
            ref_col=req.ref_col,
            src_lang=src,
            tgt_lang=tgt,
            format=fmt,
            extra=req.columns,
            quoting=req.quoting,
            require_tgt=req.ref_col is not None,
            **common,
        )
    if layout is not None:
        _check_declared(req, rows, layout)
    if not rows.rows:
        reasons = ", ".join(f"{k}={v}" for k, v in sorted(rows.skipped_counts().items()))
        raise InputError(
            "no usable rows"
            + (f" (skipped: {reasons})" if reasons else "")
            + (f" for --lp {req.lp}" if req.lp else ""),
            file=req.path,
        )
    return rows


def one_pair(rows: RowSet, src_lang: str | None, tgt_lang: str | None) -> tuple[str, str | None]:
    """The build's language pair: the declared one, else the one every row has; mixed languages are an error."""
    out: list[str | None] = []
    for key, declared, option in (("src_lang", src_lang, "--src-lang"), ("tgt_lang", tgt_lang, "--tgt-lang")):
        if declared is not None:
            out.append(declared)
            continue
        seen = sorted({str(r.get(key)) for r in rows.rows if r.get(key) is not None})
        if len(seen) > 1:
            raise InputError(
                f"the input mixes languages in {key} ({', '.join(seen)}); choose one with --lp or {option}",
                file=rows.path,
            )
        out.append(seen[0] if seen else None)
    src = out[0]
    if src is None:
        raise InputError("source language not given (pass --src-lang)", file=rows.path)
    return src, out[1]
