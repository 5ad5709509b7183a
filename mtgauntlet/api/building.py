"""Challenge sets from Python: `build` (``gauntlet build <method>``), one function per method with the
command's options as keywords (`build_subset`, `build_smaug`, `build_mtbreaker`,
`build_zeroshot`, `build_bandit`); the CLI commands call them and print what they return.

`build` adds what a notebook wants: ``input=`` for every method (the CLI's ``--seeds`` of mtbreaker and
zeroshot, ``--corpus`` of bandit), a DataFrame / ``datasets.Dataset`` / list of dicts as input, and ``out=None``
(a content-addressed folder under the cache, so the same call resumes).
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import math
import os
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from mtgauntlet.api.checks import in_ranges, input_formats, one_of, unknown_keywords
from mtgauntlet.api.inputs import as_input_path, cache_dir
from mtgauntlet.api.results import Build
from mtgauntlet.api.session import public
from mtgauntlet.builders.mtbreaker import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE
from mtgauntlet.corpora.options import comma_list, lang_pair, load_corpus, one_pair
from mtgauntlet.corpora.readers import DEFAULT_MAX_CHARS
from mtgauntlet.errors import GauntletError, UsageError
from mtgauntlet.runner.progress import info

__all__ = ["build", "build_subset", "build_smaug", "build_mtbreaker", "build_zeroshot", "build_bandit"]

BREAKER_SHARD_SIZE = 16  # items advanced together by mtbreaker/zeroshot (requests in flight <= items per shard)
INPUT_OPTION = {"subset": "input", "smaug": "input", "mtbreaker": "seeds", "zeroshot": "seeds", "bandit": "corpus"}
# how fast, where to, whether at all: never what is built, so not part of the content-addressed out folder
PLACEMENT = ("out", "overwrite", "concurrency", "actors", "max_cost", "max_requests", "dry_run")
# the ranges typer enforces on the command line (``min=``/``max=``), by keyword: the same refusal from Python; the
# option tables of recipes read them too (mtgauntlet.recipes.options)
MINIMUM = {"budget": 1, "limit": 1, "sample": 1, "max_chars": 1, "shard_size": 1, "concurrency": 1, "max_cost": 0.0,
           "max_requests": 0, "min_char_edit": 0, "min_word_edit": 0, "del_min_words": 1, "del_max_words": 1,
           "max_parse_chars": 1, "steps": 1, "max_tokens": 1, "k": 1, "cap": 0, "epsilon": 0.0, "batch": 1,
           "min_words": 1, "max_words": 1, "history_size": 1, "topic_levels": 1, "topic_branching": 1}
MAXIMUM = {"epsilon": 1.0}


def _check(options: dict[str, Any]) -> None:
    """The checks typer makes on the command line, made before any work."""
    in_ranges(options, MINIMUM, MAXIMUM)
    one_of("--format", options.get("format"), input_formats())


@contextlib.contextmanager
def api_concurrency(n: Optional[int]):
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
def _paced(concurrency: Optional[int], max_cost: Optional[float], max_requests: Optional[int]):
    """A build's ``concurrency`` and budget (``max_cost``/``max_requests``: `BudgetSpent` when spent)."""
    from mtgauntlet.models.usage import budget

    with api_concurrency(concurrency), budget(max_cost, max_requests):
        yield


def breaker_shard_size(requested: Optional[int], out: str, builder: str, overwrite: bool) -> int:
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
    from mtgauntlet.models.usage import summary_line as usage_line

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


def describe_search(build: Build) -> str:
    """A bandit search as ``gauntlet build bandit`` prints it: pulls, failures, the top topics, the signature."""
    from mtgauntlet.corpora.options import skipped_counts_note

    m, c = build.summary, build.summary["counts"]
    lines = [f"{c['pulls']} pulls over {m['config']['n_topics']} topics ({c['scored_pulls']} scored; failed: "
             f"mt={c['mt_failures']}, qe={c['qe_failures']}); top-{m['config']['k']}:"]
    lines += [f"  {t['mean_difficulty']:6.2f}  ({t['pulls']} pulls)  {t['topic']}" for t in m["top_topics"]]
    lines.append(f"signature: {m['signature']}" + skipped_counts_note(build.skipped))
    return "\n".join(lines)


def _run(builder, out: str, rows, *, seed: int, shard_size: int, overwrite: bool, **fields: Any) -> Build:
    from mtgauntlet.builders.base import iter_items
    from mtgauntlet.runner.build_runner import BuildRunner

    summary = BuildRunner(builder, out, seed=seed, shard_size=shard_size, overwrite=overwrite).run(
        iter_items(rows.rows), rows.skipped_counts())
    return Build.open(out, run=summary, skipped=rows.skipped_counts(), **fields)


