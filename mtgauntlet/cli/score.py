"""`gauntlet score`: add model scores to a file (difficulty, QE), on this machine or on a Ray cluster."""

from __future__ import annotations

from typing import Optional

import typer

from mtgauntlet.cli.common import (format_option, lang_pair, limit_option, load_corpus, max_chars_option, one_pair,
                                   quoting_option, print_result, skip_bad_option, skipped_note, table_format_option,
                                   json_option)
from mtgauntlet.cli.spend import budget, dry_run_option, max_cost_option, max_requests_option, print_plan

app = typer.Typer(help="Score texts with a model and write them with a new column.", no_args_is_help=True)

# options shared by the score commands (typer reads them per command)
ENGINE = typer.Option("local", help="local (this process) or ray (the cluster at RAY_ADDRESS, else a local one); "
                                    "same output.")
DEVICE = typer.Option(None, help="Device of a torch model (auto, cpu, cuda, cuda:N, mps).")
DTYPE = typer.Option(None, help="dtype of a torch model (auto, fp32, bf16, fp16).")
BATCH_SIZE = typer.Option(None, help="Batch size of a torch model.")
SHARD_SIZE = typer.Option(10_000, help="Rows per resumable shard (the unit of work of an engine).")
ACTORS = typer.Option(None, help="Ray actors (default: one per CPU, or per GPU on cuda).")


def _run_engine(role: str, spec: str, columns: dict, out: str, *, engine: str, src_lang=None, tgt_lang=None,
                shard_size: int = 10_000, actors: Optional[int] = None, device=None, dtype=None, batch_size=None,
                max_cost=None, max_requests=None):
    """Scores in input order (and the API usage of the run). Finished shards live in ``OUT.work/`` until the output
    is written, so an interrupted run (or one stopped by its budget: exit 3) resumes where it stopped."""
    from mtgauntlet.models import usage

    before = usage.LEDGER.snapshot()
    with budget(max_cost, max_requests):
        scores, placement, work = _score_shards(role, spec, columns, out, engine=engine, src_lang=src_lang,
                                                tgt_lang=tgt_lang, shard_size=shard_size, actors=actors,
                                                device=device, dtype=dtype, batch_size=batch_size)
    return scores, placement, work, usage.report(usage.since(before))


def dry_run_plan(role: str, spec: str, columns: dict, src_lang=None, tgt_lang=None) -> None:
    """``--dry-run``: the calls of ``spec`` on every row (per language pair for QE), printed; nothing is sent."""
    from mtgauntlet.corpora.langs import split_lp
    from mtgauntlet.models import registry
    from mtgauntlet.models.estimate import Plan, role_plan
    from mtgauntlet.models.qe_ensemble import load_qe

    if role == "difficulty":
        print_plan(role_plan(registry.load("difficulty", spec), columns["src"], None, src_lang, tgt_lang))
        return
    plan, qe = Plan(), load_qe(spec)
    for src, tgt, lp in zip(columns["src"], columns["tgt"], columns["lp"]):
        plan.add_role(qe, [src], [tgt], *split_lp(lp))
    print_plan(plan)


def _score_shards(role: str, spec: str, columns: dict, out: str, *, engine: str, src_lang=None, tgt_lang=None,
                  shard_size: int = 10_000, actors: Optional[int] = None, device=None, dtype=None, batch_size=None):
    import sys
    from pathlib import Path

    from mtgauntlet.engines import get_engine
    from mtgauntlet.engines.scoring import ScoreTask
    from mtgauntlet.models.runtime import set_defaults
    from mtgauntlet.runner.progress import Progress

    set_defaults(device=device, dtype=dtype, batch=batch_size)
    task = ScoreTask(role, spec, src_lang, tgt_lang, shard_size)
    eng = get_engine(engine, **({"actors": actors} if engine == "ray" else {}))
    work = Path(f"{out}.work")
    n = len(next(iter(columns.values())))
    progress = Progress(sys.stderr.isatty(), total=n, done=0, label=f"score {role} ({engine})")

    def on_shard(start: int, end: int) -> None:
        progress.advance(end - start)

    try:
        scores = eng.score(task, columns, work, on_shard=on_shard)
    finally:
        progress.close()
    return scores, eng.placement(task), work


