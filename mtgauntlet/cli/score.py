"""`gauntlet score`: add model scores to a file (difficulty, QE), on this machine or on a Ray cluster."""

from __future__ import annotations

from typing import Optional

import typer

from mtgauntlet.cli.common import load_corpus

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
                shard_size: int = 10_000, actors: Optional[int] = None, device=None, dtype=None, batch_size=None):
    """Scores in input order. Finished shards live in ``OUT.work/`` until the output is written, so an
    interrupted run resumes where it stopped."""
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
        for _ in range(end - start):
            progress.advance()

    try:
        scores = eng.score(task, columns, work, on_shard=on_shard)
    finally:
        progress.close()
    return scores, eng.placement(task), work


def _finish(df, out: str, work, what: str, engine: str, placement: dict) -> None:
    import shutil

    from mtgauntlet.tables import write_frame

    write_frame(df, out)
    shutil.rmtree(work, ignore_errors=True)
    where = ", ".join(f"{k} {v}" for k, v in placement.items())
    typer.echo(f"{len(df)} rows scored with {what} on {engine}{f' ({where})' if where else ''} -> {out}")


@app.command("difficulty")
def score_difficulty(
    input: str = typer.Option(..., "--input", "-i"),
    out: str = typer.Option(..., "--out", "-o", help="Output file (.parquet, .tsv, .csv or .jsonl)."),
    estimator: str = typer.Option("length", help="Difficulty estimator spec."),
    format: Optional[str] = typer.Option(None),
    src_col: str = typer.Option("src"),
    src_lang: str = typer.Option("en"),
    tgt_lang: Optional[str] = typer.Option(None),
    lp: Optional[str] = typer.Option(None),
    engine: str = ENGINE,
    device: Optional[str] = DEVICE,
    dtype: Optional[str] = DTYPE,
    batch_size: Optional[int] = BATCH_SIZE,
    shard_size: int = SHARD_SIZE,
    actors: Optional[int] = ACTORS,
):
    """Add a `difficulty` column (higher = harder) to every row."""
    import pandas as pd

    rows = load_corpus(input, format=format, src_col=src_col, ref_col=src_col, src_lang=src_lang,
                       tgt_lang=tgt_lang or src_lang, lp=lp)
    df = pd.DataFrame([{k: v for k, v in r.items() if k != "_line"} for r in rows.rows])
    texts = df["src"].tolist() if len(df) else []
    scores, placement, work = _run_engine("difficulty", estimator, {"src": texts}, out, engine=engine,
                                          src_lang=src_lang, tgt_lang=tgt_lang, shard_size=shard_size, actors=actors,
                                          device=device, dtype=dtype, batch_size=batch_size)
    df["difficulty"] = scores
    _finish(df, out, work, estimator, engine, placement)


@app.command("qe")
def score_qe(
    input: str = typer.Option(..., "--input", "-i", help="Table with columns src, tgt, lp (TSV/CSV/JSONL/Parquet)."),
    out: str = typer.Option(..., "--out", "-o", help="Output file (.parquet, .tsv, .csv or .jsonl)."),
    qe: str = typer.Option("qe", "--qe", help="QE spec (qe, roundtrip, comet:..., llm-as-qe:..., hf:...#scale=100)."),
    map: Optional[str] = typer.Option(None, "--map", help="Column mapping ours=theirs, e.g. tgt=mt,lp=langpair."),
    engine: str = ENGINE,
    device: Optional[str] = DEVICE,
    dtype: Optional[str] = DTYPE,
    batch_size: Optional[int] = BATCH_SIZE,
    shard_size: int = SHARD_SIZE,
    actors: Optional[int] = ACTORS,
):
    """Add a `qe` column (0..100, higher = better) to every (src, tgt) row, per language pair."""
    import pandas as pd

    from mtgauntlet.corpora.langs import split_lp
    from mtgauntlet.corpora.readers import parse_column_map, read_rows
    from mtgauntlet.errors import InputError

    rs = read_rows(input, columns=parse_column_map(map), required=["src", "tgt", "lp"], text_fields=["src"])
    df = pd.DataFrame([{k: v for k, v in r.items() if k != "_line"} for r in rs.rows])
    for lp, idx in (df.groupby("lp").groups.items() if len(df) else []):
        try:
            split_lp(str(lp))
        except ValueError as exc:
            line = rs.rows[list(idx)[0]]["_line"]
            raise InputError(str(exc), file=input, line=line, field="lp") from None
    columns = {"src": df["src"].tolist(), "tgt": df["tgt"].fillna("").tolist(), "lp": [str(x) for x in df["lp"]]} \
        if len(df) else {"src": [], "tgt": [], "lp": []}
    scores, placement, work = _run_engine("qe", qe, columns, out, engine=engine, shard_size=shard_size, actors=actors,
                                          device=device, dtype=dtype, batch_size=batch_size)
    df["qe"] = scores
    _finish(df, out, work, qe, engine, placement)