@public
def build_subset(*, input: Any, out: str | Path, estimator: str = "length", budget: int = 100,
                 stratify: Optional[str] = None, format: Optional[str] = None, src_col: str = "src",
                 domain_col: Optional[str] = None, src_lang: Optional[str] = None,
                 tgt_lang: str | Sequence[str] = (),
                 lp: Optional[str] = None, limit: Optional[int] = None, quoting: str = "auto",
                 max_chars: int = DEFAULT_MAX_CHARS, seed: int = 13, shard_size: int = 500, skip_bad: bool = False,
                 overwrite: bool = False, engine: str = "local", actors: Optional[int] = None,
                 concurrency: Optional[int] = None, max_cost: Optional[float] = None,
                 max_requests: Optional[int] = None, dry_run: bool = False) -> Build:
    """Score a corpus with a difficulty estimator and keep the ``budget`` hardest texts (``selected_text``
    records). The options are those of ``gauntlet build subset`` (see ``gauntlet build subset --help``).

    Args:
        input: Corpus file (TSV/CSV/JSONL/Parquet, .gz ok), named layout, or an in-memory table.
        out: Output build directory (resumable).
        estimator: Difficulty estimator spec (length, syntax, rarity, random, learned, sentinel:..., llm-judge:...).
        budget: Number of texts to keep (``>= 1``).
        stratify: Keep diversity: ``domain`` or ``clusters``.
        format: Input format (default: from the file name).
        src_col: Source text column.
        domain_col: Domain column (for ``stratify="domain"``).
        src_lang: Source language (BCP-47); named layouts give it.
        tgt_lang: Target language, if the subset is meant for one pair (default: none, or the layout's); several (a
            list or ``"cs,de"``): a
            target-aware estimator's score is the mean over them (the Sentinel paper's section 6.1), and the records
            are for no single pair.
        lp: Language pair filter for multi-pair layouts.
        limit: Read at most N rows.
        quoting: TSV/CSV quoting: auto, csv or none.
        max_chars: Longest text a row may hold.
        seed: Random seed (part of the signature).
        shard_size: Items per resumable shard.
        skip_bad: Skip bad rows and count them by reason instead of stopping.
        overwrite: Discard a different or unfinished build found in ``out``.
        engine: Score with ``local`` or ``ray``.
        actors: Ray actors.
        concurrency: Requests sent at once to openai: backends.
        max_cost: Stop (`BudgetSpent`) once the requests cost this many USD; the same call resumes.
        max_requests: Stop after N requests to openai: backends.
        dry_run: Only estimate the API calls, tokens and cost (`Build.plan`); write nothing.

    Returns:
        The `Build`.

    Raises:
        UsageError: An option out of range. BudgetSpent: the budget ran out. GauntletError: bad input or spec.

    Examples:
        >>> b = mg.build("subset", input="corpus.tsv", out="builds/hard", src_lang="en", budget=10)
    """
    _check(locals())
    from mtgauntlet.builders.subset import SubsetBuilder

    given = [tgt_lang] if tgt_lang is None or isinstance(tgt_lang, str) else list(tgt_lang)
    targets = [t for g in given for t in comma_list(g)] or [None]
    if len(set(targets)) != len(targets):
        raise UsageError(f"--tgt-lang: {', '.join(targets)} names a language twice")
    src_lang, tgt_lang = lang_pair(src_lang, targets[0])
    targets = [tgt_lang, *(lang_pair(None, t)[1] for t in targets[1:])]
    rows = load_corpus(as_input_path(input), format=format, src_col=src_col, ref_col=None, src_lang=src_lang,
                       tgt_lang=tgt_lang, limit=limit, skip_bad=skip_bad,
                       columns={"domain": domain_col} if domain_col else None, lp=lp, quoting=quoting,
                       max_chars=max_chars)
    src_lang, tgt_lang = one_pair(rows, src_lang, tgt_lang)
    targets[0] = tgt_lang
    if len(targets) > 1:  # the subset is for no single pair: no row's target language goes into its record
        for row in rows.rows:
            row.pop("tgt_lang", None)
    with _paced(concurrency, max_cost, max_requests):
        builder = SubsetBuilder(estimator=estimator, budget=budget, stratify=stratify, src_lang=src_lang,
                                tgt_lang=targets if len(targets) > 1 else tgt_lang, engine=engine,
                                work_dir=Path(out) / "scores", actors=actors)
        builder.estimator  # load the estimator now: a bad spec fails before anything is written
        if dry_run:
            from mtgauntlet.models.estimate import Plan

            plan = Plan()
            for target in targets:  # one scoring pass per target language
                plan.add_role(builder.estimator, [r["src"] for r in rows.rows], None, src_lang, target)
            return Build(Path(out), plan=plan)
        return _run(builder, str(out), rows, seed=seed, shard_size=shard_size, overwrite=overwrite)


