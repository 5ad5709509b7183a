"""Write a pandas frame to the format its file name says, atomically."""

from __future__ import annotations

from pathlib import Path

from mtgauntlet.atomic import atomic_path


def write_frame(df, path: str | Path) -> Path:
    path = Path(path)
    name = path.name.lower()
    with atomic_path(path) as tmp:
        if name.endswith(".parquet"):
            df.to_parquet(tmp, index=False)
        elif name.endswith((".tsv", ".tsv.gz")):
            df.to_csv(tmp, sep="\t", index=False, compression="gzip" if name.endswith(".gz") else None)
        elif name.endswith((".csv", ".csv.gz")):
            df.to_csv(tmp, index=False, compression="gzip" if name.endswith(".gz") else None)
        elif name.endswith(".jsonl"):
            df.to_json(tmp, orient="records", lines=True, force_ascii=False)
        else:
            raise ValueError(f"{path}: unknown output format (use .parquet, .tsv, .csv or .jsonl)")
    return path
