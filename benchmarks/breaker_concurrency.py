"""MT-breaker and zero-shot against OpenAI-compatible servers on 127.0.0.1 that answer every call after a fixed
300 ms: `--concurrency 16` vs 1 (issue #16 item 5).

Three local servers (tests/support/openai_server.py) play the editing/generating LLM (a seeded sampler: its answer depends
only on the conversation and the seed, as a real LLM called with a seed), the target model
(`llm-as-translator:openai:...`) and the QE (`llm-as-qe:openai:...`), so every edit, translation and score is one
HTTP call of 300 ms. Both builds run through the real CLI entry point in this process (a one-seed build and the
language guard's models warm up first, so the figures are the builds' own time), with the output cache off, the
default shard size (16 items advanced together) and the same seed; the records of the two runs are compared.

With 20 seeds a step can have at most 20 requests in flight, so with 16 at once a phase of a full shard takes
two rounds of 300 ms: the ideal ratio is about 10x for MT-breaker (and more for zero-shot min, whose translations
and scores of all generations of a shard go out together).

Usage: python benchmarks/breaker_concurrency.py [--seeds 20] [--steps 3] [--latency 0.3] [--concurrency 16]
Writes benchmarks/results/breaker_concurrency.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the scripted servers live in tests/

os.environ["MTGAUNTLET_CACHE"] = "off"
COMPARED = (
    "id",
    "text",
    "seed",
    "method",
    "trajectory",
    "qe_score",
    "llm_failures",
    "truncated",
    "mt_failures",
    "qe_failures",
)
EDITS = ["carefully", "nevertheless", "in hindsight", "reportedly", "as it were", "by and large", "albeit slowly"]


def records(out: Path) -> list[dict]:
    from mtgauntlet.records import load_records

    return sorted(({k: r[k] for k in COMPARED} for r in load_records(out).to_pylist()), key=lambda r: r["id"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--steps", type=int, default=3, help="MT-breaker steps; zero-shot min generations")
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--concurrency", type=int, default=16)
    args = ap.parse_args()

    from mtgauntlet.models.langid import is_language
    from tests.support.cli import invoke
    from tests.support.openai_server import ScriptedServer
    from tests.support.scripted_roles import qe_a, qe_server_answer, seeded_editor, translate

    is_language("A sentence to load the language detector before timing.", "en")
    flores = Path(args.shared) / "flores200-devtest" / "flores200_devtest.tsv.gz"
    tmp = Path(tempfile.mkdtemp(prefix="bench-breaker-concurrency-"))
    results: dict = {
        "seeds": args.seeds,
        "steps": args.steps,
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "runs": {},
    }
    with ExitStack() as stack:
        servers = {
            name: stack.enter_context(ScriptedServer(default=fn, latency=args.latency))
            for name, fn in (
                ("llm", seeded_editor(fail_every=0, words=EDITS)),
                ("mt", translate),
                ("qe", qe_server_answer(qe_a)),
            )
        }
        models = [
            "--llm",
            f"openai:llm@{servers['llm'].url}",
            "--mt",
            f"llm-as-translator:openai:mt@{servers['mt'].url}",
            "--qe",
            f"llm-as-qe:openai:qe@{servers['qe'].url}",
        ]
        seeds = [
            "--seeds",
            str(flores),
            "--format",
            "flores",
            "--limit",
            str(args.seeds),
            "--src-lang",
            "en",
            "--tgt-lang",
            "es",
        ]
        builds = {
            "mtbreaker": [
                "build",
                "mtbreaker",
                "--variant",
                "seeded",
                "--steps",
                str(args.steps),
                "--no-language-guard",
            ],
            "zeroshot-min": ["build", "zeroshot", "--variant", "min", "--generations", str(args.steps)],
        }
        warm = invoke([*builds["mtbreaker"], *seeds, *models, "--limit", "1", "--out", str(tmp / "warm-up")])
        if warm.exit_code != 0:  # imports, the HTTP client: paid once, outside the figures
            raise SystemExit(f"warm-up build failed: {warm.stderr[-2000:]}")
        print(
            f"{args.seeds} FLORES devtest seeds x {args.steps} steps; every call answered after {args.latency:g} s; "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        for name, command in builds.items():
            walls, calls, peak = {}, {}, {}
            for n in (1, args.concurrency):
                for srv in servers.values():
                    srv.requests.clear()
                    srv.max_in_flight = 0
                out = tmp / f"{name}-c{n}"
                t0 = time.perf_counter()
                r = invoke([*command, *seeds, *models, "--concurrency", str(n), "--out", str(out)])
                walls[n] = time.perf_counter() - t0
                if r.exit_code != 0:
                    raise SystemExit(f"{name} --concurrency {n} failed: {r.stderr[-2000:]}")
                calls[n] = sum(len(s.requests) for s in servers.values())
                peak[n] = max(s.max_in_flight for s in servers.values())
            identical = records(tmp / f"{name}-c1") == records(tmp / f"{name}-c{args.concurrency}")
            ratio = walls[1] / walls[args.concurrency]
            results["runs"][name] = {
                "wall_s_concurrency_1": round(walls[1], 2),
                f"wall_s_concurrency_{args.concurrency}": round(walls[args.concurrency], 2),
                "ratio": round(ratio, 2),
                "identical_records": identical,
                "http_calls": calls[1],
                "peak_in_flight": peak[args.concurrency],
                "ideal_s_sequential": round(calls[1] * args.latency, 1),
            }
            print(
                f"{name:13s} concurrency 1: {walls[1]:6.1f} s ({calls[1]} calls; {calls[1] * args.latency:.1f} s of "
                f"latency) | concurrency {args.concurrency}: {walls[args.concurrency]:5.1f} s (peak "
                f"{peak[args.concurrency]} in flight) | {ratio:4.1f}x faster | identical records: {identical}"
            )
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "breaker_concurrency.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