@public
def build_smaug(*, input: Any, out: str | Path, src_lang: str, tgt_lang: str, format: Optional[str] = None,
                src_col: str = "src", ref_col: str = "ref", good_col: Optional[str] = None,
                good_from: Optional[str] = None, phenomena: str = "ne,num,neg,ins,del",
                translator: Optional[str] = None, infiller: Optional[str] = None, nli: Optional[str] = None,
                require_nli: bool = False, annotator: Optional[str] = None, polyjuice: Optional[str] = None,
                lp: Optional[str] = None, limit: Optional[int] = None, quoting: str = "auto",
                max_chars: int = DEFAULT_MAX_CHARS, min_char_edit: int = 5, min_word_edit: int = 8,
                del_min_words: int = 5, del_max_words: int = 9, max_parse_chars: int = 5000, ne_types: str = "all",
                seed: int = 13, shard_size: int = 200, skip_bad: bool = False, concurrency: Optional[int] = None,
                max_cost: Optional[float] = None, max_requests: Optional[int] = None, dry_run: bool = False,
                overwrite: bool = False) -> Build:
    """SMAUG: ``(source, good, bad, reference, phenomenon)`` records, bad = the reference with one critical error
    (``gauntlet build smaug``; every option as there, see its ``--help``).

    Args:
        input: Parallel corpus file, named layout, or an in-memory table.
        out: Output build directory (resumable).
        src_lang: Source language (BCP-47).
        tgt_lang: Target language: the side that is perturbed.
        format: Input format (default: from the file name).
        src_col: Source column.
        ref_col: Reference column (perturbed into the bad hypothesis).
        good_col: Column with the good hypothesis.
        good_from: ``column``, ``translator`` or ``reference``.
        phenomena: Comma-separated subset of ne,num,neg,ins,del.
        translator: Translator spec for the good hypothesis (e.g. apertium).
        infiller: Infiller spec (default: model-free).
        nli: NLI spec for the negation contradiction check.
        require_nli: Drop neg records whose NLI check did not run.
        annotator: Annotator spec (default spacy:<tgt_lang>).
        polyjuice: Polyjuice causal LM spec for negation.
        lp: Language pair filter for multi-pair layouts.
        limit: Read at most N rows.
        quoting: TSV/CSV quoting: auto, csv or none.
        max_chars: Longest text a row may hold.
        min_char_edit: ne: minimum character edit distance.
        min_word_edit: ins: minimum word edit distance.
        del_min_words: del: fewest words in the deleted span.
        del_max_words: del: most words in the deleted span.
        max_parse_chars: Longest source or reference parsed; longer rows are skipped (too_long).
        ne_types: ne: ``all`` or ``names``.
        seed: Random seed (part of the signature).
        shard_size: Items per resumable shard.
        skip_bad: Skip bad rows and count them by reason instead of stopping.
        concurrency: Requests sent at once to openai: backends.
        max_cost: Stop (`BudgetSpent`) once the requests cost this many USD; the same call resumes.
        max_requests: Stop after N requests to openai: backends.
        dry_run: Only estimate the API calls, tokens and cost (`Build.plan`); write nothing.
        overwrite: Discard a different or unfinished build found in ``out``.

    Returns:
        The `Build`; `Build.notes` says how each phenomenon is made here.

    Raises:
        UsageError: An option out of range. BudgetSpent: the budget ran out. GauntletError: bad input or spec.

    Examples:
        >>> b = mg.build("smaug", input="es_en.tsv", out="builds/smaug", src_lang="es", tgt_lang="en",
        ...                    src_col="es", ref_col="en", good_from="reference")
    """
    _check(locals())
    from mtgauntlet.builders.base import iter_items
    from mtgauntlet.builders.smaug import SmaugBuilder

    src_lang, tgt_lang = lang_pair(src_lang, tgt_lang)
    rows = load_corpus(as_input_path(input), format=format, src_col=src_col, ref_col=ref_col, src_lang=src_lang,
                       tgt_lang=tgt_lang, limit=limit, skip_bad=skip_bad,
                       columns={"good": good_col} if good_col else None, lp=lp, quoting=quoting, max_chars=max_chars)
    with _paced(concurrency, max_cost, max_requests):
        builder = SmaugBuilder(src_lang=src_lang, tgt_lang=tgt_lang, phenomena=comma_list(phenomena),
                               translator=translator, infiller=infiller, nli=nli, annotator=annotator,
                               polyjuice=polyjuice, good_col=good_col, good_from=good_from,
                               min_char_edit=min_char_edit, min_word_edit=min_word_edit, del_min_words=del_min_words,
                               del_max_words=del_max_words, require_nli=require_nli, seed=seed,
                               max_parse_chars=max_parse_chars, ne_types=ne_types)
        notes = [f"{ph}: {how}" for ph, (ok, how) in builder.support.items() if ph in builder.phenomena]
        notes += [f"note: {why}" for why in builder.flags().values()]
        for note in notes:
            info(f"  {note}")
        if dry_run:
            from mtgauntlet.models.estimate import smaug_plan

            return Build(Path(out), plan=smaug_plan(builder, list(iter_items(rows.rows))), notes=notes)
        return _run(builder, str(out), rows, seed=seed, shard_size=shard_size, overwrite=overwrite, notes=notes)


