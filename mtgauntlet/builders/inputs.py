"""How a build method reads its input: the corpus reader called with the reading options every method declares
(``format``, ``lp``, ``quoting``, ``max_chars``, ``skip_bad``; `mtgauntlet.shared_options`) and the method's own
columns, and the options' languages normalised (one code everywhere: signature, records, file columns)."""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol, TypeVar

from mtgauntlet.corpora.options import lang_pair, load_corpus
from mtgauntlet.corpora.readers import RowSet


class Reading(Protocol):
    """The reading options of a method's options dataclass."""

    @property
    def format(self) -> str | None: ...

    @property
    def lp(self) -> str | None: ...

    @property
    def quoting(self) -> str: ...

    @property
    def max_chars(self) -> int: ...

    @property
    def skip_bad(self) -> bool: ...

    @property
    def src_lang(self) -> Any: ...

    @property
    def tgt_lang(self) -> Any: ...


OptionsT = TypeVar("OptionsT", bound=Reading)


def with_languages(o: OptionsT) -> OptionsT:
    """``o`` with ``src_lang`` and ``tgt_lang`` normalised (``--src-lang`` / ``--tgt-lang`` as the CLI names them)."""
    src_lang, tgt_lang = lang_pair(o.src_lang, o.tgt_lang)
    return dataclasses.replace(o, src_lang=src_lang, tgt_lang=tgt_lang)  # type: ignore[type-var]


def read_corpus(
    o: Reading,
    path: Any,
    *,
    text: str,
    ref: str | None = None,
    limit: int | None = None,
    columns: dict[str, str] | None = None,
    tgt_lang: str | None = None,
) -> RowSet:
    """The rows of ``path`` (a table or a named layout): ``text`` is the source column, ``ref`` the reference one
    (``None``: no reference), ``columns`` more columns to keep (record field -> column); the languages are the
    options' (``tgt_lang``: in place of theirs)."""
    return load_corpus(
        path,
        format=o.format,
        src_col=text,
        ref_col=ref,
        src_lang=o.src_lang,
        tgt_lang=o.tgt_lang if tgt_lang is None else tgt_lang,
        limit=limit,
        skip_bad=o.skip_bad,
        columns=columns,
        lp=o.lp,
        quoting=o.quoting,
        max_chars=o.max_chars,
    )
