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
