"""`gauntlet build <method>`: one subcommand per builder. Each command calls its function in
:mod:`mtgauntlet.api.building` with the parsed options and prints what it returns."""

from __future__ import annotations

from typing import Any, List, Optional

import typer

from mtgauntlet.api.building import BREAKER_SHARD_SIZE
from mtgauntlet.builders.mtbreaker import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE
from mtgauntlet.cli.common import (build_result, format_option, json_option, limit_option, max_chars_option,
                                   overwrite_option, print_json, print_result, quoting_option, sample_option,
                                   seed_option, shard_size_option, skip_bad_option)
from mtgauntlet.cli.spend import dry_run_option, max_cost_option, max_requests_option

app = typer.Typer(help="Build a challenge set with one of the methods (writes Parquet shards + build.json).",
                  no_args_is_help=True)


def concurrency_option():
    return typer.Option(None, "--concurrency", min=1, help="Requests sent at once to openai: backends (default: "
                        "gauntlet --concurrency, MTGAUNTLET_CONCURRENCY or the spec's #concurrency, else 1); the "
                        "records are the same for any value.")


def print_build(build, json_out: bool) -> None:
    """What ``gauntlet build`` prints: the dry run's plan lines, else the summary (text or ``--json``)."""
    if build.plan is not None:
        typer.echo(build.describe())
    else:
        print_result(json_out, build.describe(), build_result(build.run))


def _call(method: str, params: dict[str, Any]):
    """(the build of a command's options, all but ``--json``, through the API function; ``--json``)."""
    from mtgauntlet.api.building import BUILDERS

    params = dict(params)
    json_out = params.pop("json_out")
    return BUILDERS[method](**params, progress=None), json_out


def _build(method: str, params: dict[str, Any]) -> None:
    """Run a build command and print its result."""
    print_build(*_call(method, params))


def breaker_shard_option():
    return typer.Option(None, "--shard-size", min=1, help=f"Items per resumable shard, advanced together (their model "
                        f"calls go out as one list per step) [default: {BREAKER_SHARD_SIZE}, or the shard size of the "
                        "build already in --out]. An LLM step sends one request per item of the shard, so requests in "
                        "flight are at most min(--concurrency, shard size); the records do not depend on it.")


@app.command("subset")
def build_subset(
    input: str = typer.Option(..., "--input", "-i", help="Corpus file (TSV/CSV/JSONL/Parquet, .gz ok) or named layout."),
    out: str = typer.Option(..., "--out", "-o", help="Output build directory."),
    estimator: str = typer.Option("length", help="Difficulty estimator spec (length, syntax, rarity, random, learned, sentinel:..., llm-judge:...)."),
    budget: int = typer.Option(100, min=1, help="Number of texts to keep (B)."),
    stratify: Optional[str] = typer.Option(None, help="Keep diversity: 'domain' or 'clusters'."),
    format: Optional[str] = format_option(),
    src_col: str = typer.Option("src", help="Source text column (tables; named layouts decide their own)."),
    domain_col: Optional[str] = typer.Option(None, help="Domain column (for --stratify domain)."),
    src_lang: Optional[str] = typer.Option(None, help="Source language (BCP-47); named layouts give it."),
    tgt_lang: List[str] = typer.Option([], help="Target language (BCP-47), if the subset is meant for one pair; "
                                       "repeat it (or cs,de): a target-aware estimator's score is the mean over the "
                                       "languages (Sentinel section 6.1)."),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for multi-pair layouts (e.g. en-de)."),
    limit: Optional[int] = limit_option(),
    quoting: str = quoting_option(),
    max_chars: int = max_chars_option(),
    seed: int = seed_option(),
    shard_size: int = shard_size_option(500),
    skip_bad: bool = skip_bad_option(),
    overwrite: bool = overwrite_option(),
    engine: str = typer.Option("local", help="Score with: local, or ray (RAY_ADDRESS or a local cluster; scores "
                                             "kept in OUT/scores/); the selection is the same."),
    actors: Optional[int] = typer.Option(None, help="Ray actors (default: one per CPU, or per GPU on cuda)."),
    concurrency: Optional[int] = concurrency_option(),
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
    dry_run: bool = dry_run_option(),
    json_out: bool = json_option("the build summary"),
):
    """Score a corpus with a difficulty estimator and keep the B hardest texts (selected_text records)."""
    _build("subset", locals())


