"""`gauntlet score`: add model scores to a file (difficulty, QE)."""

from __future__ import annotations

from typing import Optional

import typer

from mtgauntlet.cli.common import (format_option, lang_pair, limit_option, load_corpus, max_chars_option, one_pair,
                                   quoting_option, skip_bad_option, skipped_note)

app = typer.Typer(help="Score texts with a model and write them with a new column.", no_args_is_help=True)


@app.command("difficulty")
def score_difficulty(
    input: str = typer.Option(..., "--input", "-i", help="Corpus file (TSV/CSV/JSONL/Parquet, .gz ok) or named layout."),
    out: str = typer.Option(..., "--out", "-o", help="Output file (.parquet, .tsv, .tsv.gz, .csv, .csv.gz or .jsonl)."),
    estimator: str = typer.Option("length", help="Difficulty estimator spec."),
    format: Optional[str] = format_option(),
    src_col: str = typer.Option("src", help="Source text column (tables; named layouts decide their own)."),
    src_lang: Optional[str] = typer.Option(None, help="Source language (BCP-47); named layouts give it."),
    tgt_lang: Optional[str] = typer.Option(None, help="Target language (BCP-47), for estimators that use it."),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for multi-pair layouts (e.g. en-de)."),
    limit: Optional[int] = limit_option(),
    quoting: str = quoting_option(),
    max_chars: int = max_chars_option(),
    skip_bad: bool = skip_bad_option(),
):
    """Add a `difficulty` column (higher = harder) to every row."""
    import pandas as pd

    from mtgauntlet.models import registry
    from mtgauntlet.models.difficulty import score_texts
    from mtgauntlet.tables import check_output_path, write_frame

    check_output_path(out)
    src_lang, tgt_lang = lang_pair(src_lang, tgt_lang)
    est = registry.load("difficulty", estimator)
    rows = load_corpus(input, format=format, src_col=src_col, ref_col=None, src_lang=src_lang, tgt_lang=tgt_lang,
                       lp=lp, limit=limit, quoting=quoting, max_chars=max_chars, skip_bad=skip_bad)
    src_lang, tgt_lang = one_pair(rows, src_lang, tgt_lang)
    df = pd.DataFrame([{k: v for k, v in r.items() if k != "_line"} for r in rows.rows])
    df["difficulty"] = score_texts(est, df["src"].tolist(), src_lang=src_lang, tgt_lang=tgt_lang)
    write_frame(df, out)
    typer.echo(f"{len(df)} rows scored with {estimator} -> {out}" + skipped_note(rows))


@app.command("qe")
def score_qe(
    input: str = typer.Option(..., "--input", "-i", help="Table with columns src, tgt, lp (TSV/CSV/JSONL/Parquet)."),
    out: str = typer.Option(..., "--out", "-o", help="Output file (.parquet, .tsv, .tsv.gz, .csv, .csv.gz or .jsonl)."),
    qe: str = typer.Option("qe", "--qe", help="QE spec(s), comma-separated: several are averaged per row on the 0-100 "
                                              "scale, each kept as column qe:<spec> (qe, roundtrip, comet:..., "
                                              "llm-as-qe:..., metricx:..., hf:...#scale=100, hf:...#error=25)."),
    map: Optional[str] = typer.Option(None, "--map", help="Column mapping ours=theirs, e.g. tgt=mt,lp=langpair."),
    format: Optional[str] = typer.Option(None, "--format", help="tsv, csv, jsonl, parquet or hf; default: from the name."),
    quoting: str = quoting_option(),
    max_chars: int = max_chars_option(),
    skip_bad: bool = skip_bad_option(),
):
    """Add a `qe` column (0..100, higher = better) to every (src, tgt) row, per language pair; empty where a score
    failed (an unparseable LLM judgement), never a made-up number."""
    import pandas as pd

    from mtgauntlet.corpora.langs import split_lp
    from mtgauntlet.corpora.readers import parse_column_map, read_rows
    from mtgauntlet.errors import InputError
    from mtgauntlet.models.qe_ensemble import load_qe
    from mtgauntlet.tables import check_output_path, write_frame

    check_output_path(out)
    est = load_qe(qe)
    rs = read_rows(input, format=format, columns=parse_column_map(map), required=["src", "tgt", "lp"],
                   text_fields=["src"], quoting=quoting, max_chars=max_chars,
                   on_error="skip" if skip_bad else "raise")
    if not rs.rows:
        raise InputError("no usable rows" + skipped_note(rs), file=input)
    df = pd.DataFrame([{k: v for k, v in r.items() if k != "_line"} for r in rs.rows])
    df["qe"] = float("nan")
    columns = [f"qe:{spec}" for spec in est.specs] if len(est.specs) > 1 else []
    for c in columns:
        df[c] = float("nan")
    for lp, idx in df.groupby("lp").groups.items():
        try:
            s, t = split_lp(str(lp))
        except ValueError as exc:
            line = rs.rows[list(idx)[0]]["_line"]
            raise InputError(str(exc), file=input, line=line, field="lp") from None
        sub = df.loc[idx]
        comps = est.score_components(sub["src"].tolist(), sub["tgt"].fillna("").tolist(), s, t)
        nan = float("nan")
        df.loc[idx, "qe"] = [nan if (v := est.combine(c)) is None else v for c in comps]
        for j, c in enumerate(columns):
            df.loc[idx, c] = [nan if row[j] is None else row[j] for row in comps]
    write_frame(df, out)
    failed = int(df["qe"].isna().sum())
    typer.echo(f"{len(df)} rows scored with {est.spec} -> {out}" + (f" ({failed} without a score)" if failed else "")
               + skipped_note(rs))
