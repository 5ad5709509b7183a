"""`gauntlet validate PATH` (rules + report), `gauntlet validate diversity --input FILE --column NAME` and
`gauntlet validate grammar --input FILE --column NAME --lang en`."""

from __future__ import annotations

import typer
from typer.core import TyperGroup

from mtgauntlet.cli.common import print_json, quoting_option, table_format_option
from mtgauntlet.validators import registry as rule_registry


class _PathOrSubcommand(TyperGroup):
    """`gauntlet validate PATH ...` runs the default command; `gauntlet validate diversity ...` the subcommand."""

    default = "records"

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = [self.default, *args]
        return super().parse_args(ctx, args)

    def format_help(self, ctx, formatter):
        self.commands[self.default].format_help(ctx, formatter)
        formatter.write_paragraph()
        formatter.write_text("Subcommands (each with its own --help):")
        with formatter.indentation():
            for name, cmd in self.commands.items():
                if name != self.default:
                    formatter.write_text(f"{name}: {cmd.get_short_help_str(70)}")


app = typer.Typer(
    cls=_PathOrSubcommand,
    no_args_is_help=True,
    help="Check a record set against thresholds (exit 1 when a rule fails); `validate diversity` and "
    "`validate grammar` for any text column.",
)


@app.command("diversity")
def diversity(
    input: str = typer.Option(..., "--input", "-i", help="Any table (TSV/CSV/JSONL/Parquet, .gz ok)."),
    column: str = typer.Option(..., "--column", "-c", help="Text column."),
    embedder: str | None = typer.Option(None, "--embedder", help="Embedder spec (default e5)."),
    word_order: int = typer.Option(0, help="chrF word n-gram order (2 = chrF++, the MT-breaker paper's nw:2)."),
    max_texts: int = typer.Option(5000, help="Sample this many texts for pairwise metrics on larger sets."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    format: str | None = table_format_option(),
    quoting: str = quoting_option(),
):
    """Diversity of a text column: chrF diversity, embedding diversity, unique words."""
    from mtgauntlet.api import checking

    _print_measures(
        json_out,
        checking.diversity(
            input=input,
            column=column,
            embedder=embedder,
            word_order=word_order,
            max_texts=max_texts,
            format=format,
            quoting=quoting,
            progress=None,
        ),
    )


def _print_measures(json_out: bool, res: dict) -> None:
    if json_out:
        print_json(res)
    else:
        for k, v in res.items():
            typer.echo(f"{k}: {v:.4f}" if isinstance(v, float) else f"{k}: {v}")


@app.command("grammar")
def grammar(
    input: str = typer.Option(..., "--input", "-i", help="Any table (TSV/CSV/JSONL/Parquet, .gz ok)."),
    column: str = typer.Option(..., "--column", "-c", help="Text column."),
    lang: str = typer.Option(
        ..., "--lang", help="Language of the texts: en (Harper) or fr (Grammalecte, if installed)."
    ),
    out: str | None = typer.Option(
        None,
        "--out",
        "-o",
        help="Write the rows with grammar_errors, grammar_issues "
        "and spelling_flags added (.parquet, .jsonl, .tsv, .csv).",
    ),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    format: str | None = typer.Option(None, "--format", help="tsv, csv, jsonl, parquet or hf; default: from the name."),
    quoting: str = quoting_option(),
):
    """Rule-based grammar check of a text column: errors per row and per 100 words (spelling kept apart)."""
    from mtgauntlet.api import checking

    df = checking.grammar(input=input, column=column, lang=lang, out=out, format=format, quoting=quoting, progress=None)
    _print_measures(json_out, df.attrs["mtgauntlet.grammar"])


@app.command("records", hidden=True)
def validate(
    path: str = typer.Argument(..., metavar="PATH", help="Build dir, release dir or Parquet file(s)."),
    rules: str | None = typer.Option(None, "--rules", help=rule_registry.help_line()),
    report: str | None = typer.Option(None, "--report", help="Write report.json/report.txt (and gx-docs/) here."),
    nli: str | None = typer.Option(None, "--nli", help="NLI spec for the SMAUG contradiction rules."),
    lm: bool = typer.Option(False, "--lm", help="Also compute LM naturalness with the embedded LLM (slow)."),
    gx: bool = typer.Option(False, "--gx", help="Also run the Great Expectations suite (needs --report)."),
    engine: str = typer.Option(
        "local",
        help="Run the per-record checks (NLI, grammar, LM naturalness) with: local, "
        "or ray (RAY_ADDRESS or a local cluster); the report is the same. Corpus-level "
        "measures and the LLM judge run locally (docs/scaling.md).",
    ),
    actors: int | None = typer.Option(None, help="Ray actors (default: one per CPU)."),
    json_out: bool = typer.Option(False, "--json", help="Print the JSON report."),
):
    """Check a record set (build dir, release dir or Parquet files) against thresholds; exit 1 when a rule fails."""
    from mtgauntlet.api import checking
    from mtgauntlet.validators.validate import summary_text

    result = checking.validate(
        path, rules=rules, report=report, nli=nli, lm=lm, gx=gx, engine=engine, actors=actors, progress=None
    )
    if json_out:
        print_json(result.data)
    else:
        typer.echo(summary_text(result.data), nl=False)
        if report:
            typer.echo(f"report: {report}/report.json")
    if not result.passed:
        raise typer.Exit(1)
