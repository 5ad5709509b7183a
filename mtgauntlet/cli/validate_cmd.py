"""`gauntlet validate PATH` (rules + report) and `gauntlet validate diversity --input FILE --column NAME`."""

from __future__ import annotations

from typing import Optional

import typer

from mtgauntlet.cli.common import print_json

diversity_app = typer.Typer(add_completion=False)


@diversity_app.command()
def diversity(
    input: str = typer.Option(..., "--input", "-i", help="Any table (TSV/CSV/JSONL/Parquet, .gz ok)."),
    column: str = typer.Option(..., "--column", "-c", help="Text column."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="Embedder spec (default e5)."),
    word_order: int = typer.Option(0, help="chrF word n-gram order (2 = chrF++, the MT-breaker paper's nw:2)."),
    max_texts: int = typer.Option(5000, help="Sample this many texts for pairwise metrics on larger sets."),
    json_out: bool = typer.Option(False, "--json"),
):
    """Diversity of a text column: chrF diversity, embedding diversity, unique words."""
    from mtgauntlet.corpora.readers import read_rows
    from mtgauntlet.models import registry
    from mtgauntlet.validators import checks

    rows = read_rows(input, required=[column], text_fields=[]).rows
    texts = [str(r[column] or "") for r in rows]
    res = {"n": len(texts), **checks.chrf_diversity(texts, word_order=word_order, max_texts=max_texts),
           "embedding_diversity": checks.embedding_diversity(texts, registry.load("embedder", embedder) if embedder
                                                             else None, max_texts),
           "unique_words": checks.unique_words(texts)}
    res.pop("chrf_pairs_texts")
    if json_out:
        print_json(res)
    else:
        for k, v in res.items():
            typer.echo(f"{k}: {v:.4f}" if isinstance(v, float) else f"{k}: {v}")


def validate(
    ctx: typer.Context,
    path: str = typer.Argument(..., help="Build dir, release dir or Parquet file(s); or 'diversity' (see below)."),
    rules: Optional[str] = typer.Option(None, "--rules", help="Rules YAML (thresholds + options)."),
    report: Optional[str] = typer.Option(None, "--report", help="Write report.json/report.txt (and gx-docs/) here."),
    nli: Optional[str] = typer.Option(None, "--nli", help="NLI spec for the SMAUG contradiction rules."),
    lm: bool = typer.Option(False, "--lm", help="Also compute LM naturalness with the embedded LLM (slow)."),
    gx: bool = typer.Option(False, "--gx", help="Also run the Great Expectations suite (needs --report)."),
    json_out: bool = typer.Option(False, "--json", help="Print the JSON report."),
):
    """Check a record set against thresholds; exit 1 when a rule fails.

    `gauntlet validate diversity --input FILE --column NAME [--embedder SPEC] [--json]` prints
    {"n", "chrf_diversity", "embedding_diversity", "unique_words"} for any text column.
    """
    if path == "diversity":
        diversity_app(args=list(ctx.args) + (["--json"] if json_out else []), standalone_mode=True,
                      prog_name="gauntlet validate diversity")
        return
    if ctx.args:
        raise typer.BadParameter(f"unexpected arguments: {' '.join(ctx.args)}")
    from mtgauntlet.validators.rules import Rules
    from mtgauntlet.validators.validate import summary_text, validate as run

    r = Rules.from_yaml(rules) if rules else Rules.default()
    if nli:
        r.options.nli = nli
    r.options.lm = r.options.lm or lm
    r.options.gx = r.options.gx or gx
    if r.options.gx and not report:
        raise typer.BadParameter("--gx needs --report DIR (Data Docs are written there)")
    result = run(path, r, report)
    if json_out:
        print_json(result)
    else:
        typer.echo(summary_text(result), nl=False)
        if report:
            typer.echo(f"report: {report}/report.json")
    if not result["passed"]:
        raise typer.Exit(1)
