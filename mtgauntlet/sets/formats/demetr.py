"""DEMETR (Karpinska et al. 2022): the per-perturbation JSON files of ``dataset/`` (a folder of them, each a JSON
array of items or JSON lines) or their JSON-lines concatenation (``.jsonl``, ``.gz`` accepted).

An item becomes a ``challenge_pair``: src = ``src_sent``, good = ``mt_sent``, bad = ``pert_sent``, ref =
``eng_sent``, phenomenon = ``pert_name``, lp = ``XX-en`` from ``lang_tag`` (DEMETR is X->English),
source_id = ``pert_name:id``; every other key (but ``pert_check``, true for every item kept) is kept in
``extra`` with its JSON value. Items with
``pert_check = false`` (the perturbation could not be applied) are skipped and counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError, InputError
from mtgauntlet.sets.categories import demetr_category
from mtgauntlet.sets.field_checks import Once, texts_in
from mtgauntlet.sets.imported import ImportedSet, extra_json
from mtgauntlet.sets.text_files import parse_json, read_text

LANGUAGES = {
    "chinese_simple": "zh",
    "chinese": "zh",
    "german": "de",
    "hindi": "hi",
    "japanese": "ja",
    "polish": "pl",
    "russian": "ru",
    "czech": "cs",
    "french": "fr",
    "spanish": "es",
    "italian": "it",
}
FIELDS = {"src": "src_sent", "good": "mt_sent", "bad": "pert_sent", "ref": "eng_sent", "phenomenon": "pert_name"}
USED = (*FIELDS.values(), "pert_check")


def _items(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    text = read_text(path)
    if text.lstrip().startswith("["):
        items = parse_json(text, path)
        for i, item in enumerate(items, start=1):
            yield i, item  # item number in the array
        return
    for i, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield i, parse_json(line, path, line=i)


def demetr_files(path: str | Path) -> list[Path]:
    p = Path(path)
    if p.is_dir():
        files = sorted(
            f for f in p.iterdir() if f.is_file() and f.name.endswith((".json", ".jsonl", ".json.gz", ".jsonl.gz"))
        )
        if not files:
            raise GauntletError(f"{p}: no DEMETR .json/.jsonl files in this folder")
        return files
    if not p.is_file():
        raise GauntletError(f"{p}: no such file or folder")
    return [p]


def read_demetr(path: str | Path) -> ImportedSet:
    out = ImportedSet("challenge_pair", files=demetr_files(path))
    for f in out.files:
        ids = Once(str(f), "pert_name:id")  # an item of one file: a perturbation of one sentence, once
        for line, item in _items(f):
            if not isinstance(item, dict):
                raise InputError("expected a JSON object per item", file=str(f), line=line)
            for key, value in item.items():
                texts_in(value, file=str(f), line=line, field=key)
            for key in (*FIELDS.values(), "lang_tag", "id"):
                if key not in item:
                    raise InputError(f"no key {key!r}", file=str(f), line=line, field=key)
            for key in FIELDS.values():
                if not isinstance(item[key], str):
                    raise InputError(
                        f"expected text, got {type(item[key]).__name__}", file=str(f), line=line, field=key
                    )
            source_id = f"{item['pert_name']}:{item['id']}"
            ids.see(source_id, line, "id", shown=repr(source_id))
            if item.get("pert_check") is False:
                out.skipped["pert_check = false (the perturbation could not be applied)"] += 1
                continue
            lang = LANGUAGES.get(item["lang_tag"])
            if lang is None:
                raise InputError(
                    f"unknown lang_tag {item['lang_tag']!r} (known: {', '.join(sorted(LANGUAGES))})",
                    file=str(f),
                    line=line,
                    field="lang_tag",
                )
            rec: dict[str, Any] = {k: item[v] for k, v in FIELDS.items()}
            rec.update(
                lp=f"{lang}-en",
                src_lang=lang,
                tgt_lang="en",
                source_id=source_id,
                aces_category=demetr_category(item["pert_name"]),
                extra=extra_json({k: v for k, v in item.items() if k not in USED}),
            )
            out.records.append(rec)
    return out
