"""The options of ``gauntlet score difficulty`` and ``gauntlet score qe`` (``mg.score_difficulty``,
``mg.score_qe``), declared once (`mtgauntlet.options`): the command's typer options, the function's signature,
docstring ``Args`` and range checks are made from these dataclasses."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet import shared_options as shared
from mtgauntlet.api.checks import engine_names
from mtgauntlet.corpora.readers import FORMATS
from mtgauntlet.options import option, trailing

OUT_HELP = "Output file (.parquet, .tsv, .tsv.gz, .csv, .csv.gz or .jsonl)."


def out_field() -> Any:
    return option(
        None,
        flags=("--out", "-o"),
        cli_required=True,
        builds=False,
        help=OUT_HELP,
        doc=OUT_HELP[:-1] + "; ``None``: nothing is written.",
    )


@trailing
@dataclass(kw_only=True, frozen=True)
class TableScoring:
    """The options both score commands end with (a trailing group): reading the rows, then where and how the scores
    are computed (never what they are), then the spending of paid backends."""

    quoting: str = shared.quoting()
    max_chars: int = shared.max_chars()
    skip_bad: bool = shared.skip_bad()
    engine: str = shared.engine(
        "local (this process) or ray (the cluster at RAY_ADDRESS, else a local one); same output.", engine_names
    )
    device: str | None = option(None, builds=False, help="Device of a torch model (auto, cpu, cuda, cuda:N, mps).")
    dtype: str | None = option(None, builds=False, help="dtype of a torch model (auto, fp32, bf16, fp16).")
    batch_size: int | None = option(None, builds=False, help="Batch size of a torch model.")
    shard_size: int = option(10_000, builds=False, help="Rows per resumable shard (the unit of work of an engine).")
    actors: int | None = option(None, builds=False, help="Ray actors (default: one per CPU, or per GPU on cuda).")
    max_cost: float | None = shared.max_cost()
    max_requests: int | None = shared.max_requests()
    dry_run: bool = shared.dry_run()


@dataclass(kw_only=True, frozen=True)
class ScoreDifficultyOptions(TableScoring):
    """Add a `difficulty` column (higher = harder) to every row."""

    input: Any = shared.input_table(
        "Corpus file (TSV/CSV/JSONL/Parquet, .gz ok) or named layout.",
        "Corpus file or named layout, or a DataFrame, ``datasets.Dataset`` or list of dicts.",
    )
    out: str | Path | None = out_field()
    estimator: str = option("length", help="Difficulty estimator spec.")
    format: str | None = shared.format()
    src_col: str = option("src", help="Source text column (tables; named layouts decide their own).")
    src_lang: str | None = option(None, help="Source language (BCP-47); named layouts give it.")
    tgt_lang: str | None = option(None, help="Target language (BCP-47), for estimators that use it.")
    lp: str | None = shared.lp("multi-pair layouts (e.g. en-de)")
    limit: int | None = shared.limit()


@dataclass(kw_only=True, frozen=True)
class ScoreQEOptions(TableScoring):
    """Add a `qe` column (0..100, higher = better; empty where the score failed) to every (src, tgt) row, per
    language pair; with several QE specs also one `qe:<spec>` column each."""

    input: Any = shared.input_table(
        "Table with columns src, tgt, lp (TSV/CSV/JSONL/Parquet).",
        "Table with columns src, tgt, lp (TSV/CSV/JSONL/Parquet), or a DataFrame, Dataset or list of dicts.",
    )
    out: str | Path | None = out_field()
    qe: str = option(
        "qe",
        help="QE spec(s), comma-separated: several are averaged per row on the "
        "0-100 scale, each kept as column qe:<spec> (qe, roundtrip, comet:..., llm-as-qe:..., "
        "metricx:..., hf:...#scale=100, hf:...#error=25).",
    )
    map: str | None = option(None, help="Column mapping ours=theirs, e.g. tgt=mt,lp=langpair.")
    format: str | None = option(
        None, choices=lambda: FORMATS, help=f"{', '.join(FORMATS)}; default: from the file name."
    )