def _seed_rows(seeds: Any, column: str, format: Optional[str], src_lang: str, tgt_lang: str, limit: Optional[int],
               lp: Optional[str], quoting: str, max_chars: int, skip_bad: bool):
    """Seed texts (source side only) of any table or named layout, with the reader's skip counts."""
    return load_corpus(as_input_path(seeds), format=format, src_col=column, ref_col=None, src_lang=src_lang,
                       tgt_lang=tgt_lang, limit=limit, lp=lp, quoting=quoting, max_chars=max_chars, skip_bad=skip_bad)


def _breaker_build(make_builder: Callable[[], Any], name: str, rows, out: str, seed: int, overwrite: bool,
                   shard_size: Optional[int], concurrency: Optional[int], dry_run: bool,
                   max_cost: Optional[float], max_requests: Optional[int]) -> Build:
    """MT-breaker / zero-shot: the builder made and run under ``concurrency`` and the budget, with the resumable
    shard size (the failure counts are in build.json: counts.failures)."""
    with _paced(concurrency, max_cost, max_requests):
        builder = make_builder()
        if dry_run:
            from mtgauntlet.builders.base import iter_items
            from mtgauntlet.models.estimate import breaker_plan

            return Build(Path(out), plan=breaker_plan(builder, iter_items(rows.rows)))
        return _run(builder, out, rows, seed=seed, overwrite=overwrite,
                    shard_size=breaker_shard_size(shard_size, out, name, overwrite))


@public
def build_mtbreaker(*, seeds: Any, out: str | Path, column: str = "text", format: Optional[str] = None,
                    variant: str = "seeded", llm: Optional[str] = None, mt: str = "apertium", qe: str = "qe",
                    steps: int = 10, src_lang: str = "en", tgt_lang: str = "es", lp: Optional[str] = None,
                    limit: Optional[int] = None, sample: Optional[int] = None, quoting: str = "auto",
                    max_chars: int = DEFAULT_MAX_CHARS, skip_bad: bool = False,
                    temperature: float = DEFAULT_TEMPERATURE, max_tokens: int = DEFAULT_MAX_TOKENS,
                    grammatical_edits: bool = False, language_guard: bool = False, seed: int = 13,
                    shard_size: Optional[int] = None, concurrency: Optional[int] = None,
                    max_cost: Optional[float] = None, max_requests: Optional[int] = None, dry_run: bool = False,
                    overwrite: bool = False) -> Build:
    """MT-breaker: an LLM edits each seed step by step until the target MT model translates it badly
    (``gauntlet build mtbreaker``; every option as there, see its ``--help``).

    Args:
        seeds: Seed texts: a file, a named layout (flores, wmt24) or an in-memory table (``mg.build``: ``input=``).
        out: Output build directory (resumable).
        column: Seed text column.
        format: Input format (default: from the file name).
        variant: ``seeded``, ``seedless``, ``seeded+qe`` or ``seedless+qe``.
        llm: Editing LLM spec (default: embedded SmolLM2).
        mt: Target translator spec(s), comma-separated.
        qe: QE spec(s), comma-separated (averaged per text on 0-100).
        steps: Edit steps after the initial source.
        src_lang: Source language.
        tgt_lang: Target language.
        lp: Language pair filter for wmt24 seeds.
        limit: Read at most N seeds.
        sample: Seeds drawn at random from the rows read (content-keyed).
        quoting: TSV/CSV quoting: auto, csv or none.
        max_chars: Longest text a row may hold.
        skip_bad: Skip bad rows and count them by reason instead of stopping.
        temperature: Sampling temperature of the LLM.
        max_tokens: Generation budget per LLM answer.
        grammatical_edits: Add 'Only make grammatical edits' to every follow-up.
        language_guard: Reject proposals not detected as ``src_lang`` (not in the paper; stated in the card).
        seed: Random seed (part of the signature).
        shard_size: Items per resumable shard (default 16, or the shard size of the build already in ``out``).
        concurrency: Requests sent at once to openai: backends.
        max_cost: Stop (`BudgetSpent`) once the requests cost this many USD; the same call resumes.
        max_requests: Stop after N requests to openai: backends.
        dry_run: Only estimate the API calls, tokens and cost (`Build.plan`); write nothing.
        overwrite: Discard a different or unfinished build found in ``out``.

    Returns:
        The `Build`.

    Raises:
        UsageError: An option out of range. BudgetSpent: the budget ran out. GauntletError: bad input or spec.

    Examples:
        >>> b = mg.build("mtbreaker", seeds="seeds.tsv", out="builds/mtb", column="en", steps=3, max_requests=500)
    """
    _check(locals())
    from mtgauntlet.builders.mtbreaker import MTBreakerBuilder, keyed_sample

    src_lang, tgt_lang = lang_pair(src_lang, tgt_lang)
    rows = _seed_rows(seeds, column, format, src_lang, tgt_lang, limit, lp, quoting, max_chars, skip_bad)
    rows.rows = keyed_sample(rows.rows, sample, seed)
    return _breaker_build(lambda: MTBreakerBuilder(variant=variant, llm=llm, mt=comma_list(mt), qe=qe, steps=steps,
                                                   src_lang=src_lang, tgt_lang=tgt_lang, temperature=temperature,
                                                   max_tokens=max_tokens, language_guard=language_guard,
                                                   grammatical_edits=grammatical_edits, sample=sample),
                          "mtbreaker", rows, str(out), seed, overwrite, shard_size, concurrency, dry_run, max_cost,
                          max_requests)


