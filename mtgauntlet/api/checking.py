"""Checks from Python: `validate` (``gauntlet validate PATH``), `diversity`
(``gauntlet validate diversity``) and `grammar` (``gauntlet validate grammar``). The CLI commands call these
functions and print what they return."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mtgauntlet.api.check_options import DiversityOptions, GrammarOptions, ValidateOptions
from mtgauntlet.api.inputs import as_input_path, in_memory, input_format, path_of
from mtgauntlet.api.results import Report
from mtgauntlet.api.session import public
from mtgauntlet.errors import UsageError
from mtgauntlet.options import takes

__all__ = ["validate", "diversity", "grammar"]


@public
@takes(ValidateOptions, returns=Report)
def validate(o: ValidateOptions) -> Report:
    """Check a record set against thresholds. A failed rule is no exception: the report says it
    (``passed`` is False; ``gauntlet validate`` exits 1).

    Returns:
        Report: The `Report`: ``passed``, ``failed_rules``, ``to_dict()`` (what ``report.json`` holds) and ``path``
            (the report folder, or ``None`` without ``report``).

    Raises:
        UsageError: ``gx`` without ``report``; an unknown ``engine``.
        GauntletError: A path that is not a build, release or record file; bad rules.

    Examples:
        >>> report = mg.validate("builds/smaug", report="reports/smaug")
        >>> report.passed or print(report.failed_rules)
    """
    from mtgauntlet.core.paid_run import paid_run
    from mtgauntlet.engines import get_engine
    from mtgauntlet.validators.rules import Rules
    from mtgauntlet.validators.validate import validate as run

    r = Rules.from_yaml(o.rules) if o.rules else Rules.default()
    if o.nli:
        r.options.nli = o.nli
    r.options.lm = r.options.lm or o.lm
    r.options.gx = r.options.gx or o.gx
    if r.options.gx and not o.report:
        raise UsageError("--gx needs --report DIR (Data Docs are written there)")
    engine = None if o.engine == "local" else get_engine(o.engine, actors=o.actors)
    # an LLM judge (rules' options.judge) may be a paid backend: the run's budget (the command line's), its usage
    # journal beside the report (REPORT/usage.jsonl) and the graceful stop on signals
    with paid_run(o.report if o.report and r.options.judge else None):
        data = run(path_of(o.path), r, o.report, engine=engine)
    return Report(data=data, path=Path(o.report) if o.report else None)


def _texts(input: Any, column: str, format: str | None, quoting: str):
    """(rows, texts of ``column``) of any table; ``input`` may be a DataFrame, Dataset or list of dicts. A value
    that is not a string (a number, a list, a null) is an `InputError` naming its file, line and column: it is no
    text, and counting it as one without errors would flatter the set."""
    from mtgauntlet.corpora.readers import read_rows
    from mtgauntlet.errors import InputError

    path = as_input_path(input)
    format = input_format(input, format)  # in memory: always its Parquet file
    rs = read_rows(path, format=format, required=[column], text_fields=[], quoting=quoting, max_chars=None)
    for r in rs.rows:
        value = r[column]
        if not isinstance(value, str):
            found = "null" if value is None else f"{type(value).__name__} {str(value)[:40]!r}"
            raise InputError(
                f"wrong type: expected a text (string), found {found}", file=rs.path, line=r.get("_line"), field=column
            )
    return rs.rows, [r[column] for r in rs.rows]


@public
@takes(DiversityOptions, returns=dict[str, Any])
def diversity(o: DiversityOptions) -> dict[str, Any]:
    """Diversity of a text column: chrF diversity, embedding diversity, unique words.

    Returns:
        The measures by name (``n``, ``chrf_diversity``, ``embedding_diversity``, ``unique_words``, ...), as
            ``gauntlet validate diversity --json`` prints them.

    Raises:
        GauntletError: An unreadable table, a missing column, an unknown embedder.

    Examples:
        >>> from mtgauntlet.api.checking import diversity
        >>> diversity(input="set.tsv", column="src")["chrf_diversity"]
    """
    from mtgauntlet.models import registry
    from mtgauntlet.validators import checks

    _, texts = _texts(o.input, o.column, o.format, o.quoting)
    res = {
        "n": len(texts),
        **checks.chrf_diversity(texts, word_order=o.word_order, max_texts=o.max_texts),
        "embedding_diversity": checks.embedding_diversity(
            texts, registry.load("embedder", o.embedder) if o.embedder else None, o.max_texts
        ),
        "unique_words": checks.unique_words(texts),
    }
    res.pop("chrf_pairs_texts")
    return res


@public
@takes(GrammarOptions)
def grammar(o: GrammarOptions):
    """Rule-based grammar check of a text column (Harper for English, Grammalecte for French): errors per row and
    per 100 words, spelling kept apart.

    Returns:
        pandas.DataFrame: The rows with ``grammar_errors``, ``grammar_issues`` (a list per
            row) and ``spelling_flags`` added; ``df.attrs["mtgauntlet.grammar"]`` holds the summary that ``gauntlet
            validate grammar --json`` prints (``n``, ``grammar.error_rate``, ``texts_flagged``, ...).

    Raises:
        GauntletError: No checker for ``lang``, an unreadable table, a missing column, a value that is not a text
            (a number, a list, a null), a bad output path or ``out`` naming the input file.

    Examples:
        >>> from mtgauntlet.api.checking import grammar
        >>> df = grammar(input="set.tsv", column="tgt", lang="en")
        >>> df.attrs["mtgauntlet.grammar"]["grammar.error_rate"]
    """
    import json

    import pandas as pd

    from mtgauntlet.tables import check_output_path, write_frame
    from mtgauntlet.validators import grammar as gr

    out, lang = o.out, o.lang
    if out:
        check_output_path(out)
        if not in_memory(o.input) and Path(out).resolve() == Path(path_of(o.input)).resolve():
            raise UsageError(f"--out {out}: is the --input file; write the checked rows elsewhere")
    gr.checker(lang)  # a missing checker fails before any reading
    rows, texts = _texts(o.input, o.column, o.format, o.quoting)
    results = gr.check_texts(texts, lang)
    summary = {
        "n": len(texts),
        "lang": lang,
        "grammar.error_rate": gr.error_rate(results, texts),
        "texts_flagged": sum(r["grammar_errors"] > 0 for r in results),
        "grammar_errors": sum(r["grammar_errors"] for r in results),
        "spelling_flags": sum(r["spelling_flags"] for r in results),
    }
    df = pd.DataFrame([{k: v for k, v in r.items() if k != "_line"} for r in rows])
    for key in ("grammar_errors", "grammar_issues", "spelling_flags"):
        df[key] = [r[key] for r in results]
    if out:
        written = df
        if not str(out).lower().endswith((".parquet", ".jsonl")):  # flat formats: the issue list as JSON text
            written = df.assign(grammar_issues=[json.dumps(v, ensure_ascii=False) for v in df["grammar_issues"]])
        write_frame(written, out)
        summary["out"] = str(out)
    df.attrs["mtgauntlet.grammar"] = summary
    return df
