"""`score difficulty` on the Ray engine vs the local engine, 1M sentences, `length` and `rarity` (issue #16).

The corpus is every English sentence of the shared parallel samples (Tatoeba + WMT newstest) and FLORES-200
devtest (52,800 texts, about 49,000 distinct), repeated to N rows (default 1,000,000). Both engines score the same
shards (``--shard-size`` rows); the output must be equal. Ray runs in local mode on this machine
(``MTGAUNTLET_RAY_CPUS``, default all CPUs) unless ``RAY_ADDRESS`` names a cluster. Reported: rows/s of each
engine, Ray's start-up (cluster start, actor start) and staging costs, and the ratio.

Usage: python benchmarks/ray_scoring.py [--rows 1000000] [--shard-size 10000] [--estimators length,rarity]
Writes benchmarks/results/ray_scoring.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("MTGAUNTLET_CACHE", "off")


def corpus(shared: Path, rows: int) -> tuple[list[str], int]:
    from mtgauntlet.corpora.formats import READERS, read_flores

    texts = [
        r["src"]
        for r in READERS["parallel-samples"](
            shared / "parallel-samples/parallel_samples.tsv.gz", direction="en-xx"
        ).rows
    ]
    texts += [r["src"] for r in read_flores(shared / "flores200-devtest/flores200_devtest.tsv.gz").rows]
    return [texts[i % len(texts)] for i in range(rows)], len(set(texts))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--shard-size", type=int, default=10_000)
    ap.add_argument("--estimators", default="length,rarity")
    args = ap.parse_args()

    from mtgauntlet.engines import get_engine
    from mtgauntlet.engines.ray_engine import start_ray
    from mtgauntlet.engines.scoring import ScoreTask

    texts, distinct = corpus(Path(args.shared), args.rows)
    print(
        f"{len(texts):,} rows ({distinct:,} distinct English sentences), shards of {args.shard_size:,}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    t0 = time.perf_counter()
    ray = start_ray()
    ray_start = time.perf_counter() - t0
    cpus = ray.cluster_resources().get("CPU", 0)
    print(f"Ray {ray.__version__}: cluster ready in {ray_start:.1f} s ({cpus:g} CPUs)")
    results = {
        "rows": len(texts),
        "distinct": distinct,
        "shard_size": args.shard_size,
        "ray_start_s": ray_start,
        "ray_cpus": cpus,
        "load_average": os.getloadavg()[0],
        "estimators": {},
    }
    tmp = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    try:
        for spec in [s for s in args.estimators.split(",") if s]:
            task = ScoreTask("difficulty", spec, "en", shard_size=args.shard_size)
            t0 = time.perf_counter()
            local = get_engine("local").score(task, {"src": texts}, tmp / f"local-{spec}")
            t_local = time.perf_counter() - t0
            first = []
            t0 = time.perf_counter()
            remote = get_engine("ray").score(
                task,
                {"src": texts},
                tmp / f"ray-{spec}",
                on_shard=lambda s, e, first=first: first.append(time.perf_counter()) if not first else None,
            )
            t_ray = time.perf_counter() - t0
            to_first = first[0] - t0 if first else float("nan")
            equal = bool((local == remote).all())
            r = {
                "local_s": t_local,
                "ray_s": t_ray,
                "local_rows_s": len(texts) / t_local,
                "ray_rows_s": len(texts) / t_ray,
                "ray_first_shard_s": to_first,
                "ratio_local_over_ray": t_local / t_ray,
                "equal": equal,
            }
            results["estimators"][spec] = r
            print(
                f"{spec:<8} local {t_local:7.1f} s ({r['local_rows_s']:>9,.0f} rows/s) | ray {t_ray:7.1f} s "
                f"({r['ray_rows_s']:>9,.0f} rows/s; first shard after {to_first:.1f} s: staging + actor start) | "
                f"speed-up {r['ratio_local_over_ray']:.2f}x | equal output: {equal}"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "ray_scoring.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
