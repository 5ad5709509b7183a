"""Checks from Python: `validate` (``gauntlet validate PATH``), `diversity`
(``gauntlet validate diversity``) and `grammar` (``gauntlet validate grammar``). The CLI commands call these
functions and print what they return."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mtgauntlet.api.checks import one_of
from mtgauntlet.api.inputs import as_input_path, in_memory, input_format, path_of
from mtgauntlet.api.results import Report
from mtgauntlet.api.session import public
from mtgauntlet.errors import UsageError

__all__ = ["validate", "diversity", "grammar"]


@public
def validate(
    path: Any,
    *,
    rules: str | Path | None = None,
    report: str | Path | None = None,
    nli: str | None = None,
    lm: bool = False,
    gx: bool = False,
    engine: str = "local",
    actors: int | None = None,
    progress: bool | None = False,
) -> Report:
    """Check a record set against thresholds. A failed rule is no exception: the report says it
    (``passed`` is False; ``gauntlet validate`` exits 1).

    Args:
        path: A build or release directory (or a `Build` / `Release`), or Parquet record file(s).
        rules: Rules YAML (thresholds and options); default: the built-in rules.
        report: Write ``report.json`` / ``report.txt`` (and ``gx-docs/``) into this folder; a release can then name
            the report.
        nli: NLI spec for the SMAUG contradiction rules.
        lm: Also compute LM naturalness with the embedded LLM (slow).
        gx: Also run the Great Expectations suite (needs ``report``: Data Docs are written there).
        engine: Run the per-record checks (NLI, grammar, LM naturalness) with ``local`` or ``ray``: the same report.
        actors: Ray actors.

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
    from mtgauntlet.engines import ENGINES, get_engine
    from mtgauntlet.validators.rules import Rules
    from mtgauntlet.validators.validate import validate as run

    one_of("--engine", engine, ENGINES)
    r = Rules.from_yaml(rules) if rules else Rules.default()
    if nli:
        r.options.nli = nli
    r.options.lm = r.options.lm or lm
    r.options.gx = r.options.gx or gx
    if r.options.gx and not report:
        raise UsageError("--gx needs --report DIR (Data Docs are written there)")
    data = run(path_of(path), r, report, engine=None if engine == "local" else get_engine(engine, actors=actors))
    return Report(data=data, path=Path(report) if report else None)


def _texts(input: Any, column: str, format: str | None, quoting: str):
    """(rows, texts of ``column``) of any table; ``input`` may be a DataFrame, Dataset or list of dicts. A value
    that is not a string (a number, a list, a null) is an `InputError` naming its file, line and column: it is no
    text, and counting it as one without errors would flatter the set."""
    from mtgauntlet.corpora.readers import FORMATS, read_rows
    from mtgauntlet.errors import InputError

    one_of("--format", format, FORMATS)
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
def diversity(
    *,
    input: Any,
    column: str,
    embedder: str | None = None,
    word_order: int = 0,
    max_texts: int = 5000,
    format: str | None = None,
    quoting: str = "auto",
    progress: bool | None = False,
) -> dict[str, Any]:
    """Diversity of a text column: chrF diversity, embedding diversity, unique words.

    Args:
        input: Any table (TSV/CSV/JSONL/Parquet, ``.gz`` ok), or a DataFrame, ``datasets.Dataset`` or list of dicts.
        column: The text column.
        embedder: Embedder spec (default: e5).
        word_order: chrF word n-gram order (2 = chrF++, the MT-breaker paper's nw:2).
        max_texts: Sample this many texts for the pairwise metrics on larger sets.
        format: tsv, csv, jsonl, parquet or hf; default: from the file name.
        quoting: TSV/CSV quoting: auto, csv or none.

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

    _, texts = _texts(input, column, format, quoting)
    res = {
        "n": len(texts),
        **checks.chrf_diversity(texts, word_order=word_order, max_texts=max_texts),
        "embedding_diversity": checks.embedding_diversity(
            texts, registry.load("embedder", embedder) if embedder else None, max_texts
        ),
        "unique_words": checks.unique_words(texts),
    }
    res.pop("chrf_pairs_texts")
    return res


@public
def grammar(
    *,
    input: Any,
    column: str,
    lang: str,
    out: str | Path | None = None,
    format: str | None = None,
    quoting: str = "auto",
    progress: bool | None = False,
):
    """Rule-based grammar check of a text column (Harper for English, Grammalecte for French): errors per row and
    per 100 words, spelling kept apart.

    Args:
        input: Any table (TSV/CSV/JSONL/Parquet, ``.gz`` ok), or a DataFrame, ``datasets.Dataset`` or list of dicts.
        column: The text column.
        lang: Language of the texts: ``en`` or ``fr``.
        out: Also write the rows with the grammar columns added (.parquet, .jsonl, .tsv, .csv; the issue lists as
            JSON text in flat formats).
        format: tsv, csv, jsonl, parquet or hf; default: from the file name.
        quoting: TSV/CSV quoting: auto, csv or none.

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

    if out:
        check_output_path(out)
        if not in_memory(input) and Path(out).resolve() == Path(path_of(input)).resolve():
            raise UsageError(f"--out {out}: is the --input file; write the checked rows elsewhere")
    gr.checker(lang)  # a missing checker fails before any reading
    rows, texts = _texts(input, column, format, quoting)
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
