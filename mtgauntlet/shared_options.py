"""The options several commands share (reading a corpus, paying for API calls, where a build goes), as fields of
their options dataclasses (`mtgauntlet.options`): each function makes a new field, since dataclasses own their
fields. The help texts are the CLI's too where a command still writes its typer options by hand
(``mtgauntlet.cli.common``, ``mtgauntlet.cli.spend``)."""

from typing import Any

from mtgauntlet.corpora.readers import DEFAULT_MAX_CHARS
from mtgauntlet.options import REQUIRED, option

SEED_HELP = "Random seed (per-item randomness derives from it; part of the signature)."
CONCURRENCY_HELP = (
    "Requests sent at once to openai: backends (default: gauntlet --concurrency, "
    "MTGAUNTLET_CONCURRENCY or the spec's #concurrency, else 1); the records are the same for any "
    "value."
)
MAX_COST_HELP = (
    "Stop (exit 3) once the openai: requests of this run cost USD (specs need #price=IN/OUT); the same "
    "command run again resumes."
)
MAX_REQUESTS_HELP = "Stop (exit 3) after N requests to openai: backends; the same command run again resumes."
DRY_RUN_HELP = (
    "Print the API calls per spec with estimated tokens and cost (from the rendered prompts and "
    "--max-tokens), send nothing, write nothing."
)
QUOTING_HELP = (
    'TSV/CSV quoting: auto (detect), csv (standard "…" quoting) or none (quotes are literal characters, '
    "as in the WMT MQM tables)."
)
SKIP_BAD_HELP = (
    "Skip bad rows (empty or too long text, wrong type, invalid UTF-8, wrong field count, invalid JSON) "
    "and count them by reason, instead of stopping."
)
MAX_CHARS_HELP = "Longest text a row may hold, in characters (longer rows are errors, or skipped)."
SAMPLE_HELP = (
    "Seeds drawn at random from the rows read (the paper: 100): the N with the smallest hash of (--seed, "
    "source text), so every target language draws the same sources and editing other rows keeps a seed "
    "in or out."
)
OVERWRITE_HELP = "Discard a different or unfinished build found in --out and start over."
FORMAT_HELP = (
    "Input format: tsv, csv, jsonl, parquet, hf, or a named layout (flores, wmt24, parallel-samples, "
    "demetr, aces); default: from the file name."
)
QE_HELP = (
    "QE spec(s), comma-separated: several are averaged per text on the 0-100 quality scale (the paper: "
    "metricx:<MetricX-24-QE dir>,llm-as-qe:<llm>); qe, roundtrip, comet:..., hf:...#error=25 for 0-25 "
    "error scores."
)


def input_formats() -> tuple[str, ...]:
    """What ``--format`` of a corpus takes: a plain table format or a named layout (flores, wmt24, ...)."""
    from mtgauntlet.corpora.formats import READERS
    from mtgauntlet.corpora.readers import FORMATS

    return (*FORMATS, "parallel", *(name for name in READERS if name != "parallel"))


def input_table(help: str, doc: str) -> Any:
    """The required ``--input`` / ``-i`` of a command that reads a table (``doc``: what Python takes too)."""
    return option(REQUIRED, flags=("--input", "-i"), help=help, doc=doc)


def out(help: str = "Output build directory.") -> Any:
    return option(REQUIRED, flags=("--out", "-o"), builds=False, help=help)


def format() -> Any:
    return option(None, flags=("--format",), choices=input_formats, help=FORMAT_HELP)


def limit(what: str = "rows") -> Any:
    return option(None, flags=("--limit",), min=1, help=f"Read at most N {what}.")


def quoting() -> Any:
    return option("auto", flags=("--quoting",), help=QUOTING_HELP)


def max_chars() -> Any:
    return option(DEFAULT_MAX_CHARS, flags=("--max-chars",), min=1, help=MAX_CHARS_HELP)


def skip_bad() -> Any:
    return option(False, flags=("--skip-bad",), help=SKIP_BAD_HELP)


def sample() -> Any:
    return option(None, flags=("--sample",), min=1, help=SAMPLE_HELP)


def seed() -> Any:
    return option(13, flags=("--seed",), help=SEED_HELP)


def shard_size(default: int | None) -> Any:
    return option(default, flags=("--shard-size",), min=1, help="Items per resumable shard.")


def overwrite() -> Any:
    return option(False, flags=("--overwrite",), builds=False, help=OVERWRITE_HELP)


def concurrency() -> Any:
    return option(None, flags=("--concurrency",), min=1, builds=False, help=CONCURRENCY_HELP)


def max_cost() -> Any:
    return option(
        None,
        flags=("--max-cost",),
        min=0.0,
        builds=False,
        help=MAX_COST_HELP,
        doc="Stop (`BudgetSpent`) once the requests cost this many USD; the same call resumes.",
    )


def max_requests() -> Any:
    return option(
        None,
        flags=("--max-requests",),
        min=0,
        builds=False,
        help=MAX_REQUESTS_HELP,
        doc="Stop (`BudgetSpent`) after N requests to openai: backends; the same call resumes.",
    )


def dry_run() -> Any:
    return option(
        False,
        flags=("--dry-run",),
        builds=False,
        help=DRY_RUN_HELP,
        doc="Only estimate the API calls, tokens and cost (`Build.plan`); write nothing.",
    )


def src_lang(default: Any = "en") -> Any:
    return option(default, help="Source language (BCP-47).")


def tgt_lang(default: Any = "es") -> Any:
    return option(default, help="Target language (BCP-47).")


def lp(what: str) -> Any:
    return option(None, help=f"Language pair filter for {what}.")
