"""Challenge sets from Python: `build` (``gauntlet build <method>``), one function per method with the
command's options as keywords (`build_subset`, `build_smaug`, `build_mtbreaker`,
`build_zeroshot`, `build_bandit`); the CLI commands call them and print what they return.

Each function's keywords, defaults, docstring ``Args`` and range checks come from its builder's options
dataclass (``mtgauntlet.builders.options``), declared once: see `mtgauntlet.options.takes`.

`build` adds what a notebook wants: ``input=`` for every method (the CLI's ``--seeds`` of mtbreaker and
zeroshot, ``--corpus`` of bandit), a DataFrame / ``datasets.Dataset`` / list of dicts as input, and ``out=None``
(a content-addressed folder under the cache, so the same call resumes).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mtgauntlet.api.build_breakers import build_mtbreaker, build_zeroshot
from mtgauntlet.api.build_run import paced, run_builder
from mtgauntlet.api.checks import listed, one_of, unknown_keywords
from mtgauntlet.api.inputs import as_input_path, cache_dir, input_format
from mtgauntlet.api.results import Build
from mtgauntlet.api.session import public
from mtgauntlet.builders.options.bandit import BanditBuildOptions
from mtgauntlet.builders.options.breaker import MTBreakerOptions, ZeroShotOptions
from mtgauntlet.builders.options.smaug import SmaugOptions
from mtgauntlet.builders.options.subset import SubsetOptions
from mtgauntlet.core.progress import info
from mtgauntlet.corpora.options import comma_list, lang_pair, load_corpus, one_pair
from mtgauntlet.errors import GauntletError, UsageError
from mtgauntlet.options import Declared, check, declared, placement, takes

__all__ = ["build", "build_subset", "build_smaug", "build_mtbreaker", "build_zeroshot", "build_bandit"]

INPUT_OPTION = {"subset": "input", "smaug": "input", "mtbreaker": "seeds", "zeroshot": "seeds", "bandit": "corpus"}
OPTIONS = {
    "subset": SubsetOptions,
    "smaug": SmaugOptions,
    "mtbreaker": MTBreakerOptions,
    "zeroshot": ZeroShotOptions,
    "bandit": BanditBuildOptions,
}
# how fast, where to, whether at all: never what is built, so not part of the content-addressed out folder
PLACEMENT = tuple(dict.fromkeys(name for cls in OPTIONS.values() for name in placement(cls)))


@public
@takes(SubsetOptions, Build)
def build_subset(o: SubsetOptions) -> Build:
    """Score a corpus with a difficulty estimator and keep the ``budget`` hardest texts (``selected_text``
    records). The options are those of ``gauntlet build subset`` (see ``gauntlet build subset --help``).

    Returns:
        The `Build`.

    Raises:
        UsageError: An option out of range. BudgetSpent: the budget ran out. GauntletError: bad input or spec.

    Examples:
        >>> b = mg.build("subset", input="corpus.tsv", out="builds/hard", src_lang="en", budget=10)
    """
    from mtgauntlet.builders.subset import SubsetBuilder

    given = [o.tgt_lang] if o.tgt_lang is None or isinstance(o.tgt_lang, str) else list(o.tgt_lang)
    targets: list[str | None] = [t for g in given for t in comma_list(g)] or [None]
    if len(set(targets)) != len(targets):
        raise UsageError(f"--tgt-lang: {', '.join(map(str, targets))} names a language twice")
    src_lang, tgt_lang = lang_pair(o.src_lang, targets[0])
    targets = [tgt_lang, *(lang_pair(None, t)[1] for t in targets[1:])]
    rows = load_corpus(
        as_input_path(o.input),
        format=input_format(o.input, o.format),
        src_col=o.src_col,
        ref_col=None,
        src_lang=src_lang,
        tgt_lang=tgt_lang,
        limit=o.limit,
        skip_bad=o.skip_bad,
        columns={"domain": o.domain_col} if o.domain_col else None,
        lp=o.lp,
        quoting=o.quoting,
        max_chars=o.max_chars,
    )
    src_lang, tgt_lang = one_pair(rows, src_lang, tgt_lang)
    targets[0] = tgt_lang
    if len(targets) > 1:  # the subset is for no single pair: no row's target language goes into its record
        for row in rows.rows:
            row.pop("tgt_lang", None)
    with paced(o.concurrency, o.max_cost, o.max_requests):
        builder = SubsetBuilder(
            estimator=o.estimator,
            budget=o.budget,
            stratify=o.stratify,
            src_lang=src_lang,
            tgt_lang=targets if len(targets) > 1 else tgt_lang,
            engine=o.engine,
            work_dir=Path(o.out) / "scores",
            actors=o.actors,
        )
        _ = builder.estimator  # load the estimator now: a bad spec fails before anything is written
        if o.dry_run:
            from mtgauntlet.builders.base import iter_items

            return Build(Path(o.out), plan=builder.plan(iter_items(rows.rows)))
        summary = run_builder(builder, str(o.out), rows, seed=o.seed, shard_size=o.shard_size, overwrite=o.overwrite)
    return Build.open(o.out, run=summary, skipped=rows.skipped_counts())


@public
@takes(SmaugOptions, Build)
def build_smaug(o: SmaugOptions) -> Build:
    """SMAUG: ``(source, good, bad, reference, phenomenon)`` records, bad = the reference with one critical error
    (``gauntlet build smaug``; every option as there, see its ``--help``).

    Returns:
        The `Build`; `Build.notes` says how each phenomenon is made here.

    Raises:
        UsageError: An option out of range. BudgetSpent: the budget ran out. GauntletError: bad input or spec.

    Examples:
        >>> b = mg.build("smaug", input="es_en.tsv", out="builds/smaug", src_lang="es", tgt_lang="en",
        ...                    src_col="es", ref_col="en", good_from="reference")
    """
    from mtgauntlet.builders.base import iter_items
    from mtgauntlet.builders.smaug import SmaugBuilder

    src_lang, tgt_lang = lang_pair(o.src_lang, o.tgt_lang)
    rows = load_corpus(
        as_input_path(o.input),
        format=input_format(o.input, o.format),
        src_col=o.src_col,
        ref_col=o.ref_col,
        src_lang=src_lang,
        tgt_lang=tgt_lang,
        limit=o.limit,
        skip_bad=o.skip_bad,
        columns={"good": o.good_col} if o.good_col else None,
        lp=o.lp,
        quoting=o.quoting,
        max_chars=o.max_chars,
    )
    with paced(o.concurrency, o.max_cost, o.max_requests):
        builder = SmaugBuilder(
            src_lang=src_lang,
            tgt_lang=tgt_lang,
            phenomena=listed(o.phenomena),
            translator=o.translator,
            infiller=o.infiller,
            nli=o.nli,
            annotator=o.annotator,
            polyjuice=o.polyjuice,
            good_col=o.good_col,
            good_from=o.good_from,
            min_char_edit=o.min_char_edit,
            min_word_edit=o.min_word_edit,
            del_min_words=o.del_min_words,
            del_max_words=o.del_max_words,
            require_nli=o.require_nli,
            seed=o.seed,
            max_parse_chars=o.max_parse_chars,
            ne_types=o.ne_types,
        )
        notes = [f"{ph}: {how}" for ph, (ok, how) in builder.support.items() if ph in builder.phenomena]
        notes += [f"note: {why}" for why in builder.flags().values()]
        for note in notes:
            info(f"  {note}")
        if o.dry_run:
            return Build(Path(o.out), plan=builder.plan(iter_items(rows.rows)), notes=notes)
        summary = run_builder(
            builder,
            str(o.out),
            rows,
            seed=o.seed,
            shard_size=o.shard_size,
            overwrite=o.overwrite,
            engine=o.engine,
            actors=o.actors,
        )
    return Build.open(o.out, run=summary, skipped=rows.skipped_counts(), notes=notes)


@public
@takes(BanditBuildOptions, Build)
def build_bandit(o: BanditBuildOptions) -> Build:
    """Search for the hardest topics with a bandit: the pull log (``pulls/``) and ``topic_text`` records
    (``gauntlet build bandit``; every option as there, see its ``--help``).

    Returns:
        The `Build`: ``summary["top_topics"]``, ``summary["counts"]`` (pulls, scored pulls, failures).

    Raises:
        UsageError: An option out of range, no topics. BudgetSpent: the budget ran out. GauntletError: bad
            input or spec, no pull scored.

    Examples:
        >>> b = mg.build("bandit", out="builds/bandit", corpus="flores", topic_column="topic", budget=50, k=3)
        >>> b.summary["top_topics"]
    """
    from mtgauntlet.builders.bandit.search import BanditSearch
    from mtgauntlet.builders.bandit.setup import prepare
    from mtgauntlet.builders.base import iter_items
    from mtgauntlet.core.builds import input_digest
    from mtgauntlet.corpora.formats import sniff_named_format

    out = o.out
    fmt = input_format(o.corpus, o.format)  # in memory: always its Parquet file
    corpus = as_input_path(o.corpus) if o.corpus is not None else None
    with paced(o.concurrency, o.max_cost, o.max_requests):  # every model below is loaded with it
        given = [o.tgt_lang] if isinstance(o.tgt_lang, str) else list(o.tgt_lang)
        targets = [t for g in given for t in comma_list(g)] or ["es"]  # several: the crowd's (builders.bandit.crowd)
        src_lang, tgt_lang = lang_pair(o.src_lang, targets[0])
        more = [lang_pair(o.src_lang, t)[1] for t in targets[1:]]
        rows, skipped = [], {}
        if corpus:
            read = load_corpus(
                corpus,
                format=fmt,
                src_col=o.text_column,
                ref_col=None,
                src_lang=src_lang,
                tgt_lang=tgt_lang,
                lp=o.lp,
                quoting=o.quoting,
                max_chars=o.max_chars,
                skip_bad=o.skip_bad,
            )
            rows, skipped = read.rows, read.skipped_counts()
        options = dataclasses.replace(o, src_lang=src_lang, tgt_lang=[tgt_lang, *more] if more else tgt_lang)
        named = fmt or (sniff_named_format(corpus) if corpus else None)
        if o.dry_run:
            return Build(Path(out), skipped=skipped, plan=prepare(options, rows, corpus, named, None, dry_run=True))
        # the digest names the topics asked for; an LLM tree is only known once grown, inside prepare
        search = prepare(options, rows, corpus, named, None)
        assert isinstance(search, BanditSearch)  # not a dry run: the search itself
        search.input_sha256 = input_digest(
            iter_items([*({"topic": t.name, "path": t.path} for t in search.topics), *rows])
        )
        search.run(out, overwrite=o.overwrite)
    result = Build.open(out, skipped=skipped)
    c = result.summary["counts"]
    if c["pulls"] and not c["scored_pulls"]:
        raise GauntletError(
            f"none of the {c['pulls']} pulls got a score (mt={c['mt_failures']}, "
            f"qe={c['qe_failures']}): check --mt / --qe"
        )
    return result


BUILDERS: dict[str, Callable[..., Build]] = {
    "subset": build_subset,
    "smaug": build_smaug,
    "mtbreaker": build_mtbreaker,
    "zeroshot": build_zeroshot,
    "bandit": build_bandit,
}


def _keywords(method: str) -> dict[str, Declared]:
    """The options of ``method`` by keyword, as declared."""
    return {o.name: o for o in declared(OPTIONS[method])}


def _input_key(path: Any) -> Any:
    """What an input is, by content: a file's name and sha256, a folder's files' (a named layout), else the spec."""
    from mtgauntlet.fileio import sha256_file

    if path is None:
        return None
    p = Path(os.fspath(path))
    if p.is_file():
        return {"name": p.name, "sha256": sha256_file(p)}
    if p.is_dir():
        return {
            "name": p.name,
            "files": {f.relative_to(p).as_posix(): sha256_file(f) for f in sorted(p.rglob("*")) if f.is_file()},
        }
    return str(path)