@app.command("smaug")
def build_smaug(
    input: str = typer.Option(..., "--input", "-i", help="Parallel corpus (TSV/CSV/JSONL/Parquet, .gz ok) or named layout."),
    out: str = typer.Option(..., "--out", "-o", help="Output build directory."),
    src_lang: str = typer.Option(..., help="Source language (BCP-47)."),
    tgt_lang: str = typer.Option(..., help="Target language (BCP-47): the side that is perturbed."),
    format: Optional[str] = format_option(),
    src_col: str = typer.Option("src", help="Source column (tables; named layouts decide their own)."),
    ref_col: str = typer.Option("ref", help="Reference column (perturbed into the bad hypothesis)."),
    good_col: Optional[str] = typer.Option(None, help="Column with the good hypothesis (second reference or MT)."),
    good_from: Optional[str] = typer.Option(None, help="column | translator | reference. Items whose good equals the "
                                            "reference are rejected (good_equals_ref), as the paper; 'reference' is the "
                                            "explicit reference-free mode (good = reference, stated in the manifest)."),
    phenomena: str = typer.Option("ne,num,neg,ins,del", help="Comma-separated subset of ne,num,neg,ins,del."),
    translator: Optional[str] = typer.Option(None, help="Translator spec for the good hypothesis (e.g. apertium)."),
    infiller: Optional[str] = typer.Option(None, help="Infiller spec (mT5: hf:google/mt5-large); default: model-free."),
    nli: Optional[str] = typer.Option(None, help="NLI spec for the negation contradiction check (hf:roberta-large-mnli)."),
    require_nli: bool = typer.Option(False, "--require-nli", help="Drop neg records whose NLI check did not run "
                                     "(needs --nli); without it they are kept and flagged (nli_contradiction = null)."),
    annotator: Optional[str] = typer.Option(None, help="Annotator spec (default spacy:<tgt-lang>)."),
    polyjuice: Optional[str] = typer.Option(None, help="Polyjuice causal LM spec for negation (hf:uw-hai/polyjuice)."),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for multi-pair layouts (e.g. en-es)."),
    limit: Optional[int] = limit_option(),
    quoting: str = quoting_option(),
    max_chars: int = max_chars_option(),
    min_char_edit: int = typer.Option(5, min=0, help="ne: minimum character edit distance."),
    min_word_edit: int = typer.Option(8, min=0, help="ins: minimum word edit distance."),
    del_min_words: int = typer.Option(5, min=1, help="del: fewest words in the deleted span (reference implementation: > 4)."),
    del_max_words: int = typer.Option(9, min=1, help="del: most words in the deleted span (reference implementation: < 10)."),
    max_parse_chars: int = typer.Option(5000, min=1, help="Longest source or reference SMAUG parses and perturbs, in "
                                        "characters; longer rows are skipped and counted (too_long)."),
    ne_types: str = typer.Option("all", help="ne: entities to replace: all (the paper: every NER type, dates and "
                                 "numbers included) or names."),
    seed: int = seed_option(),
    shard_size: int = shard_size_option(200),
    skip_bad: bool = skip_bad_option(),
    concurrency: Optional[int] = concurrency_option(),
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
    dry_run: bool = dry_run_option(),
    json_out: bool = json_option("the build summary"),
    overwrite: bool = overwrite_option(),
):
    """SMAUG: (source, good, bad, reference, phenomenon) records; bad = reference with one critical error."""
    _build("smaug", locals())


QE_HELP = ("QE spec(s), comma-separated: several are averaged per text on the 0-100 quality scale (the paper: "
           "metricx:<MetricX-24-QE dir>,llm-as-qe:<llm>); qe, roundtrip, comet:..., hf:...#error=25 for 0-25 "
           "error scores.")


