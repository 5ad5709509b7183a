"""`gauntlet build <method>`: one subcommand per builder."""

from __future__ import annotations

from typing import Optional

import typer

from mtgauntlet.build.runner import BuildRunner
from mtgauntlet.builders.base import iter_items
from mtgauntlet.cli.common import load_corpus, summary_line

app = typer.Typer(help="Build a challenge set with one of the methods (writes Parquet shards + build.json).",
                  no_args_is_help=True)


@app.command("subset")
def build_subset(
    input: str = typer.Option(..., "--input", "-i", help="Corpus file (TSV/CSV/JSONL/Parquet, .gz ok) or named layout."),
    out: str = typer.Option(..., "--out", "-o", help="Output build directory."),
    estimator: str = typer.Option("length", help="Difficulty estimator spec (length, syntax, rarity, random, learned, sentinel:..., llm-judge:...)."),
    budget: int = typer.Option(100, help="Number of texts to keep (B)."),
    stratify: Optional[str] = typer.Option(None, help="Keep diversity: 'domain' or 'clusters'."),
    format: Optional[str] = typer.Option(None, help="Input layout: tsv, csv, jsonl, parquet, flores, wmt24, parallel-samples."),
    src_col: str = typer.Option("src", help="Source text column."),
    domain_col: Optional[str] = typer.Option(None, help="Domain column (for --stratify domain)."),
    src_lang: Optional[str] = typer.Option(None, help="Source language (BCP-47)."),
    tgt_lang: Optional[str] = typer.Option(None, help="Target language (BCP-47)."),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for multi-pair layouts (e.g. en-de)."),
    limit: Optional[int] = typer.Option(None, help="Read at most N rows."),
    seed: int = typer.Option(13),
    shard_size: int = typer.Option(500, help="Items per resumable shard."),
    skip_bad: bool = typer.Option(False, help="Skip (and count) bad rows instead of stopping."),
    overwrite: bool = typer.Option(False, help="Discard a different build found in --out."),
):
    """Score a corpus with a difficulty estimator and keep the B hardest texts (selected_text records)."""
    from mtgauntlet.builders.subset import SubsetBuilder

    cols = f"domain={domain_col}" if domain_col else None
    rows = load_corpus(input, format=format, src_col=src_col, ref_col=src_col, src_lang=src_lang or "en",
                       tgt_lang=tgt_lang or "en", limit=limit, skip_bad=skip_bad, columns=cols, lp=lp)
    src_lang = src_lang or (rows.rows[0]["src_lang"] if rows.rows else "en")
    builder = SubsetBuilder(estimator=estimator, budget=budget, stratify=stratify, src_lang=src_lang,
                            tgt_lang=tgt_lang)
    summary = BuildRunner(builder, out, seed=seed, shard_size=shard_size, overwrite=overwrite).run(iter_items(rows.rows))
    typer.echo(summary_line(summary))


@app.command("smaug")
def build_smaug(
    input: str = typer.Option(..., "--input", "-i", help="Parallel corpus (TSV/CSV/JSONL/Parquet, .gz ok) or named layout."),
    out: str = typer.Option(..., "--out", "-o", help="Output build directory."),
    src_lang: str = typer.Option(..., help="Source language (BCP-47)."),
    tgt_lang: str = typer.Option(..., help="Target language (BCP-47): the side that is perturbed."),
    format: Optional[str] = typer.Option(None, help="tsv, csv, jsonl, parquet, hf, flores, wmt24, parallel-samples."),
    src_col: str = typer.Option("src", help="Source column."),
    ref_col: str = typer.Option("ref", help="Reference column (perturbed into the bad hypothesis)."),
    good_col: Optional[str] = typer.Option(None, help="Column with the good hypothesis (second reference or MT)."),
    good_from: Optional[str] = typer.Option(None, help="column | translator | reference (good = reference, flagged)."),
    phenomena: str = typer.Option("ne,num,neg,ins,del", help="Comma-separated subset of ne,num,neg,ins,del."),
    translator: Optional[str] = typer.Option(None, help="Translator spec for the good hypothesis (e.g. apertium)."),
    infiller: Optional[str] = typer.Option(None, help="Infiller spec (mT5: hf:google/mt5-large); default: model-free."),
    nli: Optional[str] = typer.Option(None, help="NLI spec for the negation contradiction check (hf:roberta-large-mnli)."),
    annotator: Optional[str] = typer.Option(None, help="Annotator spec (default spacy:<tgt-lang>)."),
    polyjuice: Optional[str] = typer.Option(None, help="Polyjuice causal LM spec for negation (hf:uw-hai/polyjuice)."),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for multi-pair layouts (e.g. en-es)."),
    limit: Optional[int] = typer.Option(None, help="Read at most N rows."),
    min_char_edit: int = typer.Option(5, help="ne: minimum character edit distance."),
    min_word_edit: int = typer.Option(8, help="ins: minimum word edit distance."),
    seed: int = typer.Option(13),
    shard_size: int = typer.Option(200),
    skip_bad: bool = typer.Option(False),
    overwrite: bool = typer.Option(False),
):
    """SMAUG: (source, good, bad, reference, phenomenon) records; bad = reference with one critical error."""
    from mtgauntlet.builders.smaug import SmaugBuilder

    cols = f"good={good_col}" if good_col else None
    rows = load_corpus(input, format=format, src_col=src_col, ref_col=ref_col, src_lang=src_lang, tgt_lang=tgt_lang,
                       limit=limit, skip_bad=skip_bad, columns=cols, lp=lp)
    builder = SmaugBuilder(src_lang=src_lang, tgt_lang=tgt_lang, phenomena=[p.strip() for p in phenomena.split(",") if p.strip()],
                           translator=translator, infiller=infiller, nli=nli, annotator=annotator, polyjuice=polyjuice,
                           good_col=good_col, good_from=good_from, min_char_edit=min_char_edit,
                           min_word_edit=min_word_edit)
    for ph, (ok, how) in builder.support.items():
        if ph in builder.phenomena:
            typer.echo(f"  {ph}: {how}", err=True)
    summary = BuildRunner(builder, out, seed=seed, shard_size=shard_size, overwrite=overwrite).run(iter_items(rows.rows))
    typer.echo(summary_line(summary))
