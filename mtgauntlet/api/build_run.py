"""How a build of :mod:`mtgauntlet.api.building` runs and reports: its pace and budget (``concurrency``,
``max_cost``, ``max_requests``), the builder run over its shards, the shard size MT-breaker and zero-shot resume
with, and the lines ``gauntlet build`` prints of a finished build or search."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from mtgauntlet.builders.options import BREAKER_SHARD_SIZE


@contextlib.contextmanager
def api_concurrency(n: int | None):
    """``concurrency`` of one build: the default of every openai: backend loaded inside (as the global option),
    restored afterwards so that later builds in the same process (a recipe) do not inherit it."""
    from mtgauntlet.models.runtime import ENV, set_defaults

    old = os.environ.get(ENV["concurrency"])
    if n is not None:
        set_defaults(concurrency=n)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(ENV["concurrency"], None)
        else:
            os.environ[ENV["concurrency"]] = old


@contextlib.contextmanager
def paced(concurrency: int | None, max_cost: float | None, max_requests: int | None):
    """A build's ``concurrency`` and budget (``max_cost``/``max_requests``: `BudgetSpent` when spent)."""
    from mtgauntlet.core.budget import budget

    with api_concurrency(concurrency), budget(max_cost, max_requests):
        yield


def run_builder(
    builder,
    out: str,
    rows,
    *,
    seed: int,
    shard_size: int,
    overwrite: bool,
    engine: str = "local",
    actors: int | None = None,
) -> Any:
    """Run ``builder`` over the read ``rows`` (a corpus reader's result, with its skip counts) into ``out`` in
    resumable shards, on the local or the Ray engine; the runner's summary."""
    from mtgauntlet.builders.base import iter_items
    from mtgauntlet.engines import get_engine
    from mtgauntlet.runner.build_runner import BuildRunner

    shards = get_engine(engine, **({"actors": actors} if engine == "ray" else {}))
    return BuildRunner(builder, out, seed=seed, shard_size=shard_size, overwrite=overwrite, engine=shards).run(
        iter_items(rows.rows), rows.skipped_counts()
    )


def breaker_shard_size(requested: int | None, out: str, builder: str, overwrite: bool) -> int:
    """``shard_size`` of mtbreaker/zeroshot: as given; else the shard size of the build of the same builder
    already in ``out`` (builds started before batching used 1), so that a plain re-run resumes it; else the
    default."""
    if requested is not None:
        return requested
    path = Path(out) / "build.json"
    if not overwrite and path.is_file():
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            manifest = None
        if isinstance(manifest, dict) and manifest.get("builder") == builder:
            size = manifest.get("shard_size")
            if isinstance(size, int) and size >= 1:
                return size
    return BREAKER_SHARD_SIZE


def describe_run(summary) -> str:
    """A runner's summary as ``gauntlet build`` prints it: records, rejected and skipped items, resumed shards,
    signature, API usage, failure counts."""
    from mtgauntlet.core.usage_report import summary_line as usage_line

    parts = [f"{summary.produced} records from {summary.items} items -> {Path(summary.out_dir) / 'data'}"]
    if summary.rejected:
        parts.append("rejected: " + ", ".join(f"{k}={v}" for k, v in sorted(summary.rejected.items())))
    if summary.skipped:
        parts.append("skipped: " + ", ".join(f"{k}={v}" for k, v in sorted(summary.skipped.items())))
    if summary.resumed_shards:
        parts.append(f"resumed {summary.resumed_shards} finished shard(s)")
    parts.append(f"signature: {summary.signature}")
    if usage_line(getattr(summary, "usage", {})):
        parts.append(usage_line(summary.usage))
    if summary.failures:
        parts.append("failures: " + ", ".join(f"{k}={v}" for k, v in summary.failures.items()))
    return "\n".join(parts)


def describe_search(build) -> str:
    """A bandit search (a `Build`) as ``gauntlet build bandit`` prints it: pulls, failures, the top topics, the
    signature."""
    from mtgauntlet.corpora.options import skipped_counts_note

    m, c = build.summary, build.summary["counts"]
    lines = [
        f"{c['pulls']} pulls over {m['config']['n_topics']} topics ({c['scored_pulls']} scored; failed: "
        f"mt={c['mt_failures']}, qe={c['qe_failures']}); top-{m['config']['k']}:"
    ]
    lines += [f"  {t['mean_difficulty']:6.2f}  ({t['pulls']} pulls)  {t['topic']}" for t in m["top_topics"]]
    lines.append(f"signature: {m['signature']}" + skipped_counts_note(build.skipped))
    return "\n".join(lines)
