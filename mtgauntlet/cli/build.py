"""`gauntlet build <method>`: one subcommand per builder."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Optional

import typer

from mtgauntlet.runner.build_runner import BuildRunner
from mtgauntlet.builders.base import iter_items
from mtgauntlet.builders.mtbreaker import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE
from mtgauntlet.cli.common import (comma_list, format_option, lang_pair, limit_option, load_corpus, max_chars_option,
                                   one_pair, overwrite_option, quoting_option, seed_option, shard_size_option,
                                   skip_bad_option, skipped_note, json_option, print_json, report_build)
from mtgauntlet.cli.spend import budget as spend_budget, dry_run_option, max_cost_option, max_requests_option, print_plan
from mtgauntlet.runner.progress import info

app = typer.Typer(help="Build a challenge set with one of the methods (writes Parquet shards + build.json).",
                  no_args_is_help=True)
BREAKER_SHARD_SIZE = 16  # items advanced together by mtbreaker/zeroshot (requests in flight <= items per shard)


def concurrency_option():
    return typer.Option(None, "--concurrency", min=1, help="Requests sent at once to openai: backends (default: "
                        "gauntlet --concurrency, MTGAUNTLET_CONCURRENCY or the spec's #concurrency, else 1); the "
                        "records are the same for any value.")


@contextlib.contextmanager
def api_concurrency(n: Optional[int]):
    """``--concurrency N`` of one build: the default of every openai: backend loaded inside (as the global option),
    restored afterwards so that later commands in the same process (a recipe) do not inherit it."""
    from mtgauntlet.models.runtime import ENV, set_defaults

    old = os.environ.get(ENV["concurrency"])
    if n is not None:
        set_defaults(concurrency=n)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(ENV["concurrency"], None)
        else:
            os.environ[ENV["concurrency"]] = old


def breaker_shard_size(requested: Optional[int], out: str, builder: str, overwrite: bool) -> int:
    """``--shard-size`` of mtbreaker/zeroshot: as given; else the shard size of the build of the same builder already
    in ``out`` (builds started before batching used 1), so that a plain re-run resumes it; else the default."""
    if requested is not None:
        return requested
    path = Path(out) / "build.json"
    if not overwrite and path.is_file():
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            manifest = None
        if isinstance(manifest, dict) and manifest.get("builder") == builder:
            size = manifest.get("shard_size")
            if isinstance(size, int) and size >= 1:
                return size
    return BREAKER_SHARD_SIZE


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
    tgt_lang: Optional[str] = typer.Option(None, help="Target language (BCP-47), if the subset is meant for one pair."),
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
    from mtgauntlet.builders.subset import SubsetBuilder

    src_lang, tgt_lang = lang_pair(src_lang, tgt_lang)
    rows = load_corpus(input, format=format, src_col=src_col, ref_col=None, src_lang=src_lang, tgt_lang=tgt_lang,
                       limit=limit, skip_bad=skip_bad, columns={"domain": domain_col} if domain_col else None, lp=lp,
                       quoting=quoting, max_chars=max_chars)
    src_lang, tgt_lang = one_pair(rows, src_lang, tgt_lang)
    with api_concurrency(concurrency), spend_budget(max_cost, max_requests):
        builder = SubsetBuilder(estimator=estimator, budget=budget, stratify=stratify, src_lang=src_lang,
                                tgt_lang=tgt_lang, engine=engine, work_dir=Path(out) / "scores", actors=actors)
        builder.estimator  # load the estimator now: a bad spec fails before anything is written
        if dry_run:
            from mtgauntlet.models.estimate import role_plan

            print_plan(role_plan(builder.estimator, [r["src"] for r in rows.rows], None, src_lang, tgt_lang))
            return
        summary = BuildRunner(builder, out, seed=seed, shard_size=shard_size, overwrite=overwrite).run(
            iter_items(rows.rows), rows.skipped_counts())
    report_build(summary, json_out)


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
    from mtgauntlet.builders.smaug import SmaugBuilder

    src_lang, tgt_lang = lang_pair(src_lang, tgt_lang)
    rows = load_corpus(input, format=format, src_col=src_col, ref_col=ref_col, src_lang=src_lang, tgt_lang=tgt_lang,
                       limit=limit, skip_bad=skip_bad, columns={"good": good_col} if good_col else None, lp=lp,
                       quoting=quoting, max_chars=max_chars)
    with api_concurrency(concurrency), spend_budget(max_cost, max_requests):
        builder = SmaugBuilder(src_lang=src_lang, tgt_lang=tgt_lang, phenomena=comma_list(phenomena),
                               translator=translator, infiller=infiller, nli=nli, annotator=annotator,
                               polyjuice=polyjuice, good_col=good_col, good_from=good_from,
                               min_char_edit=min_char_edit, min_word_edit=min_word_edit, del_min_words=del_min_words,
                               del_max_words=del_max_words, require_nli=require_nli, seed=seed,
                               max_parse_chars=max_parse_chars, ne_types=ne_types)
        for ph, (ok, how) in builder.support.items():
            if ph in builder.phenomena:
                info(f"  {ph}: {how}")
        for why in builder.flags().values():
            info(f"  note: {why}")
        if dry_run:
            from mtgauntlet.models.estimate import smaug_plan

            print_plan(smaug_plan(builder, list(iter_items(rows.rows))))
            return
        summary = BuildRunner(builder, out, seed=seed, shard_size=shard_size, overwrite=overwrite).run(
            iter_items(rows.rows), rows.skipped_counts())
    report_build(summary, json_out)


def _seed_rows(seeds: str, column: str, format: Optional[str], src_lang: str, tgt_lang: str, limit: Optional[int],
               lp: Optional[str], quoting: str, max_chars: int, skip_bad: bool):
    """Seed texts (source side only) of any table or named layout, with the reader's skip counts."""
    return load_corpus(seeds, format=format, src_col=column, ref_col=None, src_lang=src_lang, tgt_lang=tgt_lang,
                       limit=limit, lp=lp, quoting=quoting, max_chars=max_chars, skip_bad=skip_bad)


