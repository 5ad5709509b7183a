"""Scores from Python: `score` (``gauntlet score difficulty|qe``), one function per kind behind it
(`score_difficulty`, `score_qe`), whose keywords, docstring ``Args`` and range checks come from their options
dataclasses (`mtgauntlet.api.score_options`, declared once). The CLI commands call these functions and print
what they return."""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mtgauntlet.api.inputs import as_input_path, input_format
from mtgauntlet.api.score_options import ScoreDifficultyOptions, ScoreQEOptions
from mtgauntlet.api.session import public
from mtgauntlet.corpora.options import skipped_counts_note
from mtgauntlet.errors import UsageError
from mtgauntlet.models.registry import public_spec
from mtgauntlet.options import takes

__all__ = ["score", "score_difficulty", "score_qe"]

SUMMARY = "mtgauntlet.score"  # df.attrs key of the run's summary (what `gauntlet score ... --json` prints)


def _check_output(out) -> None:
    """The output path, checked before any reading (the ranges are checked by `mtgauntlet.options.takes`)."""
    from mtgauntlet.tables import check_output_path

    if out is not None:
        check_output_path(out)


@contextlib.contextmanager
def _work_dir(out):
    """Where finished shards live until the output is written: ``OUT.work/`` (an interrupted run resumes from it),
    or a temporary folder when nothing is written."""
    if out is not None:
        yield Path(f"{out}.work")
        return
    tmp = tempfile.mkdtemp(prefix="mtgauntlet-score-")
    try:
        yield Path(tmp) / "work"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run_engine(
    role: str,
    spec: str,
    columns: dict,
    work: Path,
    o: ScoreDifficultyOptions | ScoreQEOptions,
    *,
    src_lang=None,
    tgt_lang=None,
):
    """(scores in input order, placement, API usage of the run) with the engine, device and budget options of
    ``o``. A budget spent stops it (BudgetSpent); the finished shards stay in ``work`` so the same call resumes."""
    from mtgauntlet.core.paid_run import paid_run
    from mtgauntlet.core.progress import Progress, want_bar
    from mtgauntlet.core.usage_journal import JOURNAL
    from mtgauntlet.engines import get_engine
    from mtgauntlet.engines.scoring import ScoreTask
    from mtgauntlet.models.runtime import set_defaults

    set_defaults(device=o.device, dtype=o.dtype, batch=o.batch_size)
    task = ScoreTask(role, spec, src_lang, tgt_lang, o.shard_size)
    eng = get_engine(o.engine, **({"actors": o.actors} if o.engine == "ray" else {}))
    n = len(next(iter(columns.values())))
    work.mkdir(parents=True, exist_ok=True)
    # the journal lives with the finished shards (OUT.work/): a killed run's spend is in the re-run's totals
    with (
        paid_run(journal=work / JOURNAL, max_cost=o.max_cost, max_requests=o.max_requests) as run,
        Progress(want_bar(None), total=n, done=0, label=f"score {role} ({o.engine})") as progress,
    ):
        scores = eng.score(task, columns, work, on_shard=lambda start, end: progress.advance(end - start))
    return scores, eng.placement(task), run.usage()


def _finish(df, out, work: Path, what: str, engine: str, placement: dict, column: str, rows, spent):
    """Write ``df`` to ``out`` (when given; Parquet carries the API usage in its metadata), drop the finished
    shards, and attach the run's summary as ``df.attrs["mtgauntlet.score"]``."""
    from mtgauntlet.tables import write_frame

    if spent:
        df.attrs["mtgauntlet.usage"] = spent
    if out is not None:
        write_frame(df, out)
    shutil.rmtree(work, ignore_errors=True)
    df.attrs[SUMMARY] = {
        "out": None if out is None else str(out),
        "rows": len(df),
        "scored_with": what,
        "engine": engine,
        "placement": placement,
        "without_score": int(df[column].isna().sum()),
        "skipped": rows.skipped_counts(),
        "usage": spent or {},
    }
    return df


def _frame(rows):
    import pandas as pd

    return pd.DataFrame([{k: v for k, v in r.items() if k != "_line"} for r in rows.rows])


@public
@takes(ScoreDifficultyOptions)
def score_difficulty(o: ScoreDifficultyOptions):
    """Add a ``difficulty`` column (higher = harder) to every row: ``gauntlet score difficulty``. See `score` for
    what the options shared with QE do and what is returned.

    Returns:
        The scored ``pandas.DataFrame`` (``plan`` instead with ``dry_run``); see `score`.

    Examples:
        >>> df = score_difficulty(input="corpus.tsv", src_lang="es", estimator="length")
    """
    from mtgauntlet.builders.inputs import read_corpus, with_languages
    from mtgauntlet.corpora.load import one_pair
    from mtgauntlet.models import registry

    _check_output(o.out)
    reading = with_languages(o)
    registry.resolve_class("difficulty", o.estimator)  # a bad spec fails before any reading or scoring
    reading = dataclasses.replace(reading, format=input_format(o.input, o.format))  # in memory: its Parquet file
    rows = read_corpus(reading, as_input_path(o.input), text=o.src_col, limit=o.limit)
    src_lang, tgt_lang = one_pair(rows, reading.src_lang, reading.tgt_lang)
    df = _frame(rows)
    columns = {"src": df["src"].tolist()}
    if o.dry_run:
        from mtgauntlet.models.estimate import role_plan

        return role_plan(registry.load("difficulty", o.estimator), columns["src"], None, src_lang, tgt_lang)
    with _work_dir(o.out) as work:
        scores, placement, spent = _run_engine(
            "difficulty", o.estimator, columns, work, o, src_lang=src_lang, tgt_lang=tgt_lang
        )
        df["difficulty"] = scores[:, 0]
        return _finish(df, o.out, work, public_spec(o.estimator), o.engine, placement, "difficulty", rows, spent)


