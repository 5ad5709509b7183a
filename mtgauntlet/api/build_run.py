"""How a build of :mod:`mtgauntlet.api.building` runs and reports, the same for every method (its record in
`mtgauntlet.builders.methods`): the input read as the method says, the builder made from the options under the
build's pace and budget (``concurrency``, ``max_cost``, ``max_requests``), then the dry run's plan, or the builder
run over its shards (a search: run by itself). What ``gauntlet build`` prints of it: `mtgauntlet.api.build_report`."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from mtgauntlet.api.inputs import as_input_path, input_format
from mtgauntlet.api.results import Build
from mtgauntlet.builders.base import Builder, iter_items
from mtgauntlet.builders.methods import Method
from mtgauntlet.core.progress import info


def build_method(method: Method, options: Any) -> Build:
    """Build ``method`` with ``options`` (an instance of ``method.options``, checked): read its input (a table in
    memory is written to a Parquet file first), make its builder under the budget, then return the dry run's plan,
    or run it into ``options.out``."""
    source = getattr(options, method.input)
    o = dataclasses.replace(
        options,
        format=input_format(source, options.format),  # in memory: always its Parquet file
        **{method.input: as_input_path(source) if source is not None else None},
    )
    cls = method.builder_class
    with paced(o.concurrency, o.max_cost, o.max_requests):  # every model the builder loads is loaded with them
        o, rows = cls.read(o)
        builder = cls(o)
        builder.load_backends()  # a bad spec fails before anything is written
        notes = builder.notes()
        for note in notes:
            info(f"  {note}")
        skipped = rows.skipped_counts()
        if o.dry_run:
            return Build(Path(o.out), plan=builder.plan(iter_items(rows.rows)), notes=notes, skipped=skipped)
        if not isinstance(builder, Builder):  # a search: no shards (the bandit)
            builder.run(str(o.out), rows.rows, o.overwrite)
            return Build.open(o.out, skipped=skipped, notes=notes)
        summary = run_builder(
            builder,
            str(o.out),
            rows,
            seed=o.seed,
            shard_size=shard_size(o.shard_size, str(o.out), builder, o.overwrite),
            overwrite=o.overwrite,
        )
    return Build.open(o.out, run=summary, skipped=skipped, notes=notes)


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
    builder: Builder,
    out: str,
    rows,
    *,
    seed: int,
    shard_size: int,
    overwrite: bool,
) -> Any:
    """Run ``builder`` over the read ``rows`` (a corpus reader's result, with its skip counts) into ``out`` in
    resumable shards, on the engine it names (local or Ray); the runner's summary."""
    from mtgauntlet.engines import get_engine
    from mtgauntlet.runner.build_runner import BuildRunner

    engine, actors = builder.shards_engine()
    shards = get_engine(engine, **({"actors": actors} if engine == "ray" else {}))
    return BuildRunner(builder, out, seed=seed, shard_size=shard_size, overwrite=overwrite, engine=shards).run(
        iter_items(rows.rows), rows.skipped_counts()
    )


def shard_size(requested: int | None, out: str, builder: Builder, overwrite: bool) -> int:
    """``shard_size`` as given; where a method leaves it open (``None``: mtbreaker, zeroshot), the shard size of
    the build of the same builder already in ``out`` (builds started before batching used 1), so that a plain
    re-run resumes it, else the builder's ``default_shard_size``."""
    if requested is not None:
        return requested
    path = Path(out) / "build.json"
    if not overwrite and path.is_file():
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            manifest = None
        if isinstance(manifest, dict) and manifest.get("builder") == builder.name:
            size = manifest.get("shard_size")
            if isinstance(size, int) and size >= 1:
                return size
    return builder.default_shard_size