QE_HELP = ("QE spec(s), comma-separated: several are averaged per text on the 0-100 quality scale (the paper: "
           "metricx:<MetricX-24-QE dir>,llm-as-qe:<llm>); qe, roundtrip, comet:..., hf:...#error=25 for 0-25 "
           "error scores.")


def _run_breaker_build(make_builder, name: str, rows, out: str, seed: int, overwrite: bool,
                       shard_size: Optional[int], concurrency: Optional[int], dry_run: bool = False,
                       max_cost: Optional[float] = None, max_requests: Optional[int] = None,
                       json_out: bool = False) -> None:
    """MT-breaker / zero-shot: the builder made and run under ``--concurrency`` and the budget with the resumable
    shard size; prints the summary with the failure counts (also in build.json: counts.failures)."""
    with api_concurrency(concurrency), spend_budget(max_cost, max_requests):
        builder = make_builder()
        if dry_run:
            from mtgauntlet.models.estimate import breaker_plan

            print_plan(breaker_plan(builder, iter_items(rows.rows)))
            return
        summary = BuildRunner(builder, out, seed=seed, overwrite=overwrite,
                              shard_size=breaker_shard_size(shard_size, out, name, overwrite)).run(
            iter_items(rows.rows), rows.skipped_counts())
    report_build(summary, json_out)


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
    sample: Optional[int] = typer.Option(None, "--sample", min=1, help="Seeds drawn at random from the rows read "
                                         "(the paper: 100): the N with the smallest hash of (--seed, source id, text), "
                                         "so editing other rows keeps a seed in or out."),
    quoting: str = quoting_option(),
    max_chars: int = max_chars_option(),
    skip_bad: bool = skip_bad_option(),
    temperature: float = typer.Option(DEFAULT_TEMPERATURE, help="Sampling temperature of the LLM (zero-shot uses the "
                                                                "same default)."),
    max_tokens: int = typer.Option(DEFAULT_MAX_TOKENS, min=1, help="Generation budget per LLM answer; answers cut by "
                                                                   "it are unusable and counted ('truncated')."),
    grammatical_edits: bool = typer.Option(False, "--grammatical-edits", help="Add 'Only make grammatical edits' to "
                                           "every follow-up (section 3.7 of the paper; not in its Appendix B prompts)."),
    language_guard: bool = typer.Option(True, "--language-guard/--no-language-guard",
                                        help="Reject proposals not detected as --src-lang (lingua)."),
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
    from mtgauntlet.builders.mtbreaker import MTBreakerBuilder, keyed_sample

    src_lang, tgt_lang = lang_pair(src_lang, tgt_lang)
    rows = _seed_rows(seeds, column, format, src_lang, tgt_lang, limit, lp, quoting, max_chars, skip_bad)
    rows.rows = keyed_sample(rows.rows, sample, seed)
    _run_breaker_build(lambda: MTBreakerBuilder(variant=variant, llm=llm, mt=comma_list(mt), qe=qe, steps=steps,
                                                src_lang=src_lang, tgt_lang=tgt_lang, temperature=temperature,
                                                max_tokens=max_tokens, language_guard=language_guard,
                                                grammatical_edits=grammatical_edits, sample=sample),
                       "mtbreaker", rows, out, seed, overwrite, shard_size, concurrency, dry_run, max_cost, max_requests,
                       json_out)


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
    quoting: str = quoting_option(),
    max_chars: int = max_chars_option(),
    skip_bad: bool = skip_bad_option(),
    temperature: float = typer.Option(DEFAULT_TEMPERATURE, help="Sampling temperature (MT-breaker's default)."),
    max_tokens: int = typer.Option(DEFAULT_MAX_TOKENS, min=1, help="Generation budget per LLM answer; answers cut by "
                                                                   "it are unusable and counted ('truncated')."),
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
    from mtgauntlet.builders.zeroshot import ZeroShotBuilder

    src_lang, tgt_lang = lang_pair(src_lang, tgt_lang)
    rows = _seed_rows(seeds, column, format, src_lang, tgt_lang, limit, lp, quoting, max_chars, skip_bad)
    _run_breaker_build(lambda: ZeroShotBuilder(variant=variant, llm=llm, mt=comma_list(mt), qe=qe, src_lang=src_lang,
                                               tgt_lang=tgt_lang, generations=generations, temperature=temperature,
                                               max_tokens=max_tokens),
                       "zeroshot", rows, out, seed, overwrite, shard_size, concurrency, dry_run, max_cost, max_requests,
                       json_out)


