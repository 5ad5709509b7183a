"""The options several commands share, as fields of their options dataclasses (`mtgauntlet.options`): each function
makes a new field (dataclasses own their fields), so a command lists the pieces it takes, in the order of its
``--help``. The groups: reading a corpus or table (``format``, ``quoting``, ``max_chars``, ``skip_bad``,
``limit``, ``sample``; ``table_input``, ``text_column``, ``table_format`` for a plain table), paying for API
calls (``concurrency``, ``max_cost``, ``max_requests``, ``dry_run``), where results go (``out``, ``overwrite``;
``releases_root``, ``release_name``, ``release_version`` for a release) and checking records (``rules``,
``nli``, ``lm``)."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mtgauntlet.corpora.readers import DEFAULT_MAX_CHARS
from mtgauntlet.options import REQUIRED, option, trailing

SEED_HELP = "Random seed (per-item randomness derives from it; part of the signature)."
CONCURRENCY_HELP = (
    "Requests sent at once to openai: backends (default: gauntlet --concurrency, "
    "MTGAUNTLET_CONCURRENCY or the spec's #concurrency, else 1); the records are the same for any "
    "value."
)
MAX_COST_HELP = (
    "Budget in USD of the requests to paid backends (any paid backend; specs need #price=IN/OUT): a request "
    "leaves when its worst case fits beside those in flight, else waits for them; exit 3 when it cannot fit "
    "with none in flight; the same command run again resumes."
)
MAX_COST_DOC = (
    "Budget in USD of the paid requests: each waits for room beside those in flight; `BudgetSpent` when the next "
    "cannot fit with none in flight (never more than this is billed); the same call resumes."
)
MAX_REQUESTS_HELP = "Stop (exit 3) after N requests to paid backends; the same command run again resumes."
MAX_REQUESTS_DOC = "Stop (`BudgetSpent`) after N requests to paid backends; the same call resumes."
DRY_RUN_HELP = (
    "Print the API calls per spec with estimated tokens and cost (from the rendered prompts and "
    "--max-tokens), send nothing, write nothing."
)
DRY_RUN_DOC = "Only estimate the API calls, tokens and cost (`Build.plan`); write nothing."
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


def table_formats() -> tuple[str, ...]:
    """What ``--format`` of a plain table takes (no named layout)."""
    from mtgauntlet.corpora.readers import FORMATS

    return tuple(FORMATS)


def quotings() -> tuple[str, ...]:
    from mtgauntlet.corpora.delimited import QUOTING

    return tuple(QUOTING)


def out(help: str = "Output build directory.", default: Any = REQUIRED, doc: str | None = None) -> Any:
    """``--out`` / ``-o``: where the command writes (never what it computes)."""
    return option(default, flags=("--out", "-o"), builds=False, help=help, doc=doc)


def engine(help: str, choices: Callable[[], tuple[str, ...]], doc: str | None = None) -> Any:
    """``--engine``: where the per-row work runs (local, ray; ``choices``: the registered engines, which this layer
    does not import); never what it computes."""
    return option("local", builds=False, choices=choices, help=help, doc=doc)


def format() -> Any:
    return option(None, choices=input_formats, help=FORMAT_HELP)


def limit(what: str = "rows") -> Any:
    return option(None, min=1, help=f"Read at most N {what}.")


def quoting() -> Any:
    return option("auto", choices=quotings, help=QUOTING_HELP)


def max_chars() -> Any:
    return option(DEFAULT_MAX_CHARS, min=1, help=MAX_CHARS_HELP)


def skip_bad() -> Any:
    return option(False, help=SKIP_BAD_HELP)


def sample() -> Any:
    return option(None, min=1, help=SAMPLE_HELP)


def seed() -> Any:
    return option(13, help=SEED_HELP)


def shard_size(default: int | None) -> Any:
    return option(default, min=1, help="Items per resumable shard.")


def overwrite() -> Any:
    return option(False, builds=False, help=OVERWRITE_HELP)


def concurrency() -> Any:
    return option(None, min=1, builds=False, help=CONCURRENCY_HELP)


def max_cost() -> Any:
    return option(None, min=0.0, builds=False, help=MAX_COST_HELP, doc=MAX_COST_DOC)


def max_requests() -> Any:
    return option(None, min=0, builds=False, help=MAX_REQUESTS_HELP, doc=MAX_REQUESTS_DOC)


@trailing
@dataclass(kw_only=True, frozen=True)
class Budget:
    """The limits of what a command pays to paid backends (a trailing group: a command's last options)."""

    max_cost: float | None = max_cost()
    max_requests: int | None = max_requests()


def dry_run() -> Any:
    return option(False, builds=False, help=DRY_RUN_HELP, doc=DRY_RUN_DOC)


def src_lang(default: Any = "en") -> Any:
    return option(default, help="Source language (BCP-47).")


def tgt_lang(default: Any = "es") -> Any:
    return option(default, help="Target language (BCP-47).")


def lp(what: str) -> Any:
    return option(None, help=f"Language pair filter for {what}.")


def only(what: str, help: str) -> Any:
    """A filter that takes several names (``--lp es-en,de-en`` on the command line, a list too in Python)."""
    return option(None, help=help, doc=f"Only these {what} (a list or comma-separated).")


# -- a plain table (validate diversity, validate grammar) ---------------------------------------------------------
def table_input() -> Any:
    return input_table(
        "Any table (TSV/CSV/JSONL/Parquet, .gz ok).",
        "Any table (TSV/CSV/JSONL/Parquet, ``.gz`` ok), or a DataFrame, ``datasets.Dataset`` or list of dicts.",
    )


def text_column() -> Any:
    return option(REQUIRED, flags=("--column", "-c"), help="Text column.", doc="The text column.")


def table_format(help: str) -> Any:
    return option(None, flags=("--format",), choices=table_formats, help=help)


# -- a release (release, import) ------------------------------------------------------------------------------------
def releases_root() -> Any:
    return option(
        "releases",
        flags=("--out", "-o"),
        builds=False,
        help="Releases root (hive layout name=/version=).",
        doc="Releases root (hive layout ``name=``/``version=``).",
    )


def release_name() -> Any:
    return option(
        REQUIRED,
        flags=("--name", "-n"),
        help="Release name (letters, digits, . _ -).",
        doc="Release name (letters, digits, ``.`` ``_`` ``-``).",
    )


def release_version(help: str, doc: str) -> Any:
    return option(REQUIRED, flags=("--version", "-V"), help=help, doc=doc)


def html_page(default: str) -> Any:
    """``--out`` of a command that writes one HTML page (audit, leaderboard)."""
    return option(
        default,
        flags=("--out", "-o"),
        builds=False,
        help="The HTML page to write (one self-contained file).",
        doc="The HTML page to write.",
    )


# -- checking records (validate, audit) -----------------------------------------------------------------------------
def nli() -> Any:
    return option(None, help="NLI spec for the SMAUG contradiction rules.")


def lm() -> Any:
    return option(False, help="Also compute LM naturalness with the embedded LLM (slow).")
