"""MT-breaker with the embedded stack on FLORES-200 seeds (issue #6).

Runs (or resumes) `gauntlet build mtbreaker` over the first N English FLORES devtest sentences with the
embedded SmolLM2 editor, Apertium EN->ES as the target model and the shipped QE, then prints the step curve
and the summary of `gauntlet evaluate breaker`: step-0 (seed) vs selected mean QE, how many items an edit
beat its seed on, and the mean QE of the edits themselves. About 40 minutes for 30 seeds x 10 steps on
2 cores (most of it the LLM). Writes benchmarks/results/mtbreaker_flores_<variant>.json.

Usage: python benchmarks/mtbreaker.py [--limit 30] [--steps 10] [--variant seeded] [--out build-output/...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from mtgauntlet.evaluation.breaker_analysis import step_curve, summary
from mtgauntlet.records import load_records

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--limit", type=int, default=30)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--variant", default="seeded")
    ap.add_argument("--qe", default="qe")
    ap.add_argument("--out", default=None, help="Build dir (resumable); default build-output/mtbreaker-<variant>")
    args = ap.parse_args()
    out = Path(args.out or HERE.parent / "build-output" / f"mtbreaker-{args.variant}")
    seeds = Path(args.shared) / "flores200-devtest" / "flores200_devtest.tsv.gz"
    t0 = time.perf_counter()
    gauntlet = Path(sys.executable).with_name("gauntlet")
    exe = str(gauntlet) if gauntlet.exists() else shutil.which("gauntlet") or "gauntlet"
    res = subprocess.run(
        [  # a child process, so its progress lines reach this terminal or log
            exe,
            "build",
            "mtbreaker",
            "--seeds",
            str(seeds),
            "--format",
            "flores",
            "--limit",
            str(args.limit),
            "--steps",
            str(args.steps),
            "--variant",
            args.variant,
            "--mt",
            "apertium",
            "--qe",
            args.qe,
            "--src-lang",
            "en",
            "--tgt-lang",
            "es",
            "--out",
            str(out),
        ]
    )
    if res.returncode != 0:
        raise SystemExit(f"build failed (exit {res.returncode}); run the same command again to resume")
    wall = time.perf_counter() - t0
    records = load_records(out).to_pylist()
    result = {
        "variant": args.variant,
        "seeds": args.limit,
        "steps": args.steps,
        "qe": args.qe,
        "wall_s_this_run": round(wall, 1),
        **summary(records),
        "step_curve": step_curve(records),
    }
    print(f"{args.variant}: {result['items']} seeds x {args.steps} steps ({wall:.0f} s this run)")
    for row in result["step_curve"]:
        print(
            f"  step {row['step']:>2}: mean QE {row['mean_qe']:6.2f}  cumulative-min {row['cummin_qe']:6.2f}  "
            f"({row['items']} items)"
        )
    print(
        f"seed (step 0) mean QE {result['start_mean_qe']:.2f} -> selected {result['final_mean_qe']:.2f}; "
        f"an edit beat its seed on {result['items_improved']}/{result['items']} items; "
        f"mean QE of the {result['edit_steps']} edits {result['edit_mean_qe']:.2f}; "
        f"unusable LLM answers {result['llm_failures']}"
    )
    (HERE / "results").mkdir(exist_ok=True)
    path = HERE / "results" / f"mtbreaker_flores_{args.variant.replace('+', '_')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
