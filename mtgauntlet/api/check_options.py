"""The arguments and options of ``gauntlet validate`` (``mg.validate``), ``validate diversity`` and ``validate
grammar`` (`mtgauntlet.api.checking`) and ``gauntlet audit`` (``mg.audit``), declared once (`mtgauntlet.options`):
the commands, the functions' signatures, ``Args`` and checks, and the recipe tables of ``validate:`` and ``audit:``
are made from these dataclasses."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet import shared_options as shared
from mtgauntlet.api.checks import engine_names
from mtgauntlet.options import REQUIRED, argument, option
from mtgauntlet.validators import registry as rule_registry

RECORDS_DOC = "A build or release directory (or a `Build` / `Release`), or Parquet record file(s)."


@dataclass(kw_only=True, frozen=True)
class ValidateOptions:
    """Check a record set (build dir, release dir or Parquet files) against thresholds; exit 1 when a rule fails."""

    path: Any = argument(metavar="PATH", help="Build dir, release dir or Parquet file(s).", doc=RECORDS_DOC)
    rules: str | Path | None = option(
        None, help=rule_registry.help_line(), doc="Rules YAML (thresholds and options); default: the built-in rules."
    )
    report: str | Path | None = option(
        None,
        builds=False,
        help="Write report.json/report.txt (and gx-docs/) here.",
        doc="Write ``report.json`` / ``report.txt`` (and ``gx-docs/``) into this folder; a release can then name the "
        "report.",
    )
    nli: str | None = shared.nli()
    lm: bool = shared.lm()
    gx: bool = option(
        False,
        help="Also run the Great Expectations suite (needs --report).",
        doc="Also run the Great Expectations suite (needs ``report``: Data Docs are written there).",
    )
    engine: str = shared.engine(
        "Run the per-record checks (NLI, grammar, LM naturalness) with: local, or ray (RAY_ADDRESS or a local "
        "cluster); the report is the same. Corpus-level measures and the LLM judge run locally (docs/scaling.md).",
        engine_names,
        doc="Run the per-record checks (NLI, grammar, LM naturalness) with ``local`` or ``ray``: the same report.",
    )
    actors: int | None = option(None, min=1, builds=False, help="Ray actors (default: one per CPU).", doc="Ray actors.")


@dataclass(kw_only=True, frozen=True)
class DiversityOptions:
    """Diversity of a text column: chrF diversity, embedding diversity, unique words."""

    input: Any = shared.table_input()
    column: str = shared.text_column()
    embedder: str | None = option(None, help="Embedder spec (default e5).", doc="Embedder spec (default: e5).")
    word_order: int = option(0, min=0, help="chrF word n-gram order (2 = chrF++, the MT-breaker paper's nw:2).")
    max_texts: int = option(
        5000,
        min=1,
        help="Sample this many texts for pairwise metrics on larger sets.",
        doc="Sample this many texts for the pairwise metrics on larger sets.",
    )
    format: str | None = shared.table_format("tsv, csv, jsonl, parquet, hf; default: from the file name.")
    quoting: str = shared.quoting()


@dataclass(kw_only=True, frozen=True)
class GrammarOptions:
    """Rule-based grammar check of a text column: errors per row and per 100 words (spelling kept apart)."""

    input: Any = shared.table_input()
    column: str = shared.text_column()
    lang: str = option(
        REQUIRED,
        help="Language of the texts: en (Harper) or fr (Grammalecte, if installed).",
        doc="Language of the texts: ``en`` or ``fr``.",
    )
    out: str | Path | None = shared.out(
        "Write the rows with grammar_errors, grammar_issues and spelling_flags added (.parquet, .jsonl, .tsv, .csv).",
        None,
        doc="Also write the rows with the grammar columns added (.parquet, .jsonl, .tsv, .csv; the issue lists as "
        "JSON text in flat formats).",
    )
    format: str | None = shared.table_format("tsv, csv, jsonl, parquet or hf; default: from the name.")
    quoting: str = shared.quoting()


@dataclass(kw_only=True, frozen=True)
class AuditOptions:
    """Write one self-contained HTML audit page: overview, validation, data quality, examples with their edits,
    method plots and, with --against, what changed since the older version. Works offline; prints, too."""

    path: Any = argument(help="Build directory, release directory, or Parquet record file(s).", doc=RECORDS_DOC)
    out: str | Path = shared.html_page("report.html")
    against: Any = option(
        None, help="An older build/release: add a diff section.", doc="An older build or release: adds a diff section."
    )
    rules: str | Path | None = option(
        None,
        help="Validation rules YAML (as for gauntlet validate).",
        doc="Validation rules YAML (as for `mtgauntlet.validate`); default: the built-in rules.",
    )
    nli: str | None = shared.nli()
    lm: bool = shared.lm()
    examples: int = option(5, min=0, help="Records shown per phenomenon / variant / topic.")
    seed: int = option(13, help="Seed of the example sample.")
    metric_results: Sequence[str | Path] = option(
        (),
        help="Output of `gauntlet evaluate metric --set PATH --json` to show as metric sensitivity per phenomenon; "
        "repeat.",
        doc="Outputs of ``gauntlet evaluate metric --set PATH --json`` to show as metric sensitivity per phenomenon.",
    )