def default_out(method: str, options: dict[str, Any]) -> Path:
    """``<cache>/builds/<method>-<16 hex>``: the sha256 of the method, every option that changes what is built
    (defaults filled in) and the input's content, so the same call finds (and resumes) the same build."""
    resolved = {name: options.get(name, o.default) for name, o in _keywords(method).items() if name not in PLACEMENT}
    key = INPUT_OPTION[method]
    resolved[key] = _input_key(resolved.get(key))
    blob = json.dumps({"method": method, "options": resolved}, sort_keys=True, ensure_ascii=False, default=str)
    return cache_dir() / "builds" / f"{method}-{hashlib.sha256(blob.encode('utf-8')).hexdigest()[:16]}"


@public
def build(
    method: str,
    *,
    input: Any = None,
    out: str | Path | None = None,
    input_name: str | None = None,
    progress: bool | None = False,
    **options: Any,
) -> Build:
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
    params = _keywords(method)
    if "engine" in options and "engine" not in params:
        raise UsageError(
            f"build {method}: no engine option: its steps are sequential per item and run in this "
            "process; its model calls scale on the server side (concurrency); see docs/scaling.md"
        )
    unknown_keywords(f"build {method}", options, [*params, "input"])
    key = INPUT_OPTION[method]
    if input is not None:
        if key != "input" and options.get(key) is not None:
            raise UsageError(f"build {method}: give input= or {key}=, not both")
        options[key] = input
    missing = [n for n, o in params.items() if o.required and options.get(n) is None and n != "out"]
    if missing:
        raise UsageError(
            f"build {method}: missing required option(s) {', '.join(missing)}" + (" (input=)" if key in missing else "")
        )
    check(OPTIONS[method], options)
    if options.get(key) is not None:
        options["format"] = input_format(options[key], options.get("format"))  # a name only labels the data
        options[key] = as_input_path(options[key], input_name)
    elif input_name is not None:
        raise UsageError(f"build {method}: input_name names an in-memory input; none was given")
    if out is None:
        out = default_out(method, options)
    return fn(out=out, **options, progress=None)