@public
def build_zeroshot(*, seeds: Any, out: str | Path, column: str = "text", format: Optional[str] = None,
                   variant: str = "plain", llm: Optional[str] = None, mt: str = "apertium", qe: str = "qe",
                   generations: int = 10, src_lang: str = "en", tgt_lang: str = "es", lp: Optional[str] = None,
                   limit: Optional[int] = None, sample: Optional[int] = None, quoting: str = "auto",
                   max_chars: int = DEFAULT_MAX_CHARS,
                   skip_bad: bool = False, temperature: float = DEFAULT_TEMPERATURE,
                   max_tokens: int = DEFAULT_MAX_TOKENS, history_size: Optional[int] = None,
                   language_guard: bool = False, seed: int = 13, shard_size: Optional[int] = None,
                   concurrency: Optional[int] = None, max_cost: Optional[float] = None,
                   max_requests: Optional[int] = None, dry_run: bool = False, overwrite: bool = False) -> Build:
    """Zero-shot baselines: one generation per item, with history, or the most difficult of ``generations``
    (``gauntlet build zeroshot``; every option as there, see its ``--help``).

    Args:
        seeds: Seed texts: only their lengths are used (``mg.build``: ``input=``).
        out: Output build directory (resumable).
        column: Seed text column.
        format: Input format (default: from the file name).
        variant: ``plain``, ``history`` or ``min``.
        llm: Generating LLM spec (default: embedded SmolLM2).
        mt: Target translator spec(s), comma-separated.
        qe: QE spec(s), comma-separated.
        generations: Texts generated per item by the ``min`` variant.
        src_lang: Source language.
        tgt_lang: Target language.
        lp: Language pair filter for wmt24 seeds.
        limit: Read at most N seeds.
        sample: Seeds drawn at random from the rows read (content-keyed, as MT-breaker's: the same ``sample`` and
            ``seed`` give both methods the same seeds, so the same length targets).
        quoting: TSV/CSV quoting: auto, csv or none.
        max_chars: Longest text a row may hold.
        skip_bad: Skip bad rows and count them by reason instead of stopping.
        temperature: Sampling temperature.
        max_tokens: Generation budget per LLM answer.
        history_size: ``history`` variant: list only the last N earlier texts (default: all, as the paper).
        language_guard: Reject texts not detected as ``src_lang`` (not in the paper; stated in the card).
        seed: Random seed (part of the signature).
        shard_size: Items per resumable shard (default 16, or the shard size of the build already in ``out``).
        concurrency: Requests sent at once to openai: backends.
        max_cost: Stop (`BudgetSpent`) once the requests cost this many USD; the same call resumes.
        max_requests: Stop after N requests to openai: backends.
        dry_run: Only estimate the API calls, tokens and cost (`Build.plan`); write nothing.
        overwrite: Discard a different or unfinished build found in ``out``.

    Returns:
        The `Build`.

    Raises:
        UsageError: An option out of range. BudgetSpent: the budget ran out. GauntletError: bad input or spec.

    Examples:
        >>> b = mg.build("zeroshot", seeds="seeds.tsv", out="builds/zs", column="en", variant="min", generations=4)
    """
    _check(locals())
    from mtgauntlet.builders.mtbreaker import keyed_sample
    from mtgauntlet.builders.zeroshot import ZeroShotBuilder

    src_lang, tgt_lang = lang_pair(src_lang, tgt_lang)
    rows = _seed_rows(seeds, column, format, src_lang, tgt_lang, limit, lp, quoting, max_chars, skip_bad)
    rows.rows = keyed_sample(rows.rows, sample, seed)
    return _breaker_build(lambda: ZeroShotBuilder(variant=variant, llm=llm, mt=comma_list(mt), qe=qe,
                                                  src_lang=src_lang, tgt_lang=tgt_lang, generations=generations,
                                                  temperature=temperature, max_tokens=max_tokens,
                                                  history_size=history_size, language_guard=language_guard,
                                                  sample=sample),
                          "zeroshot", rows, str(out), seed, overwrite, shard_size, concurrency, dry_run, max_cost,
                          max_requests)


