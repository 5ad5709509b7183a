"""The metric workbench (`gauntlet evaluate metric --out`, issue #36 section 4).

1. chrF + BLEU over N pairs (default 1M) of a released smaug_pair set, through the whole workbench (catalog read,
   item keys, scoring, shards, statistics, seal): pairs/s, beside a plain sacrebleu loop over the same pairs in the
   same run (ratio = workbench / plain);
2. a leaderboard query over 10M stored scores in DuckDB (the catalog with ``--results``): the time to open the
   catalog (every sealed shard's sha256 checked) and, apart, the queries: the ``leaderboard`` view, and accuracy
   per metric and set computed in SQL from the 10M ``metric_score`` rows (target < 200 ms);
3. an incremental re-run with one new metric: chrF first, then chrF + BLEU: only BLEU is computed.

Usage: python benchmarks/workbench.py [--pairs N] [--scores N] [--out benchmarks/results/workbench.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "mtgauntlet" / "data" / "sample_es_en.tsv"


def make_pairs(n: int) -> list[dict]:
    """N distinct SMAUG-style pairs from the shipped sample: good = the reference, bad = a word dropped."""
    with open(SAMPLE, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    out = []
    for i in range(n):
        r = rows[i % len(rows)]
        words = r["en"].split()
        k = i // len(rows)
        ref = f"{r['en']} ({k})"
        bad = " ".join(words[: (i % (len(words) - 1)) + 1] + words[(i % (len(words) - 1)) + 2 :]) + f" ({k})"
        out.append(
            {
                "src": f"{r['es']} ({k})",
                "ref": ref,
                "good": ref if i % 3 else ref.lower(),
                "bad": bad,
                "phenomenon": "del",
                "src_lang": "es",
                "tgt_lang": "en",
                "source_id": str(i),
            }
        )
    return out


def release_pairs(root: Path, pairs: list[dict]) -> Path:
    import pyarrow.parquet as pq

    from mtgauntlet.releases.release import make_release
    from mtgauntlet.schema import record_id, to_table, utcnow

    build = root / "build"
    (build / "data").mkdir(parents=True)
    now = utcnow()
    records = [{"builder": "bench", "builder_version": "1", "created_at": now, **p} for p in pairs]
    for r in records:
        r["id"] = record_id("smaug_pair", r)
    sig = f"bench-{len(records)}"
    pq.write_table(to_table("smaug_pair", records, signature=sig), build / "data" / "records.parquet")
    (build / "build.json").write_text(
        json.dumps(
            {
                "status": "complete",
                "kind": "smaug_pair",
                "builder": "bench",
                "builder_version": "1",
                "signature": sig,
                "counts": {"produced": len(records)},
            }
        )
    )
    make_release([build], "bench-pairs", "1.0.0", out=root / "releases", license="cc-by-4.0")
    return root / "releases"


def plain_loop(pairs: list[dict]) -> float:
    from sacrebleu.metrics import BLEU, CHRF

    chrf, bleu = CHRF(), BLEU(effective_order=True)
    t = time.perf_counter()
    for p in pairs:
        for m in (chrf, bleu):
            m.sentence_score(p["good"], [p["ref"]])
            m.sentence_score(p["bad"], [p["ref"]])
    return time.perf_counter() - t


def scoring(n: int, work: Path) -> dict:
    import mtgauntlet as mg

    pairs = make_pairs(n)
    t = time.perf_counter()
    releases = release_pairs(work, pairs)
    release_s = time.perf_counter() - t
    plain_s = plain_loop(pairs)
    t = time.perf_counter()
    res = mg.evaluate("metric", releases=releases, metric="chrf,bleu", out=work / "results", ci_resamples=200)
    bench_s = time.perf_counter() - t
    out = {
        "pairs": n,
        "release_s": release_s,
        "plain_sacrebleu_s": plain_s,
        "plain_pairs_s": n / plain_s,
        "workbench_s": bench_s,
        "workbench_pairs_s": n / bench_s,
        "ratio_workbench_over_plain": plain_s / bench_s,
        "computed": {m: c["computed"] for m, c in res["metrics"].items()},
    }
    print(
        f"chrF + BLEU over {n:,} pairs: workbench {out['workbench_pairs_s']:,.0f} pairs/s ({bench_s:.1f} s), "
        f"plain sacrebleu loop {out['plain_pairs_s']:,.0f} pairs/s ({plain_s:.1f} s): ratio "
        f"{out['ratio_workbench_over_plain']:.2f}"
    )
    # 3. incremental: chrF alone first, then chrF + BLEU
    inc = work / "incremental"
    t = time.perf_counter()
    first = mg.evaluate("metric", releases=releases, metric="chrf", out=inc, ci_resamples=200)
    first_s = time.perf_counter() - t
    t = time.perf_counter()
    second = mg.evaluate("metric", releases=releases, metric="chrf,bleu", out=inc, ci_resamples=200)
    second_s = time.perf_counter() - t
    out["incremental"] = {
        "first_chrf_s": first_s,
        "first": first["metrics"]["chrf"]["computed"],
        "then_chrf_bleu_s": second_s,
        "counts": {m: {k: c[k] for k in ("computed", "reused")} for m, c in second["metrics"].items()},
    }
    print(
        f"incremental: chrF alone {first_s:.1f} s; then chrF + BLEU {second_s:.1f} s, computed "
        + ", ".join(f"{m} {c['computed']:,} (reused {c['reused']:,})" for m, c in second["metrics"].items())
    )
    return out


def query(n_scores: int, work: Path) -> dict:
    import numpy as np
    import pyarrow as pa

    import mtgauntlet as mg
    from mtgauntlet.schema import get_kind, to_table
    from mtgauntlet.workbench.store import seal, write_parquet

    results = work / "big"
    rng = np.random.default_rng(0)
    metrics = [f"metric{i}" for i in range(10)]
    per_shard = 1_000_000
    schema = get_kind("metric_score").schema
    stats = []
    for start in range(0, n_scores, per_shard):
        n = min(per_shard, n_scores - start)
        idx = np.arange(start, start + n)
        pair = idx // 2
        m = (pair * 10 // max(1, n_scores // 2)).clip(0, 9)  # metric blocks; each metric scores n/10 items
        t = pa.table(
            {
                "item_key": pa.array([f"{k:016x}" for k in idx]),
                "metric": pa.array(np.array(metrics)[m]),
                "metric_signature": pa.array(np.array([f"{x}|v:1" for x in metrics])[m]),
                "set": pa.array(np.array([f"set{s}" for s in range(20)])[pair % 20]),
                "version": pa.array(["1.0.0"] * n),
                "record_kind": pa.array(["smaug_pair"] * n),
                "record_id": pa.array([f"{p:016x}" for p in pair]),
                "side": pa.array(np.where(idx % 2 == 0, "good", "bad")),
                "score": pa.array(rng.random(n)),
                "failure": pa.array([None] * n, pa.string()),
            },
            schema=schema,
        )
        write_parquet(t, results / "data" / "metric_score" / f"part-{start:012d}.parquet")
    for mname in metrics:
        for s in range(20):
            stats.append(
                {
                    "metric": mname,
                    "metric_signature": f"{mname}|v:1",
                    "set": f"set{s}",
                    "version": "1.0.0",
                    "record_kind": "smaug_pair",
                    "phenomenon": "all",
                    "lp": "all",
                    "gold": None,
                    "grouping": "none",
                    "statistic": "accuracy",
                    "value": 0.5,
                    "ci_low": None,
                    "ci_high": None,
                    "n": n_scores // 400,
                }
            )
    seal(results, to_table("metric_stat", stats), [])
    empty = work / "empty-catalog"
    empty.mkdir()
    from mtgauntlet.releases.catalog import open_catalog

    t = time.perf_counter()
    con = open_catalog(empty, results)
    open_s = time.perf_counter() - t
    sql_acc = (
        "SELECT metric, set, avg((g > b)::INT) AS accuracy, count(*) AS n FROM (SELECT metric, set, "
        "record_id, max(score) FILTER (side = 'good') AS g, max(score) FILTER (side = 'bad') AS b "
        "FROM metric_score GROUP BY ALL) GROUP BY ALL ORDER BY metric, set"
    )
    sql_board = "SELECT * FROM leaderboard WHERE statistic = 'accuracy' ORDER BY value DESC"
    timings = {}
    for name, sql in (
        ("leaderboard_view", sql_board),
        ("accuracy_from_scores", sql_acc),
        ("count_scores", "SELECT count(*) FROM metric_score"),
    ):
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            rows = con.execute(sql).fetchall()
            best = min(best, time.perf_counter() - t)
        timings[name] = {"best_of_3_ms": best * 1000, "rows": len(rows)}
    con.close()
    t = time.perf_counter()
    df = mg.query(sql_board, releases=empty, results=results)
    whole_s = time.perf_counter() - t
    out = {
        "scores": n_scores,
        "open_catalog_s": open_s,
        "queries": timings,
        "mg_query_total_s": whole_s,
        "rows": len(df),
    }
    print(
        f"{n_scores:,} stored scores: open the catalog (sha256 of every shard) {open_s:.2f} s; queries "
        + ", ".join(f"{k} {v['best_of_3_ms']:.0f} ms" for k, v in timings.items())
        + f"; mg.query of the leaderboard, all included, {whole_s:.2f} s"
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--scores", type=int, default=10_000_000)
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "workbench.json"))
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="workbench-bench-"))
    try:
        res = {
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg()[0],
            "scoring": scoring(args.pairs, work),
            "query": query(args.scores, work),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    Path(args.out).write_text(json.dumps(res, indent=2) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
