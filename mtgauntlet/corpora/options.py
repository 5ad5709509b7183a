"""The corpus options every command shares (``--input``, ``--format``, ``--src-lang`` ...), read and checked the
same way for the CLI and for the Python API: one definition of each, no typer here."""

from __future__ import annotations

from typing import Any, overload

from mtgauntlet.corpora.load import CorpusRequest, one_pair  # noqa: F401 (one_pair: shared here too)
from mtgauntlet.corpora.load import load_corpus as _load
from mtgauntlet.corpora.readers import RowSet, parse_column_map


def comma_list(value: str | None) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``; empty or None -> ``[]`` (options such as ``--mt A,B``)."""
    return [x.strip() for x in value.split(",") if x.strip()] if value else []


def load_corpus(path: str, *, columns: str | dict | None = None, **request: Any) -> RowSet:
    """Read a parallel corpus: a named layout (flores, wmt24, parallel-samples, ...) or any table. ``columns``: more
    columns to keep (``"domain=topic,..."`` or a dict); ``request``: the other fields of
    `mtgauntlet.corpora.load.CorpusRequest` (``format``, ``src_col``, ``ref_col``, ``src_lang``, ``tgt_lang``, ``lp``,
    ``limit``, ``skip_bad``, ``quoting``, ``max_chars``), with its defaults."""
    extra = parse_column_map(columns) if isinstance(columns, str) or columns is None else dict(columns)
    return _load(CorpusRequest(path=path, columns=extra, **request))


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
