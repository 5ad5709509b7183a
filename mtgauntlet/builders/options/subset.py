"""The method ``subset``: the options of ``gauntlet build subset`` / ``mg.build_subset``, declared once, and its
record (`mtgauntlet.builders.methods`)."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet import shared_options as shared
from mtgauntlet.builders.methods import Method, MethodText
from mtgauntlet.builders.options import arxiv_citation
from mtgauntlet.builders.options.groups import BuildRun
from mtgauntlet.options import option

STRATIFY = ("domain", "clusters")


TEXT = MethodText(
    title="Difficulty-selected subset",
    description=(
        "A corpus scored by a source-only difficulty estimator; the B hardest texts are kept (Proietti et "
        "al. 2025, eq. 1), optionally stratified by domain or embedding cluster for diversity."
    ),
    citation=arxiv_citation(
        "proietti2025estimating",
        "Estimating Machine Translation Difficulty",
        "Proietti, Lorenzo and Perrella, Stefano and Zouhar, Vil{\\'e}m and Navigli, Roberto and Kocmi, Tom",
        "2508.10175",
    ),
    limitations="Heuristic estimators (length, syntax, rarity) correlate only moderately with human difficulty (DEC).",
)


EXAMPLE = {
    "input": "{sample}",
    "src_col": "es",
    "src_lang": "es",
    "budget": 6,
    "stratify": "domain",
    "domain_col": "domain",
}


@dataclass(kw_only=True, frozen=True)
class SubsetOptions(BuildRun):
    """Score a corpus with a difficulty estimator and keep the B hardest texts (selected_text records)."""

    input: Any = shared.input_table(
        "Corpus file (TSV/CSV/JSONL/Parquet, .gz ok) or named layout.",
        "Corpus file (TSV/CSV/JSONL/Parquet, .gz ok), named layout, or an in-memory table.",
    )
    out: str | Path = shared.out()
    estimator: str = option(
        "length",
        help="Difficulty estimator spec (length, syntax, rarity, random, learned, sentinel:..., llm-judge:...).",
    )
    budget: int = option(100, min=1, help="Number of texts to keep (B).")
    stratify: str | None = option(None, choices=lambda: STRATIFY, help="Keep diversity: 'domain' or 'clusters'.")
    format: str | None = shared.format()
    src_col: str = option("src", help="Source text column (tables; named layouts decide their own).")
    domain_col: str | None = option(None, help="Domain column (for --stratify domain).")
    src_lang: str | None = option(None, help="Source language (BCP-47); named layouts give it.")
    tgt_lang: str | Sequence[str] = option(
        (),
        help="Target language (BCP-47), if the subset is meant for one pair; repeat it (or cs,de): a "
        "target-aware estimator's score is the mean over the languages (Sentinel section 6.1).",
        doc="Target language, if the subset is meant for one pair (default: none, or the layout's); several (a list "
        "or ``\"cs,de\"``): a target-aware estimator's score is the mean over them (the Sentinel paper's section "
        "6.1), and the records are for no single pair.",
    )
    lp: str | None = shared.lp("multi-pair layouts (e.g. en-de)")
    limit: int | None = shared.limit()
    quoting: str = shared.quoting()
    max_chars: int = shared.max_chars()
    skip_bad: bool = shared.skip_bad()
    engine: str = shared.engine(
        "Score with: local, or ray (RAY_ADDRESS or a local cluster; scores kept in "
        "OUT/scores/); the selection is the same.",
        lambda: ("local", "ray"),
    )
    actors: int | None = option(None, builds=False, help="Ray actors (default: one per CPU, or per GPU on cuda).")
    shard_size: int = shared.shard_size(500)


METHOD = Method("subset", SubsetOptions, "mtgauntlet.builders.subset:SubsetBuilder", "input", TEXT, EXAMPLE)