@public
@takes(ScoreQEOptions)
def score_qe(o: ScoreQEOptions):
    """Add a ``qe`` column (0..100, higher = better; empty where the score failed) to every (src, tgt) row, per
    language pair; with several QE specs also one ``qe:<spec>`` column each: ``gauntlet score qe``.

    Returns:
        The scored ``pandas.DataFrame`` (``plan`` instead with ``dry_run``); see `score`.

    Examples:
        >>> df = score_qe(input=[{"src": "Hola", "tgt": "Hello", "lp": "es-en"}], qe="qe")
    """
    from mtgauntlet.corpora.langs import split_lp
    from mtgauntlet.corpora.readers import parse_column_map, read_rows
    from mtgauntlet.errors import InputError
    from mtgauntlet.models.qe_ensemble import split_specs
    from mtgauntlet.models.registry import resolve_class

    _check_output(o.out)
    specs = split_specs(o.qe)
    for spec in specs:
        resolve_class("qe", spec)  # a bad spec fails before any reading or scoring
    path = as_input_path(o.input)
    rs = read_rows(
        path,
        format=input_format(o.input, o.format),  # in memory: its Parquet file
        columns=parse_column_map(o.map),
        required=["src", "tgt", "lp"],
        text_fields=["src"],
        quoting=o.quoting,
        max_chars=o.max_chars,
        on_error="skip" if o.skip_bad else "raise",
    )
    if not rs.rows:
        raise InputError("no usable rows" + skipped_counts_note(rs.skipped_counts()), file=path)
    df = _frame(rs)
    for lp, idx in df.groupby("lp").groups.items():
        try:
            split_lp(str(lp))
        except ValueError as exc:
            raise InputError(str(exc), file=path, line=rs.rows[list(idx)[0]]["_line"], field="lp") from None
    columns = {"src": df["src"].tolist(), "tgt": df["tgt"].fillna("").tolist(), "lp": [str(x) for x in df["lp"]]}
    if o.dry_run:
        return _qe_plan(o.qe, columns)
    with _work_dir(o.out) as work:
        scores, placement, spent = _run_engine("qe", o.qe, columns, work, o)
        df["qe"] = scores[:, 0]
        if len(specs) > 1:
            for j, spec in enumerate(specs, start=1):
                df[f"qe:{public_spec(spec)}"] = scores[:, j]  # never a credential in a column name
        return _finish(df, o.out, work, ",".join(public_spec(list(specs))), o.engine, placement, "qe", rs, spent)


def _qe_plan(spec: str, columns: dict):
    """The calls of QE ``spec`` on every row, per language pair (nothing is sent)."""
    from mtgauntlet.corpora.langs import split_lp
    from mtgauntlet.models.estimate import Plan
    from mtgauntlet.models.qe_ensemble import load_qe

    plan, qe = Plan(), load_qe(spec)
    for src, tgt, lp in zip(columns["src"], columns["tgt"], columns["lp"]):
        plan.add_role(qe, [src], [tgt], *split_lp(lp))
    return plan


KINDS = {"difficulty": score_difficulty, "qe": score_qe}


@public
def score(kind: str, *, input: Any, progress: bool = False, **options):
    """Score every row of a table with a model and return it with the new column(s): ``gauntlet score KIND``.

    The keyword options are those of the command (``--src-col`` -> ``src_col``), with the same defaults:
    `score_difficulty` (``difficulty``) and `score_qe` (``qe``) list them.

    Args:
        kind: ``difficulty`` (a ``difficulty`` column, higher = harder) or ``qe`` (a ``qe`` column, 0..100).
        input: A file (or named layout for ``difficulty``), or a DataFrame, ``datasets.Dataset`` or list of dicts.
        **options: ``out`` (also write the table there; default ``None``: nothing is written), ``engine``
            (``local`` or ``ray``), ``device``, ``dtype``, ``batch_size``, ``shard_size``, ``actors``, ``max_cost``,
            ``max_requests``, ``dry_run``, the reading options, and the kind's own (``estimator``; ``qe``, ``map``).

    Returns:
        pandas.DataFrame: The scored table (input columns plus the scores, input order).
            ``df.attrs["mtgauntlet.usage"]`` holds the API usage of paid models, ``df.attrs["mtgauntlet.score"]``
            the run's summary (what ``--json`` prints). With ``dry_run=True`` nothing is scored or written; the
            returned `mtgauntlet.models.estimate.Plan` lists the API calls with estimated tokens and cost
            (``plan.lines()``).

    Raises:
        UsageError: An unknown kind or option, an option out of range.
        BudgetSpent: ``max_cost`` / ``max_requests`` reached (the same call again resumes from ``out``).
        GauntletError: Bad input (file, line and field named), an unknown model spec.

    Examples:
        >>> df = mg.score("difficulty", input="corpus.tsv", src_lang="es", estimator="length")
        >>> df.sort_values("difficulty").tail(3)
    """
    fn = KINDS.get(kind)
    if fn is None:
        raise UsageError(f"score: unknown kind {kind!r} (one of {', '.join(KINDS)})")
    _known_options(fn, options)
    return fn(input=input, progress=None, **options)


def _known_options(fn, options: dict) -> None:
    """Refuse an option the kind does not take (named as the CLI names it)."""
    import inspect

    known = set(inspect.signature(fn).parameters) - {"progress"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise UsageError(f"{fn.__name__}: unknown option(s) {', '.join(unknown)} (takes: {', '.join(sorted(known))})")
