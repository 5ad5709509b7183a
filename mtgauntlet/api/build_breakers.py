"""MT-breaker and zero-shot builds from Python (``gauntlet build mtbreaker|zeroshot``): an LLM edits or generates
from seed texts until the target MT model translates them badly. Both read their seeds and run the same way; `build`
(in `mtgauntlet.api.building`) dispatches to them as to every other method."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from mtgauntlet.api.build_run import breaker_shard_size, paced, run_builder
from mtgauntlet.api.inputs import as_input_path, input_format
from mtgauntlet.api.results import Build
from mtgauntlet.api.session import public
from mtgauntlet.builders.options.breaker import MTBreakerOptions, ZeroShotOptions
from mtgauntlet.corpora.options import lang_pair, load_corpus
from mtgauntlet.models.qe_ensemble import split_specs
from mtgauntlet.options import takes

__all__ = ["build_mtbreaker", "build_zeroshot"]


def languages(o: MTBreakerOptions | ZeroShotOptions) -> tuple[str, str]:
    """The seeds' and the targets' language, normalised (both options are ``str`` with a default)."""
    return cast(tuple[str, str], lang_pair(o.src_lang, o.tgt_lang))


def seed_rows(o: MTBreakerOptions | ZeroShotOptions, src_lang: str, tgt_lang: str):
    """Seed texts (source side only) of any table or named layout, with the reader's skip counts, drawn to
    ``sample`` (content-keyed: the same ``sample`` and ``seed`` give both methods the same seeds)."""
    from mtgauntlet.builders.breaker_sources import keyed_sample

    rows = load_corpus(
        as_input_path(o.seeds),
        format=input_format(o.seeds, o.format),
        src_col=o.column,
        ref_col=None,
        src_lang=src_lang,
        tgt_lang=tgt_lang,
        limit=o.limit,
        lp=o.lp,
        quoting=o.quoting,
        max_chars=o.max_chars,
        skip_bad=o.skip_bad,
    )
    rows.rows = keyed_sample(rows.rows, o.sample, o.seed)
    return rows


def breaker_build(make_builder: Callable[[], Any], name: str, rows, o: MTBreakerOptions | ZeroShotOptions) -> Build:
    """MT-breaker / zero-shot: the builder made and run under ``concurrency`` and the budget, with the resumable
    shard size (the failure counts are in build.json: counts.failures)."""
    with paced(o.concurrency, o.max_cost, o.max_requests):
        builder = make_builder()
        if o.dry_run:
            from mtgauntlet.builders.base import iter_items

            return Build(Path(o.out), plan=builder.plan(iter_items(rows.rows)))
        summary = run_builder(
            builder,
            str(o.out),
            rows,
            seed=o.seed,
            overwrite=o.overwrite,
            shard_size=breaker_shard_size(o.shard_size, str(o.out), name, o.overwrite),
        )
    return Build.open(o.out, run=summary, skipped=rows.skipped_counts())


@public
@takes(MTBreakerOptions, Build)
def build_mtbreaker(o: MTBreakerOptions) -> Build:
    """MT-breaker: an LLM edits each seed step by step until the target MT model translates it badly
    (``gauntlet build mtbreaker``; every option as there, see its ``--help``).

    Returns:
        The `Build`.

    Raises:
        UsageError: An option out of range. BudgetSpent: the budget ran out. GauntletError: bad input or spec.

    Examples:
        >>> b = mg.build("mtbreaker", seeds="seeds.tsv", out="builds/mtb", column="en", steps=3, max_requests=500)
    """
    from mtgauntlet.builders.mtbreaker import MTBreakerBuilder

    src_lang, tgt_lang = languages(o)
    rows = seed_rows(o, src_lang, tgt_lang)
    return breaker_build(
        lambda: MTBreakerBuilder(
            variant=o.variant,
            llm=o.llm,
            mt=split_specs(o.mt),
            qe=o.qe,
            steps=o.steps,
            src_lang=src_lang,
            tgt_lang=tgt_lang,
            temperature=o.temperature,
            max_tokens=o.max_tokens,
            language_guard=o.language_guard,
            grammatical_edits=o.grammatical_edits,
            sample=o.sample,
        ),
        "mtbreaker",
        rows,
        o,
    )


@public
@takes(ZeroShotOptions, Build)
def build_zeroshot(o: ZeroShotOptions) -> Build:
    """Zero-shot baselines: one generation per item, with history, or the most difficult of ``generations``
    (``gauntlet build zeroshot``; every option as there, see its ``--help``).

    Returns:
        The `Build`.

    Raises:
        UsageError: An option out of range. BudgetSpent: the budget ran out. GauntletError: bad input or spec.

    Examples:
        >>> b = mg.build("zeroshot", seeds="seeds.tsv", out="builds/zs", column="en", variant="min", generations=4)
    """
    from mtgauntlet.builders.zeroshot import ZeroShotBuilder

    src_lang, tgt_lang = languages(o)
    rows = seed_rows(o, src_lang, tgt_lang)
    return breaker_build(
        lambda: ZeroShotBuilder(
            variant=o.variant,
            llm=o.llm,
            mt=split_specs(o.mt),
            qe=o.qe,
            src_lang=src_lang,
            tgt_lang=tgt_lang,
            generations=o.generations,
            temperature=o.temperature,
            max_tokens=o.max_tokens,
            history_size=o.history_size,
            language_guard=o.language_guard,
            sample=o.sample,
        ),
        "zeroshot",
        rows,
        o,
    )
