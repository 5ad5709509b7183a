"""The corpus options every command shares (``--input``, ``--format``, ``--src-lang`` ...), read and checked the
same way for the CLI and for the Python API: one definition of each, no typer here."""

from __future__ import annotations

from typing import overload

from mtgauntlet.corpora.load import CorpusRequest, one_pair  # noqa: F401 (one_pair: shared here too)
from mtgauntlet.corpora.load import load_corpus as _load
from mtgauntlet.corpora.readers import DEFAULT_MAX_CHARS, RowSet, parse_column_map


def comma_list(value: str | None) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``; empty or None -> ``[]`` (options such as ``--mt A,B``)."""
    return [x.strip() for x in value.split(",") if x.strip()] if value else []


def load_corpus(
    path: str,
    *,
    format: str | None = None,
    src_col: str = "src",
    ref_col: str | None = "ref",
    src_lang: str | None = None,
    tgt_lang: str | None = None,
    limit: int | None = None,
    skip_bad: bool = False,
    columns: str | dict | None = None,
    quoting: str | None = None,
    lp: str | None = None,
    max_chars: int | None = DEFAULT_MAX_CHARS,
) -> RowSet:
    """Read a parallel corpus: a named layout (flores, wmt24, parallel-samples, ...) or any table."""
    extra = parse_column_map(columns) if isinstance(columns, str) or columns is None else dict(columns)
    return _load(
        CorpusRequest(
            path=path,
            format=format,
            src_col=src_col,
            ref_col=ref_col,
            src_lang=src_lang,
            tgt_lang=tgt_lang,
            lp=lp,
            limit=limit,
            skip_bad=skip_bad,
            columns=extra,
            quoting=quoting,
            max_chars=max_chars,
        )
    )


@overload
def lang_pair(src_lang: str, tgt_lang: str) -> tuple[str, str]: ...
@overload
def lang_pair(src_lang: str | None, tgt_lang: str | None) -> tuple[str | None, str | None]: ...
def lang_pair(src_lang: str | None, tgt_lang: str | None) -> tuple[str | None, str | None]:
    """Normalised --src-lang/--tgt-lang (one code everywhere: signature, records, file columns)."""
    from mtgauntlet.corpora.load import lang_option

    return lang_option(src_lang, "--src-lang"), lang_option(tgt_lang, "--tgt-lang")


def skipped_counts_note(counts: dict[str, int]) -> str:
    """'; skipped: empty text=2, wrong type=1' (or '') from counts by reason."""
    return ("; skipped: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))) if counts else ""