def _finish(df, out: str, work, what: str, engine: str, placement: dict, column: str, rows, json_out: bool,
            spent=None) -> None:
    import shutil

    from mtgauntlet.models.usage import summary_line
    from mtgauntlet.tables import write_frame

    if spent:  # Parquet outputs carry the API usage in their metadata (mtgauntlet.usage)
        df.attrs["mtgauntlet.usage"] = spent
    write_frame(df, out)
    shutil.rmtree(work, ignore_errors=True)
    where = ", ".join(f"{k} {v}" for k, v in placement.items())
    failed = int(df[column].isna().sum())
    text = (f"{len(df)} rows scored with {what} on {engine}{f' ({where})' if where else ''} -> {out}"
            + (f" ({failed} without a score)" if failed else "") + skipped_note(rows))
    if spent and summary_line(spent):
        text += "\n" + summary_line(spent)
    print_result(json_out, text, {"out": out, "rows": len(df), "scored_with": what, "engine": engine,
                                  "placement": placement, "without_score": failed, "skipped": rows.skipped_counts(),
                                  "usage": spent or {}})


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
    import pandas as pd

    from mtgauntlet.models import registry
    from mtgauntlet.tables import check_output_path

    check_output_path(out)
    src_lang, tgt_lang = lang_pair(src_lang, tgt_lang)
    registry.resolve_class("difficulty", estimator)  # a bad spec fails before any reading or scoring
    rows = load_corpus(input, format=format, src_col=src_col, ref_col=None, src_lang=src_lang, tgt_lang=tgt_lang,
                       lp=lp, limit=limit, quoting=quoting, max_chars=max_chars, skip_bad=skip_bad)
    src_lang, tgt_lang = one_pair(rows, src_lang, tgt_lang)
    df = pd.DataFrame([{k: v for k, v in r.items() if k != "_line"} for r in rows.rows])
    if dry_run:
        return dry_run_plan("difficulty", estimator, {"src": df["src"].tolist()}, src_lang, tgt_lang)
    scores, placement, work, spent = _run_engine(
        "difficulty", estimator, {"src": df["src"].tolist()}, out, engine=engine, src_lang=src_lang, tgt_lang=tgt_lang,
        shard_size=shard_size, actors=actors, device=device, dtype=dtype, batch_size=batch_size, max_cost=max_cost,
        max_requests=max_requests)
    df["difficulty"] = scores[:, 0]
    _finish(df, out, work, estimator, engine, placement, "difficulty", rows, json_out, spent)


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
    import pandas as pd

    from mtgauntlet.corpora.langs import split_lp
    from mtgauntlet.corpora.readers import parse_column_map, read_rows
    from mtgauntlet.errors import InputError
    from mtgauntlet.models.qe_ensemble import split_specs
    from mtgauntlet.models.registry import resolve_class
    from mtgauntlet.tables import check_output_path

    check_output_path(out)
    specs = split_specs(qe)
    for spec in specs:
        resolve_class("qe", spec)  # a bad spec fails before any reading or scoring
    rs = read_rows(input, format=format, columns=parse_column_map(map), required=["src", "tgt", "lp"],
                   text_fields=["src"], quoting=quoting, max_chars=max_chars,
                   on_error="skip" if skip_bad else "raise")
    if not rs.rows:
        raise InputError("no usable rows" + skipped_note(rs), file=input)
    df = pd.DataFrame([{k: v for k, v in r.items() if k != "_line"} for r in rs.rows])
    for lp, idx in df.groupby("lp").groups.items():
        try:
            split_lp(str(lp))
        except ValueError as exc:
            line = rs.rows[list(idx)[0]]["_line"]
            raise InputError(str(exc), file=input, line=line, field="lp") from None
    columns = {"src": df["src"].tolist(), "tgt": df["tgt"].fillna("").tolist(), "lp": [str(x) for x in df["lp"]]}
    if dry_run:
        return dry_run_plan("qe", qe, columns)
    scores, placement, work, spent = _run_engine("qe", qe, columns, out, engine=engine, shard_size=shard_size,
                                                 actors=actors, device=device, dtype=dtype, batch_size=batch_size,
                                                 max_cost=max_cost, max_requests=max_requests)
    df["qe"] = scores[:, 0]
    if len(specs) > 1:
        for j, spec in enumerate(specs, start=1):
            df[f"qe:{spec}"] = scores[:, j]
    _finish(df, out, work, ",".join(specs), engine, placement, "qe", rs, json_out, spent)
