"""`gauntlet score`: add model scores to a file (difficulty, QE), on this machine or on a Ray cluster."""

from __future__ import annotations

from typing import Optional

import typer

from mtgauntlet.cli.common import (format_option, json_option, limit_option, max_chars_option, print_result,
                                   quoting_option, skip_bad_option, table_format_option)
from mtgauntlet.cli.spend import dry_run_option, max_cost_option, max_requests_option, print_plan

app = typer.Typer(help="Score texts with a model and write them with a new column.", no_args_is_help=True)

# options shared by the score commands (typer reads them per command)
ENGINE = typer.Option("local", help="local (this process) or ray (the cluster at RAY_ADDRESS, else a local one); "
                                    "same output.")
DEVICE = typer.Option(None, help="Device of a torch model (auto, cpu, cuda, cuda:N, mps).")
DTYPE = typer.Option(None, help="dtype of a torch model (auto, fp32, bf16, fp16).")
BATCH_SIZE = typer.Option(None, help="Batch size of a torch model.")
SHARD_SIZE = typer.Option(10_000, help="Rows per resumable shard (the unit of work of an engine).")
ACTORS = typer.Option(None, help="Ray actors (default: one per CPU, or per GPU on cuda).")


def _report(result, json_out: bool, dry_run: bool) -> None:
    """The plan of a dry run, or the summary of the scores written."""
    from mtgauntlet.api.scoring import SUMMARY
    from mtgauntlet.corpora.options import skipped_counts_note
    from mtgauntlet.models.usage import summary_line

    if dry_run:
        return print_plan(result)
    res = result.attrs[SUMMARY]
    where = ", ".join(f"{k} {v}" for k, v in res["placement"].items())
    text = (f"{res['rows']} rows scored with {res['scored_with']} on {res['engine']}{f' ({where})' if where else ''} "
            f"-> {res['out']}" + (f" ({res['without_score']} without a score)" if res["without_score"] else "")
            + skipped_counts_note(res["skipped"]))
    if summary_line(res["usage"]):
        text += "\n" + summary_line(res["usage"])
    print_result(json_out, text, res)


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
    engine: str = ENGINE,
    device: Optional[str] = DEVICE,
    dtype: Optional[str] = DTYPE,
    batch_size: Optional[int] = BATCH_SIZE,
    shard_size: int = SHARD_SIZE,
    actors: Optional[int] = ACTORS,
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
    dry_run: bool = dry_run_option(),
    json_out: bool = json_option("the summary"),
):
    """Add a `difficulty` column (higher = harder) to every row."""
    from mtgauntlet.api.scoring import score_difficulty as run

    _report(run(input=input, out=out, estimator=estimator, format=format, src_col=src_col, src_lang=src_lang,
                tgt_lang=tgt_lang, lp=lp, limit=limit, quoting=quoting, max_chars=max_chars, skip_bad=skip_bad,
                engine=engine, device=device, dtype=dtype, batch_size=batch_size, shard_size=shard_size,
                actors=actors, max_cost=max_cost, max_requests=max_requests, dry_run=dry_run, progress=None),
            json_out, dry_run)


@app.command("qe")
def score_qe(
    input: str = typer.Option(..., "--input", "-i", help="Table with columns src, tgt, lp (TSV/CSV/JSONL/Parquet)."),
    out: str = typer.Option(..., "--out", "-o", help="Output file (.parquet, .tsv, .tsv.gz, .csv, .csv.gz or .jsonl)."),
    qe: str = typer.Option("qe", "--qe", help="QE spec(s), comma-separated: several are averaged per row on the 0-100 "
                                              "scale, each kept as column qe:<spec> (qe, roundtrip, comet:..., "
                                              "llm-as-qe:..., metricx:..., hf:...#scale=100, hf:...#error=25)."),
    map: Optional[str] = typer.Option(None, "--map", help="Column mapping ours=theirs, e.g. tgt=mt,lp=langpair."),
    format: Optional[str] = table_format_option(),
    quoting: str = quoting_option(),
    max_chars: int = max_chars_option(),
    skip_bad: bool = skip_bad_option(),
    engine: str = ENGINE,
    device: Optional[str] = DEVICE,
    dtype: Optional[str] = DTYPE,
    batch_size: Optional[int] = BATCH_SIZE,
    shard_size: int = SHARD_SIZE,
    actors: Optional[int] = ACTORS,
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
    dry_run: bool = dry_run_option(),
    json_out: bool = json_option("the summary"),
):
    """Add a `qe` column (0..100, higher = better; empty where the score failed) to every (src, tgt) row, per
    language pair; with several QE specs also one `qe:<spec>` column each."""
    from mtgauntlet.api.scoring import score_qe as run

    _report(run(input=input, out=out, qe=qe, map=map, format=format, quoting=quoting, max_chars=max_chars,
                skip_bad=skip_bad, engine=engine, device=device, dtype=dtype, batch_size=batch_size,
                shard_size=shard_size, actors=actors, max_cost=max_cost, max_requests=max_requests, dry_run=dry_run,
                progress=None), json_out, dry_run)
