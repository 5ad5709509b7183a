"""`gauntlet audit PATH [--against OLD_PATH] --out report.html`."""

from __future__ import annotations

import typer

from mtgauntlet.cli.common import json_option, print_result


def audit(
    path: str = typer.Argument(..., help="Build directory, release directory, or Parquet record file(s)."),
    out: str = typer.Option("report.html", "--out", "-o", help="The HTML page to write (one self-contained file)."),
    against: str | None = typer.Option(None, "--against", help="An older build/release: add a diff section."),
    rules: str | None = typer.Option(None, "--rules", help="Validation rules YAML (as for gauntlet validate)."),
    nli: str | None = typer.Option(None, "--nli", help="NLI spec for the SMAUG contradiction rules."),
    lm: bool = typer.Option(False, "--lm", help="Also compute LM naturalness with the embedded LLM (slow)."),
    examples: int = typer.Option(5, "--examples", min=0, help="Records shown per phenomenon / variant / topic."),
    seed: int = typer.Option(13, "--seed", help="Seed of the example sample."),
    metric_results: list[str] = typer.Option(
        [],
        "--metric-results",
        help="Output of `gauntlet evaluate metric "
        "--set PATH --json` to show as metric sensitivity per phenomenon; repeat.",
    ),
    json_out: bool = json_option("where the page is"),
):
    """Write one self-contained HTML audit page: overview, validation, data quality, examples with their edits,
    method plots and, with --against, what changed since the older version. Works offline; prints, too."""
    from mtgauntlet.api.auditing import audit as write_page

    page = write_page(
        path,
        out=out,
        against=against,
        rules=rules,
        nli=nli,
        lm=lm,
        examples=examples,
        seed=seed,
        metric_results=metric_results,
        progress=None,
    )
    print_result(json_out, f"audit report: {page}", {"audit": str(page), "of": path, "against": against})
