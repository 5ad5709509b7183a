"""`gauntlet build <method>`: one subcommand per builder."""

from __future__ import annotations

from typing import Optional

import typer

from mtgauntlet.runner.build_runner import BuildRunner
from mtgauntlet.builders.base import iter_items
from mtgauntlet.cli.common import comma_list, load_corpus, summary_line

app = typer.Typer(help="Build a challenge set with one of the methods (writes Parquet shards + build.json).",
                  no_args_is_help=True)


@app.command("subset")
def build_subset(
    input: str = typer.Option(..., "--input", "-i", help="Corpus file (TSV/CSV/JSONL/Parquet, .gz ok) or named layout."),
    out: str = typer.Option(..., "--out", "-o", help="Output build directory."),
    estimator: str = typer.Option("length", help="Difficulty estimator spec (length, syntax, rarity, random, learned, sentinel:..., llm-judge:...)."),
    budget: int = typer.Option(100, help="Number of texts to keep (B)."),
    stratify: Optional[str] = typer.Option(None, help="Keep diversity: 'domain' or 'clusters'."),
    format: Optional[str] = typer.Option(None, help="Input layout: tsv, csv, jsonl, parquet, flores, wmt24, parallel-samples."),
    src_col: str = typer.Option("src", help="Source text column."),
    domain_col: Optional[str] = typer.Option(None, help="Domain column (for --stratify domain)."),
    src_lang: Optional[str] = typer.Option(None, help="Source language (BCP-47)."),
    tgt_lang: Optional[str] = typer.Option(None, help="Target language (BCP-47)."),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for multi-pair layouts (e.g. en-de)."),
    limit: Optional[int] = typer.Option(None, help="Read at most N rows."),
    seed: int = typer.Option(13),
    shard_size: int = typer.Option(500, help="Items per resumable shard."),
    skip_bad: bool = typer.Option(False, help="Skip (and count) bad rows instead of stopping."),
    overwrite: bool = typer.Option(False, help="Discard a different build found in --out."),
    engine: str = typer.Option("local", help="Score with: local, or ray (RAY_ADDRESS or a local cluster; scores "
                                             "kept in OUT/scores/); the selection is the same."),
    actors: Optional[int] = typer.Option(None, help="Ray actors (default: one per CPU, or per GPU on cuda)."),
):
    """Score a corpus with a difficulty estimator and keep the B hardest texts (selected_text records)."""
    from pathlib import Path

    from mtgauntlet.builders.subset import SubsetBuilder

    cols = f"domain={domain_col}" if domain_col else None
    rows = load_corpus(input, format=format, src_col=src_col, ref_col=src_col, src_lang=src_lang or "en",
                       tgt_lang=tgt_lang or "en", limit=limit, skip_bad=skip_bad, columns=cols, lp=lp)
    src_lang = src_lang or (rows.rows[0]["src_lang"] if rows.rows else "en")
    builder = SubsetBuilder(estimator=estimator, budget=budget, stratify=stratify, src_lang=src_lang,
                            tgt_lang=tgt_lang, engine=engine, work_dir=Path(out) / "scores", actors=actors)
    summary = BuildRunner(builder, out, seed=seed, shard_size=shard_size, overwrite=overwrite).run(iter_items(rows.rows))
    typer.echo(summary_line(summary))


