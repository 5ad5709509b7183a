"""How much of a build survives edits elsewhere in its input (issue #26 point 1), for the non-SMAUG builders.

The shipped 42-row sample (mtgauntlet/data/sample_es_en.tsv) is built as is and after 4 rows are edited, 4 deleted
or 4 appended; the records of the untouched rows are compared byte for byte (created_at aside; a subset's rank,
its position in the selection, aside). Subset uses --estimator random; MT-breaker (2 steps, and --sample 20) and
the bandit (16 pulls over the 4 domains) use the scripted local OpenAI-compatible roles of tests/support/scripted_roles.py.
See tests/support/stability_runs.py for the method; tests/builders/test_row_stability.py asserts >= 95%.

Usage: python benchmarks/stability_builders.py    Writes benchmarks/results/stability_builders.json.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.support.stability_runs import CHANGES, measure, roles  # noqa: E402

RUNS = [
    ("subset", {}),
    ("mtbreaker", {"steps": 2}),
    ("mtbreaker", {"steps": 2, "sample": 20}),
    ("bandit", {"budget": 16}),
]


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp, roles() as stack:
        for n, (builder, opts) in enumerate(RUNS):
            for change in CHANGES:
                m = measure(builder, change, Path(tmp) / f"{n}-{change}", stack, **dict(opts))
                rows.append({**m, "options": opts})
    print(f"{'builder':<10} {'options':<24} {'change':<7} {'identical':>14} {'share':>7}  rows with records")
    for r in rows:
        opts = " ".join(f"--{k} {v}" for k, v in r["options"].items())
        print(
            f"{r['builder']:<10} {opts:<24} {r['change']:<7} {r['identical']:>6} of {r['other_rows']:<5} "
            f"{r['share']:>7.1%}  {r['rows_with_records']}"
        )
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "stability_builders.json").write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
