"""Release 1M synthetic records and query the catalog.

Prints the release time (target < 30 s; the manifest hashes every file: data, card, Croissant, plots),
the time `verify` takes to re-hash them, and the catalog group-by latency (target < 100 ms).
Usage: python benchmarks/release.py [N]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from mtgauntlet.releases.catalog import open_catalog
from mtgauntlet.releases.release import make_release, verify_release
from mtgauntlet.schema import get_kind, utcnow


def synthetic_build(root: Path, n: int) -> Path:
    """A complete build directory of n selected_text records (written directly, vectorised)."""

    kind = get_kind("selected_text")
    rng = np.random.default_rng(0)
    langs = np.array(["de", "cs", "es", "ja"])
    tgt = langs[rng.integers(0, 4, n)]
    cols = {
        "id": pa.array([f"{i:016x}" for i in range(n)]),
        "src_lang": pa.array(["en"] * n),
        "tgt_lang": pa.array(tgt),
        "builder": pa.array(["synthetic"] * n),
        "builder_version": pa.array(["1"] * n),
        "created_at": pa.array([utcnow()] * n, type=pa.timestamp("us", tz="UTC")),
        "source_dataset": pa.array(["synthetic"] * n),
        "source_id": pa.array([str(i) for i in range(n)]),
        "text": pa.array([f"synthetic sentence number {i}" for i in range(n)]),
        "domain": pa.array(np.array(["news", "social", "speech", "literary"])[rng.integers(0, 4, n)]),
        "estimator": pa.array(["synthetic"] * n),
        "difficulty": pa.array(rng.normal(50, 15, n)),
        "rank": pa.array(np.arange(1, n + 1)),
    }
    table = pa.Table.from_pydict(cols, schema=kind.schema)
    build = root / "build"
    (build / "data").mkdir(parents=True)
    pq.write_table(table, build / "data" / "part-final.parquet")
    (build / "build.json").write_text(
        json.dumps(
            {
                "status": "complete",
                "builder": "subset",
                "builder_version": "1",
                "signature": f"builder:synthetic|n:{n}|version:bench",
            }
        )
    )
    return build


def main(n: int = 1_000_000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        build = synthetic_build(Path(tmp), n)
        t0 = time.perf_counter()
        rel = make_release([build], "bench", "1.0.0", out=Path(tmp) / "releases")
        dt = time.perf_counter() - t0
        files = json.loads((rel / "manifest.json").read_text())["files"]
        print(
            f"release of {n:,} records: {dt:.1f} s (target < 30 s), manifest of {len(files)} files "
            f"({sum(f['bytes'] for f in files) / 1e6:.1f} MB) -> {rel}"
        )
        t0 = time.perf_counter()
        assert verify_release(rel) == []
        print(f"verify (re-hash every file): {time.perf_counter() - t0:.2f} s")
        con = open_catalog(Path(tmp) / "releases")
        sql = "SELECT tgt_lang, domain, count(*) AS n, avg(difficulty) FROM latest_selected_text GROUP BY ALL"
        con.execute(sql).fetchall()
        times = []
        for _ in range(7):
            t0 = time.perf_counter()
            con.execute(sql).fetchall()
            times.append(time.perf_counter() - t0)
        print(f"catalog group-by over {n:,} records: median {sorted(times)[3] * 1000:.1f} ms (target < 100 ms)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
