"""Option groups a method's options dataclass inherits, so that it declares only its own options: the reading of a
parallel corpus (`ParallelInput`) and how a build runs (`BuildRun`: the seed and shards of `Shards`, then the pace,
budget, dry run and overwrite of `Spending`). A dataclass lists the fields of its bases first, the last base first;
the run groups are trailing (`mtgauntlet.options.trailing`): their fields come after the method's own.
``class MyOptions(BuildRun, ParallelInput)`` has the corpus options, then its own, then the run options. A method
that declares a group's field again (another default or help) keeps it in the group's place."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet import shared_options as shared
from mtgauntlet.options import REQUIRED, option, trailing


@dataclass(kw_only=True, frozen=True)
class ParallelInput:
    """A parallel corpus (source and reference columns) and where the build goes."""

    input: Any = shared.input_table(
        "Parallel corpus (TSV/CSV/JSONL/Parquet, .gz ok) or named layout.",
        "Parallel corpus file, named layout, or an in-memory table.",
    )
    out: str | Path = shared.out()
    src_lang: str = shared.src_lang(REQUIRED)
    tgt_lang: str = shared.tgt_lang(REQUIRED)
    format: str | None = shared.format()
    src_col: str = option("src", help="Source column (tables; named layouts decide their own).")
    ref_col: str = option("ref", help="Reference column (tables; named layouts decide their own).")
    lp: str | None = shared.lp("multi-pair layouts (e.g. en-es)")
    limit: int | None = shared.limit()
    quoting: str = shared.quoting()
    max_chars: int = shared.max_chars()
    skip_bad: bool = shared.skip_bad()


@trailing
@dataclass(kw_only=True, frozen=True)
class Spending:
    """What every build ends with: requests at once, the budget of paid requests, dry run, overwrite."""

    concurrency: int | None = shared.concurrency()
    max_cost: float | None = shared.max_cost()
    max_requests: int | None = shared.max_requests()
    dry_run: bool = shared.dry_run()
    overwrite: bool = shared.overwrite()


@trailing
@dataclass(kw_only=True, frozen=True)
class Shards:
    """The seed of a build's randomness and the size of its resumable shards."""

    seed: int = shared.seed()
    shard_size: int | None = shared.shard_size(100)  # None: the method decides (api.build_run.shard_size)


@dataclass(kw_only=True, frozen=True)
class BuildRun(Spending, Shards):
    """What the build path reads of every method: the seed, the shards, the pace and budget, dry run, overwrite."""