class _TopicAdapter:
    """Index-based interface over a sampler that takes Topic objects (the LLM sampler)."""

    def __init__(self, sampler, topics):
        self.sampler, self.topics, self.rows = sampler, topics, []

    def sample(self, t, used, rng):
        return self.sampler.sample(self.topics[t], used, rng)

    def sample_many(self, ts, used, rng):
        return self.sampler.sample_many([self.topics[t] for t in ts], used, rng)


@public
def build_bandit(*, out: str | Path, corpus: Any = None, topics: Optional[str] = None,
                 llm_topics: Optional[str] = None, topic_levels: int = 2, topic_branching: int = 5,
                 llm: Optional[str] = None, sampler: str = "corpus",
                 topic_column: Optional[str] = None, text_column: str = "src", format: Optional[str] = None,
                 quoting: str = "auto", max_chars: int = DEFAULT_MAX_CHARS, skip_bad: bool = False,
                 algorithm: str = "eps-greedy", budget: int = 300, k: int = 10, cap: int = 10, epsilon: float = 0.7,
                 batch: int = 1, prescore: Optional[int] = None, mt: str = "apertium", qe: str = "qe",
                 src_lang: str = "en", tgt_lang: str = "es", lp: Optional[str] = None, min_words: int = 20,
                 max_words: int = 40, seed: int = 13, concurrency: Optional[int] = None,
                 max_cost: Optional[float] = None, max_requests: Optional[int] = None, dry_run: bool = False,
                 overwrite: bool = False) -> Build:
    """Search for the hardest topics with a bandit: the pull log (``pulls/``) and ``topic_text`` records
    (``gauntlet build bandit``; every option as there, see its ``--help``).

    Args:
        out: Output directory (resumable).
        corpus: Local corpus to sample texts from (a file, flores / wmt24, an in-memory table; ``mg.build``:
            ``input=``).
        topics: Taxonomy YAML/JSON (texts retrieved by e5 similarity).
        llm_topics: Generate a topic tree for each of these root domains (comma-separated; ``paper``: science,
            business, law, education, culture) with ``llm``.
        topic_levels: Levels of subtopics beneath each root of ``llm_topics`` (the paper: 4, five levels with the
            roots).
        topic_branching: Subtopics of each topic of ``llm_topics`` (the paper: 5).
        llm: LLM spec for ``llm_topics`` or ``sampler="llm"``.
        sampler: ``corpus`` (offline) or ``llm``.
        topic_column: Corpus column with topic labels (flores: topic, wmt24: domain).
        text_column: Corpus text column.
        format: Input format (default: from the file name).
        quoting: TSV/CSV quoting: auto, csv or none.
        max_chars: Longest text a row may hold.
        skip_bad: Skip bad rows and count them by reason instead of stopping.
        algorithm: ``brute``, ``greedy``, ``eps-greedy``, ``contextual`` or ``ucb``.
        budget: Pulls (sample + translate + QE), failed pulls included.
        k: Topics to return.
        cap: Most pulls per topic (0: no cap).
        epsilon: eps-greedy: probability of exploring an unsampled topic.
        batch: Topics chosen per step.
        prescore: Pre-score a replay pool instead: N samples per topic.
        mt: Translator spec(s), comma-separated.
        qe: QE spec(s), comma-separated.
        src_lang: Source language.
        tgt_lang: Target language.
        lp: Language pair filter for multi-pair corpora.
        min_words: Shortest text sampled (corpus row or LLM snippet), in words (the paper: 20-40).
        max_words: Longest text sampled (corpus row or LLM snippet), in words.
        seed: Random seed (part of the signature).
        concurrency: Requests sent at once to openai: backends.
        max_cost: Stop (`BudgetSpent`) once the requests cost this many USD; the same call resumes.
        max_requests: Stop after N requests to openai: backends.
        dry_run: Only estimate the API calls, tokens and cost (`Build.plan`); write nothing.
        overwrite: Discard a different search found in ``out``.

    Returns:
        The `Build`: ``summary["top_topics"]``, ``summary["counts"]`` (pulls, scored pulls, failures).

    Raises:
        UsageError: An option out of range, no topics. BudgetSpent: the budget ran out. GauntletError: bad
            input or spec, no pull scored.

    Examples:
        >>> b = mg.build("bandit", out="builds/bandit", corpus="flores", topic_column="topic", budget=50, k=3)
        >>> b.summary["top_topics"]
    """
    _check(locals())
    from mtgauntlet.builders.bandit import BanditSearch
    from mtgauntlet.builders.bandit import topics as T
    from mtgauntlet.builders.bandit.sampler import CorpusSampler, LLMSampler
    from mtgauntlet.builders.base import iter_items
    from mtgauntlet.corpora.formats import sniff_named_format
    from mtgauntlet.models import registry
    from mtgauntlet.runner.build_runner import input_digest

    corpus = as_input_path(corpus) if corpus is not None else None
    with _paced(concurrency, max_cost, max_requests):  # every model below is loaded with it
        src_lang, tgt_lang = lang_pair(src_lang, tgt_lang)
        rows, skipped = [], {}
        if corpus:
            read = load_corpus(corpus, format=format, src_col=text_column, ref_col=None, src_lang=src_lang,
                               tgt_lang=tgt_lang, lp=lp, quoting=quoting, max_chars=max_chars, skip_bad=skip_bad)
            rows, skipped = read.rows, read.skipped_counts()
        named = format or (sniff_named_format(corpus) if corpus else None)
        label = topic_column or ({"flores": "topic", "wmt24": "domain"}.get(named)
                                 if not (topics or llm_topics) else None)
        tree = None
        if topics:
            topic_list = T.from_taxonomy(topics)
        elif llm_topics and dry_run:  # the trees are asked for, not known: the sampler's prompts name the domains
            domains = T.domains_of(llm_topics)
            tree = (registry.load("llm", llm), [T.tree_prompt(d, topic_levels, topic_branching) for d in domains],
                    T.tree_max_tokens(topic_levels, topic_branching))
            topic_list = [T.Topic(d, []) for d in domains]
        elif llm_topics:
            topic_list = T.from_llm_domains(registry.load("llm", llm), T.domains_of(llm_topics), topic_levels,
                                            topic_branching)
            if not topic_list:
                raise GauntletError(f"the LLM ({llm or 'embedded default'}) gave no topic for --llm-topics "
                                    f"{llm_topics!r}: its answer held an empty tree")
        elif label:
            topic_list = T.from_column(rows, label)
            if not topic_list:
                raise GauntletError(f"{corpus}: the topic column {label!r} holds no value")
        else:
            raise UsageError("give --topics FILE, --llm-topics DOMAIN, or a --corpus with --topic-column")
        if sampler == "llm":
            llm_sampler = LLMSampler(registry.load("llm", llm), min_words=min_words, max_words=max_words)
            samp = _TopicAdapter(llm_sampler, topic_list)
        else:
            if not rows:
                raise UsageError("the corpus sampler needs --corpus")
            samp = CorpusSampler(rows, topic_list, text_key="src", label_key=label, min_words=min_words,
                                 max_words=max_words, seed=seed)
        if prescore is not None:
            if prescore < 1:
                raise UsageError("--prescore must be >= 1")
            algorithm, cap, budget = "brute", prescore, prescore * len(topic_list)
        if dry_run:
            if tree is not None and prescore is not None:
                raise UsageError("--dry-run with --llm-topics and --prescore: the number of pulls depends on the "
                                 "topics the LLM answers; dry-run with --budget instead")
            from mtgauntlet.builders.mtbreaker import Scorer
            from mtgauntlet.models.estimate import bandit_plan

            return Build(Path(out), skipped=skipped, plan=bandit_plan(
                Scorer(comma_list(mt), qe, src_lang, tgt_lang), budget, [t.name for t in topic_list], max_words,
                src_lang, tgt_lang, llm_sampler if sampler == "llm" else None, tree))
        source = corpus.rsplit("/", 1)[-1].split(".")[0] if corpus else "llm"
        digest = input_digest(iter_items([*({"topic": t.name, "path": t.path} for t in topic_list), *rows]))
        search = BanditSearch(topic_list, samp, mt=comma_list(mt), qe=qe,
                              algorithm=algorithm, budget=budget, k=k, cap=math.inf if not cap else cap,
                              epsilon=epsilon, batch=batch, seed=seed, src_lang=src_lang, tgt_lang=tgt_lang,
                              source=source, input_sha256=digest)
        search.run(out, overwrite=overwrite)
    result = Build.open(out, skipped=skipped)
    c = result.summary["counts"]
    if c["pulls"] and not c["scored_pulls"]:
        raise GauntletError(f"none of the {c['pulls']} pulls got a score (mt={c['mt_failures']}, "
                            f"qe={c['qe_failures']}): check --mt / --qe")
    return result


