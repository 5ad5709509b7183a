"""`gauntlet evaluate`: metric robustness on challenge pairs; difficulty estimators (DEC)."""

from __future__ import annotations

import typer

from mtgauntlet.cli.common import fail, print_frame, print_json

app = typer.Typer(help="Evaluate metrics on challenge sets, or difficulty estimators on judgments.",
                  no_args_is_help=True)


@app.command("metric")
def evaluate_metric(
    set: str = typer.Option(..., "--set", "-s", help="Build/release dir or Parquet of smaug_pair, DEMETR JSONL or ACES TSV."),
    metric: str = typer.Option("chrf", "--metric", "-m", help="chrf, bleu, col:GOODCOL,BADCOL, or a QE spec (qe, roundtrip, comet:..., llm-as-qe:...)."),
    lp: str = typer.Option(None, "--lp", help="Only these language pairs (comma-separated, e.g. es-en,de-en)."),
    phenomena: str = typer.Option(None, "--phenomena", help="Only these phenomena (comma-separated)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Kendall-like tau (ties count as discordant, as WMT challenge sets) and d (SMAUG eq. 2) per phenomenon and lp."""
    import pandas as pd

    from mtgauntlet.evaluation.metric_robustness import evaluate, filter_pairs, load_pairs, score_pairs

    split = lambda v: [x.strip() for x in v.split(",") if x.strip()] if v else None  # noqa: E731
    pairs = filter_pairs(load_pairs(set), split(lp), split(phenomena))
    if not pairs.good:
        fail("no pairs left after --lp/--phenomena filtering")
    skipped: dict[str, str] = {}
    good, bad = score_pairs(pairs, metric, skipped)
    results = evaluate(pairs, good, bad)
    if json_out:
        print_json({"metric": metric, "ties": "discordant", "skipped": skipped,
                    "results": [{k: r[k] for k in ("phenomenon", "lp", "n", "tau", "d")} for r in results]})
    else:
        print_frame(pd.DataFrame(results))
        for k, why in skipped.items():
            typer.echo(f"skipped {k}: {why}", err=True)
        typer.echo("tau = (C - D) / (C + D), ties counted as discordant; d over concordant pairs, min-max normalised.")
