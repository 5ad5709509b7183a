"""Write a pandas frame to the format its file name says, atomically.

TSV/CSV use standard quoting (QUOTE_MINIMAL: a field holding a tab, comma, quote or line break is quoted),
which the readers detect, so everything written here reads back identically.
"""

from __future__ import annotations

import csv
from pathlib import Path

from mtgauntlet.atomic import atomic_path
from mtgauntlet.errors import InputError

OUTPUT_SUFFIXES = (".parquet", ".tsv", ".tsv.gz", ".csv", ".csv.gz", ".jsonl")


def check_output_path(path: str | Path) -> Path:
    """Refuse an output name whose format is unknown, before any work is done."""
    p = Path(path)
    if not p.name.lower().endswith(OUTPUT_SUFFIXES):
        raise InputError(f"unknown output format (the name must end in {', '.join(OUTPUT_SUFFIXES)})", file=str(p))
    if p.is_dir():
        raise InputError("is a directory; give a file name", file=str(p))
    return p


def write_frame(df, path: str | Path) -> Path:
    path = check_output_path(path)
    name = path.name.lower()
    with atomic_path(path) as tmp:
        if name.endswith(".parquet"):
            df.to_parquet(tmp, index=False)
        elif name.endswith((".tsv", ".tsv.gz")):
            df.to_csv(
                tmp,
                sep="\t",
                index=False,
                quoting=csv.QUOTE_MINIMAL,
                lineterminator="\n",
                compression="gzip" if name.endswith(".gz") else None,
            )
        elif name.endswith((".csv", ".csv.gz")):
            df.to_csv(
                tmp,
                index=False,
                quoting=csv.QUOTE_MINIMAL,
                lineterminator="\n",
                compression="gzip" if name.endswith(".gz") else None,
            )
        else:
            df.to_json(tmp, orient="records", lines=True, force_ascii=False)
    return path