@app.command("mtbreaker")
def build_mtbreaker(
    seeds: str = typer.Option(..., "--seeds", help="Seed texts (TSV/CSV/JSONL/Parquet, or flores / wmt24 layouts)."),
    out: str = typer.Option(..., "--out", "-o", help="Output build directory (resumable)."),
    column: str = typer.Option("text", "--column", help="Seed text column (tables; named layouts decide their own)."),
    format: Optional[str] = format_option(),
    variant: str = typer.Option("seeded", help="seeded | seedless | seeded+qe | seedless+qe"),
    llm: Optional[str] = typer.Option(None, help="Editing LLM spec (default: embedded SmolLM2)."),
    mt: str = typer.Option("apertium", help="Target translator spec(s), comma-separated (several = multi)."),
    qe: str = typer.Option("qe", help=QE_HELP),
    steps: int = typer.Option(10, min=1, help="Edit steps after the initial source."),
    src_lang: str = typer.Option("en", help="Source language (BCP-47)."),
    tgt_lang: str = typer.Option("es", help="Target language (BCP-47)."),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for wmt24 seeds."),
    limit: Optional[int] = limit_option("seeds"),
    sample: Optional[int] = sample_option(),
    quoting: str = quoting_option(),
    max_chars: int = max_chars_option(),
    skip_bad: bool = skip_bad_option(),
    temperature: float = typer.Option(DEFAULT_TEMPERATURE, help="Sampling temperature of the LLM (zero-shot uses the "
                                                                "same default)."),
    max_tokens: int = typer.Option(DEFAULT_MAX_TOKENS, min=1, help="Generation budget per LLM answer; answers cut by "
                                                                   "it are unusable and counted ('truncated')."),
    grammatical_edits: bool = typer.Option(False, "--grammatical-edits", help="Add 'Only make grammatical edits' to "
                                           "every follow-up (section 3.7 of the paper; not in its Appendix B prompts)."),
    language_guard: bool = typer.Option(False, "--language-guard/--no-language-guard",
                                        help="Reject proposals not detected as --src-lang (lingua; not in the paper, "
                                             "stated in the card when on)."),
    seed: int = seed_option(),
    shard_size: Optional[int] = breaker_shard_option(),
    concurrency: Optional[int] = concurrency_option(),
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
    dry_run: bool = dry_run_option(),
    json_out: bool = json_option("the build summary"),
    overwrite: bool = overwrite_option(),
):
    """MT-breaker: an LLM edits each seed step by step until the target MT model translates it badly."""
    _build("mtbreaker", locals())


@app.command("zeroshot")
def build_zeroshot(
    seeds: str = typer.Option(..., "--seeds", help="Seed texts: only their lengths are used (length matching)."),
    out: str = typer.Option(..., "--out", "-o", help="Output build directory (resumable)."),
    column: str = typer.Option("text", "--column", help="Seed text column (tables; named layouts decide their own)."),
    format: Optional[str] = format_option(),
    variant: str = typer.Option("plain", help="plain | history | min"),
    llm: Optional[str] = typer.Option(None, help="Generating LLM spec (default: embedded SmolLM2)."),
    mt: str = typer.Option("apertium", help="Target translator spec(s), comma-separated (several = multi)."),
    qe: str = typer.Option("qe", help=QE_HELP),
    generations: int = typer.Option(10, "--generations", "--n", help="Texts generated per item by the 'min' variant "
                                                                     "(the most difficult is kept)."),
    src_lang: str = typer.Option("en", help="Source language (BCP-47)."),
    tgt_lang: str = typer.Option("es", help="Target language (BCP-47)."),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for wmt24 seeds."),
    limit: Optional[int] = limit_option("seeds"),
    sample: Optional[int] = sample_option(),
    quoting: str = quoting_option(),
    max_chars: int = max_chars_option(),
    skip_bad: bool = skip_bad_option(),
    temperature: float = typer.Option(DEFAULT_TEMPERATURE, help="Sampling temperature (MT-breaker's default)."),
    max_tokens: int = typer.Option(DEFAULT_MAX_TOKENS, min=1, help="Generation budget per LLM answer; answers cut by "
                                                                   "it are unusable and counted ('truncated')."),
    history_size: Optional[int] = typer.Option(None, "--history-size", min=1, help="'history' variant: list only the "
                                               "last N earlier texts (default: all, as the paper; the card states a cap)."),
    language_guard: bool = typer.Option(False, "--language-guard/--no-language-guard",
                                        help="Reject texts not detected as --src-lang (lingua; not in the paper, "
                                             "stated in the card when on)."),
    seed: int = seed_option(),
    shard_size: Optional[int] = breaker_shard_option(),
    concurrency: Optional[int] = concurrency_option(),
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
    dry_run: bool = dry_run_option(),
    json_out: bool = json_option("the build summary"),
    overwrite: bool = overwrite_option(),
):
    """Zero-shot baselines: one generation per item, with history, or the most difficult of n (min)."""
    _build("zeroshot", locals())