BUILDERS: dict[str, Callable[..., Build]] = {"subset": build_subset, "smaug": build_smaug,
                                             "mtbreaker": build_mtbreaker, "zeroshot": build_zeroshot,
                                             "bandit": build_bandit}


def _keywords(fn: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    return {p.name: p for p in inspect.signature(fn).parameters.values()
            if p.kind is p.KEYWORD_ONLY and p.name != "progress"}


def _input_key(path: Any) -> Any:
    """What an input is, by content: a file's name and sha256, a folder's files' (a named layout), else the spec."""
    from mtgauntlet.fileio import sha256_file

    if path is None:
        return None
    p = Path(os.fspath(path))
    if p.is_file():
        return {"name": p.name, "sha256": sha256_file(p)}
    if p.is_dir():
        return {"name": p.name, "files": {f.relative_to(p).as_posix(): sha256_file(f)
                                          for f in sorted(p.rglob("*")) if f.is_file()}}
    return str(path)


def default_out(method: str, options: dict[str, Any]) -> Path:
    """``<cache>/builds/<method>-<16 hex>``: the sha256 of the method, every option that changes what is built
    (defaults filled in) and the input's content, so the same call finds (and resumes) the same build."""
    fn = BUILDERS[method]
    resolved = {name: options.get(name, p.default) for name, p in _keywords(fn).items() if name not in PLACEMENT}
    key = INPUT_OPTION[method]
    resolved[key] = _input_key(resolved.get(key))
    blob = json.dumps({"method": method, "options": resolved}, sort_keys=True, ensure_ascii=False, default=str)
    return cache_dir() / "builds" / f"{method}-{hashlib.sha256(blob.encode('utf-8')).hexdigest()[:16]}"


@public
def build(method: str, *, input: Any = None, out: str | Path | None = None, input_name: str | None = None,
          **options: Any) -> Build:
    """Build a challenge set with one of the methods: ``subset``, ``smaug``, ``mtbreaker``, ``zeroshot`` or
    ``bandit``. The options are those of ``gauntlet build <method>`` (long names, ``-`` becomes ``_``), with the
    same defaults and checks; `build_subset` and its siblings document them one by one.

    Args:
        method: The builder: ``subset``, ``smaug``, ``mtbreaker``, ``zeroshot`` or ``bandit``.
        input: The input of any method: a path (a table or a named layout such as ``flores``), a
            ``pandas.DataFrame``, a ``datasets.Dataset`` or a list of dicts. It is the CLI's ``--input`` of
            subset and smaug, ``--seeds`` of mtbreaker and zeroshot and ``--corpus`` of bandit; those names
            (``seeds=``, ``corpus=``) are accepted too.
        out: The build directory. ``None``: a folder under the cache (``MTGAUNTLET_CACHE_DIR``, default
            ``~/.cache/mtgauntlet``), ``builds/<method>-<first 16 hex of the sha256 of the method, the options and
            the input's sha256>``, so the same call finds its build again and resumes an interrupted one.
        input_name: The name of an in-memory input (default ``dataframe``, ``dataset`` or ``records``): the
            records' ``source_dataset``.
        **options: The method's options (e.g. ``src_lang="es"``, ``budget=10``, ``dry_run=True``).

    Returns:
        The `Build` (``path``, ``summary`` = ``build.json``, ``plan`` on a dry run).

    Raises:
        UsageError: An unknown method or option (named, with close matches), a missing required option, an
            option out of range (e.g. ``budget=0``).
        BudgetSpent: ``max_cost``/``max_requests`` ran out (the same call resumes).
        GauntletError: Bad input (file, line and field named), an unusable model spec, a build of other
            options already in ``out``.

    Examples:
        >>> b = mg.build("smaug", input=df, input_name="my_es_en", src_col="es", ref_col="en", src_lang="es",
        ...              tgt_lang="en", good_from="reference")
        >>> b.to_pandas()[["phenomenon", "bad"]].head()
    """
    one_of("method", method, BUILDERS)
    fn = BUILDERS[method]
    params = _keywords(fn)
    unknown_keywords(f"build {method}", options, [*params, "input"])
    key = INPUT_OPTION[method]
    if input is not None:
        if key != "input" and options.get(key) is not None:
            raise UsageError(f"build {method}: give input= or {key}=, not both")
        options[key] = input
    missing = [n for n, p in params.items() if p.default is p.empty and options.get(n) is None and n != "out"]
    if missing:
        raise UsageError(f"build {method}: missing required option(s) {', '.join(missing)}"
                         + (" (input=)" if key in missing else ""))
    _check(options)
    if options.get(key) is not None:
        options[key] = as_input_path(options[key], input_name)
    elif input_name is not None:
        raise UsageError(f"build {method}: input_name names an in-memory input; none was given")
    if out is None:
        out = default_out(method, options)
    return fn(out=out, **options, progress=None)