@app.command("bandit")
def build_bandit(
    out: str = typer.Option(..., "--out", "-o", help="Output directory: pull log (pulls/), topic_text records (data/)."),
    corpus: Optional[str] = typer.Option(None, "--corpus", help="Local corpus to sample texts from (flores, wmt24, any table)."),
    topics: Optional[str] = typer.Option(None, "--topics", help="Taxonomy YAML/JSON; texts retrieved by e5 similarity."),
    llm_topics: Optional[str] = typer.Option(None, "--llm-topics", help="Generate a topic tree for this domain with --llm."),
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
    min_words: int = typer.Option(20, min=1, help="Shortest corpus text sampled, in words (paper: 20-40)."),
    max_words: int = typer.Option(40, min=1, help="Longest corpus text sampled, in words."),
    seed: int = seed_option(),
    concurrency: Optional[int] = concurrency_option(),
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
    dry_run: bool = dry_run_option(),
    json_out: bool = json_option("the build summary"),
    overwrite: bool = overwrite_option(),
):
    """Search for the hardest topics with a bandit; writes the pull log and topic_text records."""
    import math

    from mtgauntlet.builders.bandit import BanditSearch
    from mtgauntlet.builders.bandit import topics as T
    from mtgauntlet.builders.bandit.sampler import CorpusSampler, LLMSampler
    from mtgauntlet.corpora.formats import sniff_named_format
    from mtgauntlet.errors import GauntletError
    from mtgauntlet.models import registry

    from mtgauntlet.runner.build_runner import input_digest

    with api_concurrency(concurrency), spend_budget(max_cost, max_requests):  # every model below is loaded with it
        src_lang, tgt_lang = lang_pair(src_lang, tgt_lang)
        rows, read = [], None
        if corpus:
            read = load_corpus(corpus, format=format, src_col=text_column, ref_col=None, src_lang=src_lang,
                               tgt_lang=tgt_lang, lp=lp, quoting=quoting, max_chars=max_chars, skip_bad=skip_bad)
            rows = read.rows
        named = format or (sniff_named_format(corpus) if corpus else None)
        label = topic_column or ({"flores": "topic", "wmt24": "domain"}.get(named)
                                 if not (topics or llm_topics) else None)
        tree = None
        if topics:
            topic_list = T.from_taxonomy(topics)
        elif llm_topics and dry_run:  # the tree is asked for, not known: the sampler's prompts name the domain
            tree, topic_list = (registry.load("llm", llm), T.tree_prompt(llm_topics)), [T.Topic(llm_topics, [])]
        elif llm_topics:
            topic_list = T.from_llm(registry.load("llm", llm), llm_topics)
            if not topic_list:
                raise GauntletError(f"the LLM ({llm or 'embedded default'}) gave no topic for --llm-topics "
                                    f"{llm_topics!r}: its answer held an empty tree")
        elif label:
            topic_list = T.from_column(rows, label)
            if not topic_list:
                raise GauntletError(f"{corpus}: the topic column {label!r} holds no value")
        else:
            raise typer.BadParameter("give --topics FILE, --llm-topics DOMAIN, or a --corpus with --topic-column")
        if sampler == "llm":
            llm_sampler = LLMSampler(registry.load("llm", llm))
            samp = _TopicAdapter(llm_sampler, topic_list)
        else:
            if not rows:
                raise typer.BadParameter("the corpus sampler needs --corpus")
            samp = CorpusSampler(rows, topic_list, text_key="src", label_key=label, min_words=min_words,
                                 max_words=max_words, seed=seed)
        if prescore is not None:
            if prescore < 1:
                raise GauntletError("--prescore must be >= 1")
            algorithm, cap, budget = "brute", prescore, prescore * len(topic_list)
        if dry_run:
            if tree is not None and prescore is not None:
                raise GauntletError("--dry-run with --llm-topics and --prescore: the number of pulls depends on the "
                                    "topics the LLM answers; dry-run with --budget instead")
            from mtgauntlet.builders.mtbreaker import Scorer
            from mtgauntlet.models.estimate import bandit_plan

            print_plan(bandit_plan(Scorer(comma_list(mt), qe, src_lang, tgt_lang), budget, [t.name for t in topic_list],
                                   max_words, src_lang, tgt_lang, llm_sampler if sampler == "llm" else None, tree))
            return
        source = corpus.rsplit("/", 1)[-1].split(".")[0] if corpus else "llm"
        digest = input_digest(iter_items([*({"topic": t.name, "path": t.path} for t in topic_list), *rows]))
        search = BanditSearch(topic_list, samp, mt=comma_list(mt), qe=qe,
                              algorithm=algorithm, budget=budget, k=k, cap=math.inf if not cap else cap,
                              epsilon=epsilon, batch=batch, seed=seed, src_lang=src_lang, tgt_lang=tgt_lang,
                              source=source, input_sha256=digest)
        m = search.run(out, overwrite=overwrite)
    c = m["counts"]
    if json_out:
        print_json({"out": out, "counts": c, "top_topics": m["top_topics"], "signature": m["signature"],
                    "skipped": read.skipped_counts() if read is not None else {}})
    else:
        typer.echo(f"{c['pulls']} pulls over {len(topic_list)} topics ({c['scored_pulls']} scored; failed: "
                   f"mt={c['mt_failures']}, qe={c['qe_failures']}); top-{k}:")
        for t in m["top_topics"]:
            typer.echo(f"  {t['mean_difficulty']:6.2f}  ({t['pulls']} pulls)  {t['topic']}")
        typer.echo(f"signature: {m['signature']}" + (skipped_note(read) if read is not None else ""))
    if c["pulls"] and not c["scored_pulls"]:
        raise GauntletError(f"none of the {c['pulls']} pulls got a score (mt={c['mt_failures']}, "
                            f"qe={c['qe_failures']}): check --mt / --qe")


class _TopicAdapter:
    """Index-based interface over a sampler that takes Topic objects (the LLM sampler)."""

    def __init__(self, sampler, topics):
        self.sampler, self.topics, self.rows = sampler, topics, []

    def sample(self, t, used, rng):
        return self.sampler.sample(self.topics[t], used, rng)

    def sample_many(self, ts, used, rng):
        return self.sampler.sample_many([self.topics[t] for t in ts], used, rng)