@app.command("bandit")
def build_bandit(
    out: str = typer.Option(..., "--out", "-o", help="Output directory: pull log (pulls/), topic_text records (data/)."),
    corpus: Optional[str] = typer.Option(None, "--corpus", help="Local corpus to sample texts from (flores, wmt24, any table)."),
    topics: Optional[str] = typer.Option(None, "--topics", help="Taxonomy YAML/JSON; texts retrieved by e5 similarity."),
    llm_topics: Optional[str] = typer.Option(None, "--llm-topics", help="Generate a topic tree for each of these root "
                                             "domains (comma-separated; 'paper': science,business,law,education,"
                                             "culture) with --llm."),
    topic_levels: int = typer.Option(2, "--topic-levels", min=1, help="Levels of subtopics beneath each root of "
                                     "--llm-topics (the paper: 4, five levels with the roots)."),
    topic_branching: int = typer.Option(5, "--topic-branching", min=1, help="Subtopics of each topic of "
                                        "--llm-topics (the paper: 5)."),
    llm: Optional[str] = typer.Option(None, "--llm", help="LLM spec for --llm-topics or --sampler llm."),
    sampler: str = typer.Option("corpus", help="corpus (offline) | llm (search-grounded LLM, paper prompt)."),
    topic_column: Optional[str] = typer.Option(None, help="Corpus column with topic labels (flores: topic, wmt24: domain)."),
    text_column: str = typer.Option("src", help="Corpus text column (tables; named layouts decide their own)."),
    format: Optional[str] = format_option(),
    quoting: str = quoting_option(),
    max_chars: int = max_chars_option(),
    skip_bad: bool = skip_bad_option(),
    algorithm: str = typer.Option("eps-greedy", help="brute | greedy | eps-greedy | contextual | ucb"),
    budget: int = typer.Option(300, min=1, help="Pulls (sample + translate + QE), cost 1 each; failed pulls cost too."),
    k: int = typer.Option(10, min=1, help="Topics to return."),
    cap: int = typer.Option(10, min=0, help="Max pulls per topic (the paper's c; 0 = no cap)."),
    epsilon: float = typer.Option(0.7, min=0.0, max=1.0,
                                  help="eps-greedy: probability of exploring an unsampled topic (paper: 0.7)."),
    batch: int = typer.Option(1, min=1, help="Topics chosen per step (batched variants)."),
    prescore: Optional[int] = typer.Option(None, help="Pre-score a replay pool instead: N samples per topic "
                                                      "(brute force, cap N, budget N x topics; the paper used 25). "
                                                      "Then: gauntlet evaluate bandit --pool OUT."),
    mt: str = typer.Option("apertium", help="Translator spec(s), comma-separated (artificial crowd)."),
    qe: str = typer.Option("qe", help="QE spec(s), comma-separated, averaged per text on 0-100 (qe, roundtrip, "
                                      "llm-as-qe:..., metricx:..., hf:...#error=25)."),
    src_lang: str = typer.Option("en", help="Source language (BCP-47)."),
    tgt_lang: str = typer.Option("es", help="Target language (BCP-47)."),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for multi-pair corpora (wmt24)."),
    min_words: int = typer.Option(20, min=1, help="Shortest text sampled (corpus row or LLM snippet), in words "
                                  "(paper: 20-40)."),
    max_words: int = typer.Option(40, min=1, help="Longest text sampled (corpus row or LLM snippet), in words."),
    seed: int = seed_option(),
    concurrency: Optional[int] = concurrency_option(),
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
    dry_run: bool = dry_run_option(),
    json_out: bool = json_option("the build summary"),
    overwrite: bool = overwrite_option(),
):
    """Search for the hardest topics with a bandit; writes the pull log and topic_text records."""
    built, json_out = _call("bandit", locals())
    if json_out and built.plan is None:
        m = built.summary
        print_json({"out": out, "counts": m["counts"], "top_topics": m["top_topics"], "signature": m["signature"],
                    "skipped": built.skipped})
    else:
        typer.echo(built.describe())
