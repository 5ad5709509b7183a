"""The metric workbench (`gauntlet evaluate metric --out`, issues #36 section 4 and #42).

1. chrF + BLEU over N pairs (default 30,000 and 1M) of a released smaug_pair set, through the whole command
   (``gauntlet evaluate metric -m chrf,bleu --out``, a fresh interpreter: imports, catalog read, item keys,
   scoring, shards, statistics, seal): pairs/s, beside a plain sacrebleu ``sentence_score`` loop over the same
   pairs in the same run (ratio = plain time / workbench time; above 50,000 pairs the loop runs on the first
   30,000 and is extrapolated linearly, as it is per pair); then 2,000 stored scores drawn at random are checked
   against sacrebleu's ``sentence_score`` to 1e-9 (the run fails otherwise);
2. pairwise chrF (the validators' diversity) at 1k/2k/5k/10k texts beside a sacrebleu loop's estimate (a 100 x 100
   block timed in the same run; the block's values compared);
3. a leaderboard query over 10M stored scores in DuckDB (the catalog with ``--results``; ``--scores 0`` skips);
4. an incremental re-run with one new metric: chrF first, then chrF + BLEU: only BLEU is computed.

Usage: python benchmarks/workbench.py [--pairs 30000,1000000] [--texts 1000,2000,5000,10000] [--scores N]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
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


PLAIN_MAX = 50_000  # above this many pairs the plain loop runs on the first PLAIN_SAMPLE and is extrapolated
PLAIN_SAMPLE = 30_000


def plain_loop(pairs: list[dict]) -> float:
    from sacrebleu.metrics import BLEU, CHRF

    chrf, bleu = CHRF(), BLEU(effective_order=True)
    t = time.perf_counter()
    for p in pairs:
        for m in (chrf, bleu):
            m.sentence_score(p["good"], [p["ref"]])
            m.sentence_score(p["bad"], [p["ref"]])
    return time.perf_counter() - t


def whole_command(releases: Path, out: Path) -> float:
    """Seconds of ``gauntlet evaluate metric -m chrf,bleu`` in a fresh interpreter (everything included)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "MTGAUNTLET_QUIET": "1"}
    cmd = [sys.executable, "-m", "mtgauntlet.cli.main", "evaluate", "metric", "--releases", str(releases)]
    cmd += ["-m", "chrf,bleu", "--out", str(out), "--ci-resamples", "200", "--json"]
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"evaluate metric failed: {proc.stderr[-2000:]}")
    return elapsed


def check_sample(results: Path, pairs: list[dict], n: int = 2000, seed: int = 0) -> dict:
    """Stored scores of ``n`` random items against sacrebleu's ``sentence_score``: the largest difference."""
    import random

    import pyarrow.parquet as pq
    from sacrebleu.metrics import BLEU, CHRF

    manifest = json.loads((results / "manifest.json").read_text())
    rows = [
        r
        for f in manifest["files"]
        if f["kind"] == "metric_score"
        for r in pq.read_table(results / f["path"], columns=["metric", "item_key", "side", "score"]).to_pylist()
    ]
    from mtgauntlet.workbench.sets import item_key

    texts = {}
    for p in pairs:
        for side in ("good", "bad"):
            texts[item_key(p["src"], p[side], p["ref"], p["src_lang"], p["tgt_lang"])] = (p[side], p["ref"])
    metrics = {"chrf": CHRF(), "bleu": BLEU(effective_order=True)}
    worst = 0.0
    for r in random.Random(seed).sample(rows, min(n, len(rows))):
        hyp, ref = texts[r["item_key"]]
        worst = max(worst, abs(r["score"] - metrics[r["metric"]].sentence_score(hyp, [ref]).score))
    if worst > 1e-9:
        raise SystemExit(f"stored scores differ from sacrebleu's by {worst:.3g} on a sample of {n}")
    return {"checked": min(n, len(rows)), "max_abs_diff": worst}


