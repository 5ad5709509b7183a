"""The options of ``gauntlet evaluate metric|dec|breaker|bandit`` and ``gauntlet simulate bandit`` (the functions of
`mtgauntlet.api.evaluating`), declared once (`mtgauntlet.options`): the commands' typer options, the functions'
signatures, docstring ``Args`` and range/choice checks are made from these dataclasses."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet import shared_options as shared
from mtgauntlet.api.checks import engine_names, judgment_formats
from mtgauntlet.evaluation.dec_selection import SELECTIONS
from mtgauntlet.options import REQUIRED, option
from mtgauntlet.validators.set_measures import CHRF_REFERENCES, TOKENIZATIONS
from mtgauntlet.workbench import registry

Names = str | Sequence[str] | None  # comma-separated on the command line; a list too in Python


def tie_rules() -> tuple[str, ...]:
    from mtgauntlet.evaluation.metric_robustness import TIES

    return tuple(TIES)


@dataclass(kw_only=True, frozen=True)
class EvaluateMetricOptions(shared.Budget):
    """Metrics on challenge sets. --set: one set, Kendall-like tau and d (SMAUG eq. 1-2) per metric, phenomenon and
    lp; mean ± std of tau over lps (SMAUG Figures 4-7) and the Pearson correlation of tau and d (Figure 8). --out:
    every pair and human-judgment set of the catalog, scores stored with the leaderboard's statistics."""

    set: Any = option(
        None,
        flags=("--set", "-s"),
        help="One set: build/release dir or Parquet of smaug_pair, DEMETR "
        "JSONL or ACES TSV (prints tau and d, stores nothing).",
        doc="One set: a build/release directory or Parquet of ``smaug_pair`` records, DEMETR JSONL or "
        "ACES TSV, or the pairs as a DataFrame, ``datasets.Dataset`` or list of dicts.",
    )
    metric: Any = option(
        ("chrf",),
        flags=("--metric", "-m"),
        help=f"A registered metric: {registry.described()}; col:GOODCOL,BADCOL (pairs), "
        "col:NAME (human-judgment sets), or a QE spec (qe, roundtrip, comet:..., llm-as-qe:...); "
        "several: repeat or comma-separate.",
        doc=f"A registered metric ({', '.join(registry.names())}: `mtgauntlet.workbench.registry`), "
        "``col:GOODCOL,BADCOL`` (pairs) or ``col:NAME`` (human-judgment sets), or a "
        "QE spec: one, a list, or comma-separated; with ``out`` also a Python callable "
        "``(src, hyp, ref, src_lang, tgt_lang) -> list[float]``.",
    )
    releases: str | Path = option("releases", flags=("--releases", "-r"), help="With --out: the catalog (releases).")
    sets: Names = option(
        None,
        help="With --out: only these sets: NAME (latest version), "
        "NAME@VERSION, comma-separated, or a SELECT over the catalog returning name, version "
        "(default: every smaug_pair, challenge_pair and human_score release, latest versions).",
    )
    out: str | Path | None = shared.out(
        "Score the whole catalog into this "
        "results folder (stored scores + leaderboard, sealed; only what is new "
        "is scored; a killed run resumes).",
        None,
    )
    engine: str = shared.engine(
        "With --out: local, or ray (chunks scored on Ray workers; the same scores).", engine_names
    )
    gold: Names = option(
        None,
        help="With --out: the human scores to compare with (default: "
        "those named like mqm, da_sqm, esa), comma-separated.",
    )
    ci_resamples: int = option(
        1000,
        min=1,
        help="With --out: bootstrap resamples of the 95% intervals (and permutations of soft pairwise accuracy).",
    )
    sig_resamples: int = option(
        1000,
        min=1,
        help="With --out: permutation resamples of the significance tests between metrics (the leaderboard's "
        "cluster column).",
    )
    error_free_threshold: float | None = option(
        None,
        help="With --out, sets with error spans: error_free_f1 of a metric without spans, a score strictly above "
        "this saying the translation is error-free (WMT26's binary task).",
    )
    shard_size: int = option(
        10_000, min=1, help="With --out: items scored and stored at a time (a killed run loses at most one such chunk)."
    )
    lp: Names = shared.only(
        "language pairs", "With --set: only these language pairs (comma-separated, e.g. es-en,de-en)."
    )
    phenomena: Names = shared.only("phenomena", "With --set: only these phenomena (comma-separated).")
    ties: str = option(
        "discordant",
        choices=tie_rules,
        help="With --set: discordant: a tie counts against the "
        "metric (WMT challenge-set evaluation); ignore: ties in neither count (SMAUG eq. 1 as written).",
    )


