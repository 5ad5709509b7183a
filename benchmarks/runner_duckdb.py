"""Write 1M synthetic `selected_text` records through the build runner, then query them with DuckDB.

Prints rows/s for the write and the latency of a group-by over the catalog.
Usage: python benchmarks/runner_duckdb.py [N]
"""

from __future__ import annotations

import sys
import tempfile
import time

from mtgauntlet.builders.base import Item, ItemResult
from mtgauntlet.releases.catalog import open_catalog
from mtgauntlet.runner.build_runner import BuildRunner

DOMAINS = ("news", "social", "speech", "literary")


class SyntheticBuilder:
    name, version, kind = "synthetic", "1", "selected_text"

    def signature_fields(self):
        return {"src": "en"}

    def config(self):
        return {}

    def model_specs(self):
        return {}

    def process_batch(self, items, rngs):
        return [
            ItemResult(
                records=[
                    {
                        "text": f"synthetic sentence number {it.index}",
                        "domain": DOMAINS[it.index % 4],
                        "estimator": "synthetic",
                        "difficulty": rng.random() * 100,
                        "rank": it.index,
                        "src_lang": "en",
                        "tgt_lang": "de",
                    }
                ]
            )
            for it, rng in zip(items, rngs)
        ]


def main(n: int = 1_000_000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        items = [Item(i, {}) for i in range(n)]
        t0 = time.perf_counter()
        summary = BuildRunner(SyntheticBuilder(), f"{tmp}/build", shard_size=100_000, progress=False).run(items)
        dt = time.perf_counter() - t0
        print(f"runner write: {summary.produced:,} records in {dt:.1f} s = {summary.produced / dt:,.0f} rows/s")
        con = open_catalog(tmp)
        sql = "SELECT domain, count(*) AS n, avg(difficulty) AS mean_difficulty FROM selected_text GROUP BY domain"
        con.execute(sql).fetchall()  # warm-up (file metadata)
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            rows = con.execute(sql).fetchall()
            times.append(time.perf_counter() - t0)
        print(f"duckdb group-by over {n:,} rows: median {sorted(times)[2] * 1000:.1f} ms ({len(rows)} groups)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
