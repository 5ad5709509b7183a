"""SMAUG record stability under input edits (issue #26 point 1).

Builds `gauntlet build smaug` on the shipped sample (42 es-en rows), then again after editing, deleting or
appending K rows, and prints the share of the other rows' records that are byte-identical (all fields but
created_at), per phenomenon and overall, for several random choices of the touched rows (mean and min).
Target: >= 95% after editing 4 of 42 rows.

Usage: python benchmarks/stability_smaug.py [--choices 5] [--k 4] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import tempfile
from collections import defaultdict
from pathlib import Path

from mtgauntlet.builders.smaug.stability import per_phenomenon, read_tsv, unchanged_share, variants, write_tsv
from mtgauntlet.cli.main import run
from mtgauntlet.records import load_records

SAMPLE = Path(__file__).resolve().parents[1] / "mtgauntlet" / "data" / "sample_es_en.tsv"


def build(tmp: Path, name: str, rows) -> list[dict]:
    (tmp / name).mkdir()
    write_tsv(tmp / name / "sample.tsv", rows)  # same file name each time: it names source_dataset
    rc = run(
        [
            "build",
            "smaug",
            "--input",
            str(tmp / name / "sample.tsv"),
            "--src-col",
            "es",
            "--ref-col",
            "en",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--good-from",
            "reference",
            "--out",
            str(tmp / name / "out"),
        ]
    )
    assert rc == 0, rc
    return load_records(tmp / name / "out").to_pylist()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--choices", type=int, default=5, help="random choices of the touched rows")
    ap.add_argument("--k", type=int, default=4, help="rows touched")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rows = read_tsv(SAMPLE)
    rnd = random.Random(args.seed)
    shares: dict[str, list[float]] = defaultdict(list)
    phen: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    with tempfile.TemporaryDirectory() as tmp:
        base = build(Path(tmp), "base", rows)
        for c in range(args.choices):
            touched = sorted(rnd.sample(range(len(rows)), args.k))
            untouched = [r["id"] for i, r in enumerate(rows) if i not in touched]
            for op, variant in variants(rows, touched, ("es", "en")).items():
                after = build(Path(tmp), f"{op}{c}", variant)
                kept, total = unchanged_share(base, after, untouched)
                shares[op].append(kept / total)
                for ph, (k, t) in per_phenomenon(base, after, untouched).items():
                    phen[op][ph][0] += k
                    phen[op][ph][1] += t
                print(
                    f"  rows {touched} {op:<6}: {kept}/{total} = {kept / total:.1%} of the other rows' records "
                    "byte-identical",
                    flush=True,
                )
    print(f"\nSMAUG on {SAMPLE.name} ({len(rows)} rows), {args.k} rows touched, {args.choices} random choices:")
    for op, vals in shares.items():
        per = ", ".join(f"{ph} {k}/{t}" for ph, (k, t) in sorted(phen[op].items()))
        print(f"  {op:<6} mean {sum(vals) / len(vals):.1%}  min {min(vals):.1%}   ({per})")


if __name__ == "__main__":
    main()