@dataclass(kw_only=True, frozen=True)
class EvaluateDecOptions(shared.Budget):
    """Difficulty Estimation Correlation (group-by-system Kendall tau_b, averaged over systems then lps)."""

    judgments: Any = option(
        REQUIRED,
        flags=("--judgments", "-j"),
        help="Judgment table (lp,item_id,src,system,"
        "score[,tgt,protocol,is_human_ref]); gz ok; or google-mqm / wmt23-mtme / wmt23-esa files.",
    )
    estimator: str = option(
        "length", flags=("--estimator", "-e"), help="Difficulty estimator spec(s), comma-separated."
    )
    format: str | None = option(
        None,
        choices=judgment_formats,
        help="google-mqm, wmt23-mtme, wmt23-esa, or a plain table format (tsv, csv, jsonl, parquet, hf).",
    )
    map: str | None = option(
        None, help="Column mapping ours=theirs, e.g. score=esa_score_mean,item_id=line_id,human=is_ref."
    )
    protocol: str | None = option(
        None,
        help="esa, mqm or da for a plain table without a protocol column; "
        "inferred as mqm when every score is <= 0, required otherwise (%Perfect: 100 for "
        "esa/da, 0 for mqm).",
    )
    include_human: bool = option(
        True,
        flags=("--include-human/--exclude-human",),
        help="Count human translations as translators, as the paper's DEC does (default), or only MT systems.",
    )
    lp: Names = shared.only("language pairs", "Only these language pairs (comma-separated).")
    fraction: float = option(
        0.25, min=0.01, max=1.0, help="Budget fraction for AvgScore / %Perfect of the hardest subset."
    )
    selection: str = option(
        "per-pair",
        choices=lambda: SELECTIONS,
        help="per-pair: the hardest --fraction of each language pair by its own scores; source-set (Sentinel "
        "section 6.1): a source's score averaged over the pairs that translate it, one hardest set of sources "
        "for every target language (DEC uses the averaged score too).",
    )
    quoting: str = shared.quoting()
    out: str | Path | None = shared.out(
        "Also store the results as "
        "leaderboard rows (estimator x judgment file) in this results folder of "
        "`evaluate metric --out`.",
        None,
    )


@dataclass(kw_only=True, frozen=True)
class EvaluateBreakerOptions(shared.Budget):
    """Step curve (Figure 2), Table 2's data-quality measures per method, with --mt the model-transfer matrix
    (Table 4), with several target languages the language-transfer table (Table 5)."""

    set: Any = option(
        REQUIRED,
        flags=("--set", "-s"),
        help="Build/release dir(s) with breaker_text records, "
        "comma-separated (e.g. one build per target language for --langs).",
    )
    plot: str | Path | None = option(None, help="Write the step curve (Figure 2) as PNG here.")
    mt: Names = option(
        None,
        help="Evaluation translators (comma-separated): the transfer matrix "
        "(Table 4); with --langs, the translators of Table 5.",
    )
    qe: str | None = option(
        None,
        help="QE spec(s) for --mt / --langs, comma-separated and averaged (default: the QE the set was built with).",
    )
    langs: Names = option(
        None,
        help="Target languages for the language-transfer table (Table 5), "
        "comma-separated (default: the sets' own, when several).",
    )
    judge: str | None = option(
        None,
        help="LLM spec: the appendix's source-text analysis "
        "(Table 2's naturalness, topic diversity, LLM-rated grammaticality, rarity, syntax) "
        "and target-text analysis (error-type diversity) prompts.",
    )
    embedder: str | None = option(None, help="Embedder spec (e.g. e5) for embedding diversity.")
    lm: bool = option(False, help="Also compute LM naturalness with the embedded LLM (offline; slow).")
    difficulty: Names = option(
        None,
        help="Source-only difficulty estimator spec(s), "
        "comma-separated (e.g. learned, sentinel:...): their mean per method, in place of the "
        "paper's SRCQE row.",
    )
    words: str = option(
        "whitespace",
        choices=lambda: tuple(TOKENIZATIONS),
        help="Words of Table 2's unique-word count, word count and word length: whitespace (the paper's "
        "Seeds column: 4.69 characters, 1,566 words) or word-runs (\\w+ runs, the toolkit's earlier count).",
    )
    chrf_references: str = option(
        "all-others",
        choices=lambda: CHRF_REFERENCES,
        help="chrF++ diversity: all-others (each text against all the others as references, corpus level; "
        "reproduces the paper's 0.76 for seeds) or pairwise (1 - mean pairwise sentence chrF, the earlier one).",
    )