@app.command("smaug")
def build_smaug(
    input: str = typer.Option(..., "--input", "-i", help="Parallel corpus (TSV/CSV/JSONL/Parquet, .gz ok) or named layout."),
    out: str = typer.Option(..., "--out", "-o", help="Output build directory."),
    src_lang: str = typer.Option(..., help="Source language (BCP-47)."),
    tgt_lang: str = typer.Option(..., help="Target language (BCP-47): the side that is perturbed."),
    format: Optional[str] = typer.Option(None, help="tsv, csv, jsonl, parquet, hf, flores, wmt24, parallel-samples."),
    src_col: str = typer.Option("src", help="Source column."),
    ref_col: str = typer.Option("ref", help="Reference column (perturbed into the bad hypothesis)."),
    good_col: Optional[str] = typer.Option(None, help="Column with the good hypothesis (second reference or MT)."),
    good_from: Optional[str] = typer.Option(None, help="column | translator | reference (good = reference, flagged)."),
    phenomena: str = typer.Option("ne,num,neg,ins,del", help="Comma-separated subset of ne,num,neg,ins,del."),
    translator: Optional[str] = typer.Option(None, help="Translator spec for the good hypothesis (e.g. apertium)."),
    infiller: Optional[str] = typer.Option(None, help="Infiller spec (mT5: hf:google/mt5-large); default: model-free."),
    nli: Optional[str] = typer.Option(None, help="NLI spec for the negation contradiction check (hf:roberta-large-mnli)."),
    annotator: Optional[str] = typer.Option(None, help="Annotator spec (default spacy:<tgt-lang>)."),
    polyjuice: Optional[str] = typer.Option(None, help="Polyjuice causal LM spec for negation (hf:uw-hai/polyjuice)."),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for multi-pair layouts (e.g. en-es)."),
    limit: Optional[int] = typer.Option(None, help="Read at most N rows."),
    min_char_edit: int = typer.Option(5, help="ne: minimum character edit distance."),
    min_word_edit: int = typer.Option(8, help="ins: minimum word edit distance."),
    seed: int = typer.Option(13),
    shard_size: int = typer.Option(200),
    skip_bad: bool = typer.Option(False),
    overwrite: bool = typer.Option(False),
):
    """SMAUG: (source, good, bad, reference, phenomenon) records; bad = reference with one critical error."""
    from mtgauntlet.builders.smaug import SmaugBuilder

    cols = f"good={good_col}" if good_col else None
    rows = load_corpus(input, format=format, src_col=src_col, ref_col=ref_col, src_lang=src_lang, tgt_lang=tgt_lang,
                       limit=limit, skip_bad=skip_bad, columns=cols, lp=lp)
    builder = SmaugBuilder(src_lang=src_lang, tgt_lang=tgt_lang, phenomena=comma_list(phenomena),
                           translator=translator, infiller=infiller, nli=nli, annotator=annotator, polyjuice=polyjuice,
                           good_col=good_col, good_from=good_from, min_char_edit=min_char_edit,
                           min_word_edit=min_word_edit)
    for ph, (ok, how) in builder.support.items():
        if ph in builder.phenomena:
            typer.echo(f"  {ph}: {how}", err=True)
    summary = BuildRunner(builder, out, seed=seed, shard_size=shard_size, overwrite=overwrite).run(iter_items(rows.rows))
    typer.echo(summary_line(summary))


def _seed_rows(seeds: str, column: str, format: Optional[str], src_lang: str, limit: Optional[int],
               lp: Optional[str]):
    from mtgauntlet.corpora.formats import READERS, sniff_named_format
    from mtgauntlet.corpora.readers import read_rows

    named = format if format in READERS else sniff_named_format(seeds)
    if named in ("flores", "wmt24", "parallel-samples"):
        return load_corpus(seeds, format=named, src_lang=src_lang, tgt_lang="en" if src_lang != "en" else "de",
                           limit=limit, lp=lp).rows
    rows = read_rows(seeds, format=format, columns={"src": column}, text_fields=["src"], limit=limit).rows
    for r in rows:
        r.setdefault("source_dataset", seeds.rsplit("/", 1)[-1].split(".")[0])
        r["source_id"] = str(r.get("source_id") or r.get("id") or r["_line"])
    return rows