def scoring(n: int, work: Path, incremental: bool) -> dict:
    import mtgauntlet as mg

    pairs = make_pairs(n)
    t = time.perf_counter()
    releases = release_pairs(work, pairs)
    release_s = time.perf_counter() - t
    looped = pairs if n <= PLAIN_MAX else pairs[:PLAIN_SAMPLE]
    plain_s = plain_loop(looped) * n / len(looped)
    bench_s = whole_command(releases, work / "results")
    check = check_sample(work / "results", pairs)
    out = {
        "pairs": n,
        "release_s": release_s,
        "plain_sacrebleu_s": plain_s,
        "plain_loop_pairs": len(looped),
        "plain_pairs_s": n / plain_s,
        "workbench_s": bench_s,
        "workbench_pairs_s": n / bench_s,
        "ratio_workbench_over_plain": plain_s / bench_s,
        "load_average": os.getloadavg()[0],
        "sample_check": check,
    }
    estimated = "" if len(looped) == n else f", extrapolated from {len(looped):,} pairs"
    print(
        f"chrF + BLEU over {n:,} pairs: evaluate metric (whole command) {out['workbench_pairs_s']:,.0f} pairs/s "
        f"({bench_s:.1f} s), plain sacrebleu loop {out['plain_pairs_s']:,.0f} pairs/s ({plain_s:.1f} s{estimated}): "
        f"ratio {out['ratio_workbench_over_plain']:.1f}; {check['checked']:,} stored scores = sacrebleu's "
        f"(max |diff| {check['max_abs_diff']:.1g}); load average {out['load_average']:.1f}",
        flush=True,
    )
    if not incremental:
        return out
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
                **({"spans": pa.nulls(n, schema.field("spans").type)} if "spans" in schema.names else {}),
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


def pairwise(sizes: list[int]) -> list[dict]:
    """Pairwise chrF of n texts (FLORES-200 devtest sentences in 16 languages) beside a sacrebleu loop's estimate."""
    import gzip

    import numpy as np
    from sacrebleu.metrics import CHRF

    from mtgauntlet.validators.chrf_matrix import mean_pairwise_chrf, pairwise_chrf

    flores = REPO.parent / "shared" / "data" / "flores200-devtest" / "flores200_devtest.tsv.gz"
    with gzip.open(flores, "rt", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    langs = [c for c in rows[0] if c not in ("id", "URL", "domain", "topic", "has_image", "has_hyperlink")]
    texts = [r[lang] for lang in langs for r in rows]
    pairwise_chrf(texts[:20])  # the kernels load (compiled once, cached)
    k, metric = 100, CHRF()
    t = time.perf_counter()
    block = np.array([[metric.sentence_score(h, [r]).score for r in texts[:k]] for h in texts[:k]])
    per_pair = (time.perf_counter() - t) / (k * k)
    diff = float(np.abs(pairwise_chrf(texts[:k]) - block).max())
    out = []
    for n in sizes:
        t = time.perf_counter()
        mean, used = mean_pairwise_chrf(texts[:n], max_texts=None)
        ours = time.perf_counter() - t
        loop = per_pair * n * n
        out.append({"texts": n, "seconds": ours, "sacrebleu_loop_estimate_s": loop, "ratio": loop / ours})
        print(
            f"pairwise chrF, {n:,} texts ({n * n:,} pairs): {ours:.1f} s; a sacrebleu loop ~{loop:,.0f} s "
            f"({per_pair * 1e6:.0f} us/pair measured now): {loop / ours:,.0f}x; 100x100 block max |diff| {diff:.1g}; "
            f"load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", default="30000,1000000", help="comma-separated numbers of pairs")
    ap.add_argument("--texts", default="1000,2000,5000,10000", help="pairwise chrF sizes ('' skips)")
    ap.add_argument("--scores", type=int, default=10_000_000, help="stored scores for the query part (0 skips)")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "workbench.json"))
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="workbench-bench-"))
    sizes = [int(x) for x in args.pairs.split(",") if x]
    try:
        res: dict = {"cpus": os.cpu_count(), "load_average": os.getloadavg()[0], "scoring": []}
        for i, n in enumerate(sizes):
            res["scoring"].append(scoring(n, work / f"pairs-{n}", incremental=i == 0))
        res["pairwise_chrf"] = pairwise([int(x) for x in args.texts.split(",") if x])
        if args.scores:
            res["query"] = query(args.scores, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    Path(args.out).write_text(json.dumps(res, indent=2) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