@dataclass(kw_only=True, frozen=True)
class EvaluateBanditOptions:
    """Replay bandit algorithms over a pre-scored pool and report the TRUE mean difficulty (mean of all pooled
    samples) of the top-1 and top-k topics they select at each budget (the bandit paper's Figure 2 protocol)."""

    pool: Any = option(
        REQUIRED,
        help="Pre-scored pool: a `build bandit --prescore N` output "
        "directory, or a table with topic and difficulty columns.",
    )
    algorithms: str | Sequence[str] = option(
        "brute,greedy,eps-greedy,greedy-10%",
        help="brute, greedy, eps-greedy, contextual "
        "(slow on large pools), ucb, greedy-10% (greedy on a random 10% of the topics, the paper's baseline).",
    )
    budgets: str | Sequence[int] | None = option(
        None, help="Budgets in pulls, comma-separated (default: 0.25, 0.5, 1, 1.5, 2 and 3 pulls per topic)."
    )
    k: int = option(10, min=1, help="Size of the selected topic set (top-k).")
    cap: int = option(10, min=0, help="Max pulls per topic (the paper's c; 0 = no cap).")
    epsilon: float = option(0.7, min=0.0, max=1.0, help="eps-greedy: probability of exploring (paper: 0.7).")
    repeats: int = option(5, min=1, help="Replays per algorithm (sample order and choices re-drawn).")
    seed: int = option(13, help="Random seed of the replays.")
    min_samples: int = option(25, min=1, help="Leave out (and count) topics with fewer scored samples (the paper: 25).")
    plot: str | Path | None = option(None, help="PNG: true top-1 / top-k difficulty vs budget (Figure 2).")


@dataclass(kw_only=True, frozen=True)
class SimulateBanditOptions:
    """Compare algorithms against the oracle top-k at equal budgets on synthetic topics."""

    topics: int = option(1_000_000, min=1, help="Number of synthetic topics.")
    budget: int = option(1_500_000, min=1, help="Pulls (cost 1 each).")
    algorithms: str | Sequence[str] = option("eps-greedy,greedy,brute", help="brute, greedy, eps-greedy, ucb.")
    k: int = option(10, min=1, help="Size of the selected topic set (top-k).")
    cap: int | None = option(
        10,
        min=0,
        help="Max pulls per topic (the paper's c; 0 = no cap).",
        doc="Max pulls per topic (the paper's c; 0 or ``None`` = no cap).",
    )
    epsilon: float = option(0.7, min=0.0, max=1.0, help="eps-greedy: probability of exploring an unsampled topic.")
    batch: int = option(1, min=1, help="Topics chosen per step (batched variants).")
    sigma: float | None = option(None, min=0.0, help="Within-topic sd (default: mixture's).")
    fit: str | Path | None = option(None, help="Fit the mixture to a real search's output dir (pull log).")
    sizes: str | Sequence[int] | None = option(
        None,
        help="Only the oracle top-1/top-k at "
        "these topic-set sizes (comma-separated, e.g. "
        "3200,32000,320000; Figure 5).",
    )
    seed: int = option(13, help="Seed of the topic sample and of the algorithms.")
    plot: str | Path | None = option(
        None, help="PNG: top-k difficulty vs budget (0.5/1/1.5/3 pulls per topic) and the topic-difficulty mixture."
    )