@app.command("mtbreaker")
def build_mtbreaker(
    seeds: str = typer.Option(..., "--seeds", help="Seed texts (TSV/CSV/JSONL/Parquet, or flores / wmt24 layouts)."),
    out: str = typer.Option(..., "--out", "-o"),
    column: str = typer.Option("text", "--column", help="Seed text column."),
    format: Optional[str] = typer.Option(None),
    variant: str = typer.Option("seeded", help="seeded | seedless | seeded+qe | seedless+qe"),
    llm: Optional[str] = typer.Option(None, help="Editing LLM spec (default: embedded SmolLM2)."),
    mt: str = typer.Option("apertium", help="Target translator spec(s), comma-separated (several = multi)."),
    qe: str = typer.Option("qe", help="QE spec (qe, roundtrip, comet:..., llm-as-qe:...)."),
    steps: int = typer.Option(10, help="Edit steps after the initial source."),
    src_lang: str = typer.Option("en"),
    tgt_lang: str = typer.Option("es"),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for wmt24 seeds."),
    limit: Optional[int] = typer.Option(None, help="Use the first N seeds."),
    temperature: float = typer.Option(0.8),
    language_guard: bool = typer.Option(True, help="Reject proposals not detected as --src-lang (lingua)."),
    seed: int = typer.Option(13),
    overwrite: bool = typer.Option(False),
):
    """MT-breaker: an LLM edits each seed step by step until the target MT model translates it badly."""
    from mtgauntlet.builders.mtbreaker import MTBreakerBuilder

    rows = _seed_rows(seeds, column, format, src_lang, limit, lp)
    builder = MTBreakerBuilder(variant=variant, llm=llm, mt=comma_list(mt), qe=qe,
                               steps=steps, src_lang=src_lang, tgt_lang=tgt_lang, temperature=temperature,
                               language_guard=language_guard)
    summary = BuildRunner(builder, out, seed=seed, shard_size=1, overwrite=overwrite).run(iter_items(rows))
    typer.echo(summary_line(summary))


@app.command("zeroshot")
def build_zeroshot(
    seeds: str = typer.Option(..., "--seeds", help="Seed texts: only their lengths are used (length matching)."),
    out: str = typer.Option(..., "--out", "-o"),
    column: str = typer.Option("text", "--column"),
    format: Optional[str] = typer.Option(None),
    variant: str = typer.Option("plain", help="plain | history | min"),
    llm: Optional[str] = typer.Option(None),
    mt: str = typer.Option("apertium"),
    qe: str = typer.Option("qe"),
    n: int = typer.Option(10, help="Generations per item for the 'min' variant."),
    src_lang: str = typer.Option("en"),
    tgt_lang: str = typer.Option("es"),
    lp: Optional[str] = typer.Option(None),
    limit: Optional[int] = typer.Option(None),
    temperature: float = typer.Option(0.9),
    seed: int = typer.Option(13),
    overwrite: bool = typer.Option(False),
):
    """Zero-shot baselines: one generation per item, with history, or the most difficult of n (min)."""
    from mtgauntlet.builders.zeroshot import ZeroShotBuilder

    rows = _seed_rows(seeds, column, format, src_lang, limit, lp)
    builder = ZeroShotBuilder(variant=variant, llm=llm, mt=comma_list(mt), qe=qe,
                              src_lang=src_lang, tgt_lang=tgt_lang, n=n, temperature=temperature)
    summary = BuildRunner(builder, out, seed=seed, shard_size=1, overwrite=overwrite).run(iter_items(rows))
    typer.echo(summary_line(summary))


@app.command("bandit")
def build_bandit(
    out: str = typer.Option(..., "--out", "-o"),
    corpus: Optional[str] = typer.Option(None, "--corpus", help="Local corpus to sample texts from (flores, wmt24, any table)."),
    topics: Optional[str] = typer.Option(None, "--topics", help="Taxonomy YAML/JSON; texts retrieved by e5 similarity."),
    llm_topics: Optional[str] = typer.Option(None, "--llm-topics", help="Generate a topic tree for this domain with --llm."),
    llm: Optional[str] = typer.Option(None, "--llm", help="LLM spec for --llm-topics or --sampler llm."),
    sampler: str = typer.Option("corpus", help="corpus (offline) | llm (search-grounded LLM, paper prompt)."),
    topic_column: Optional[str] = typer.Option(None, help="Corpus column with topic labels (flores: topic, wmt24: domain)."),
    text_column: str = typer.Option("src", help="Corpus text column."),
    format: Optional[str] = typer.Option(None),
    algorithm: str = typer.Option("eps-greedy", help="brute | greedy | eps-greedy | contextual | ucb"),
    budget: int = typer.Option(300, help="Pulls (sample + translate + QE), cost 1 each."),
    k: int = typer.Option(10, help="Topics to return."),
    cap: int = typer.Option(10, help="Max pulls per topic (the paper's c; 0 = no cap)."),
    epsilon: float = typer.Option(0.7),
    batch: int = typer.Option(1, help="Topics chosen per step (batched variants)."),
    mt: str = typer.Option("apertium", help="Translator spec(s), comma-separated (artificial crowd)."),
    qe: str = typer.Option("qe"),
    src_lang: str = typer.Option("en"),
    tgt_lang: str = typer.Option("es"),
    lp: Optional[str] = typer.Option(None, help="Language pair filter for multi-pair corpora (wmt24)."),
    min_words: int = typer.Option(20),
    max_words: int = typer.Option(40),
    seed: int = typer.Option(13),
    overwrite: bool = typer.Option(False),
):
    """Search for the hardest topics with a bandit; writes the pull log and topic_text records."""
    import math

    from mtgauntlet.builders.bandit import BanditSearch
    from mtgauntlet.builders.bandit import topics as T
    from mtgauntlet.builders.bandit.sampler import CorpusSampler, LLMSampler
    from mtgauntlet.corpora.formats import sniff_named_format
    from mtgauntlet.models import registry

    rows = []
    if corpus:
        rows = load_corpus(corpus, format=format, src_col=text_column, ref_col=text_column, src_lang=src_lang,
                           tgt_lang=tgt_lang, lp=lp).rows
    named = format or (sniff_named_format(corpus) if corpus else None)
    label = topic_column or ({"flores": "topic", "wmt24": "domain"}.get(named) if not (topics or llm_topics) else None)
    if topics:
        topic_list = T.from_taxonomy(topics)
    elif llm_topics:
        topic_list = T.from_llm(registry.load("llm", llm), llm_topics)
    elif label:
        topic_list = T.from_column(rows, label)
    else:
        raise typer.BadParameter("give --topics FILE, --llm-topics DOMAIN, or a --corpus with --topic-column")
    if sampler == "llm":
        llm_sampler = LLMSampler(registry.load("llm", llm))
        samp = _TopicAdapter(llm_sampler, topic_list)
    else:
        if not rows:
            raise typer.BadParameter("the corpus sampler needs --corpus")
        samp = CorpusSampler(rows, topic_list, text_key="src", label_key=label, min_words=min_words,
                             max_words=max_words)
    source = corpus.rsplit("/", 1)[-1].split(".")[0] if corpus else "llm"
    search = BanditSearch(topic_list, samp, mt=comma_list(mt), qe=qe,
                          algorithm=algorithm, budget=budget, k=k, cap=math.inf if not cap else cap,
                          epsilon=epsilon, batch=batch, seed=seed, src_lang=src_lang, tgt_lang=tgt_lang, source=source)
    m = search.run(out, progress=True, overwrite=overwrite)
    typer.echo(f"{m['counts']['pulls']} pulls over {len(topic_list)} topics; top-{k}:")
    for t in m["top_topics"]:
        typer.echo(f"  {t['mean_difficulty']:6.2f}  ({t['pulls']} pulls)  {t['topic']}")
    typer.echo(f"signature: {m['signature']}")


class _TopicAdapter:
    """Index-based interface over a sampler that takes Topic objects (the LLM sampler)."""

    def __init__(self, sampler, topics):
        self.sampler, self.topics, self.rows = sampler, topics, []

    def sample(self, t, used, rng):
        return self.sampler.sample(self.topics[t], used, rng)
