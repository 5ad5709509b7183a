"""A bandit search set up from a build's options: the topics (a taxonomy file, an LLM-grown tree, or a corpus
column), the sampler (the corpus or an LLM), and the search itself — or, on a dry run, the plan of its API calls.
`BanditMethod` is the builder of the ``bandit`` method (`mtgauntlet.builders.methods`): the build path reads the
corpus with its ``read`` and runs the search with its ``run``; nothing here reads files of its own but the
taxonomy and the corpus."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from mtgauntlet.builders.bandit import topics as T
from mtgauntlet.builders.bandit.sampler import CorpusSampler, LLMSampler
from mtgauntlet.builders.bandit.search import BanditSearch
from mtgauntlet.builders.base import Item, iter_items
from mtgauntlet.builders.inputs import read_corpus
from mtgauntlet.builders.options.bandit import BanditBuildOptions
from mtgauntlet.corpora.options import comma_list, lang_pair
from mtgauntlet.corpora.readers import RowSet
from mtgauntlet.errors import GauntletError, UsageError
from mtgauntlet.models.estimate import Plan
from mtgauntlet.models.qe_ensemble import split_specs

# the topic column of the named layouts that carry one
NAMED_TOPIC_COLUMNS = {"flores": "topic", "wmt24": "domain"}


class TopicAdapter:
    """Index-based interface over a sampler that takes Topic objects (the LLM sampler)."""

    def __init__(self, sampler, topics):
        self.sampler, self.topics, self.rows = sampler, topics, []

    def sample(self, t, used, rng):
        return self.sampler.sample(self.topics[t], used, rng)

    def sample_many(self, ts, used, rng):
        return self.sampler.sample_many([self.topics[t] for t in ts], used, rng)


def mt_specs(o: BanditBuildOptions) -> list[str]:
    """``--mt`` as specs: comma-separated, repeated, or a list."""
    return [s for v in ([o.mt] if isinstance(o.mt, str) else o.mt) for s in split_specs(v)]


def target_languages(o: BanditBuildOptions) -> list[str]:
    return [o.tgt_lang] if isinstance(o.tgt_lang, str) else list(o.tgt_lang)


def bandit_plan(
    scorer,
    pulls: int,
    topic_names: Sequence[str],
    words: int,
    src_lang: str,
    tgt_langs: Sequence[str],
    sampler=None,
    tree: tuple[Any, Sequence[str], int] | None = None,
) -> Plan:
    """The bandit's dry run: ``pulls`` = the budget; each pull is at most one ``sampler`` call (``--sampler llm``;
    the topics asked in turn; an answer's further snippets serve the topic's later pulls without a call), one
    translation per ``--mt`` and target language and one QE call per QE spec and translation, on a stand-in
    text of ``words`` words (the texts are not known before they are drawn). ``tree``: (llm, prompts,
    max_tokens) of ``--llm-topics`` (one ontologist prompt per root domain)."""
    plan = Plan()
    if tree is not None:
        plan.add(tree[0], list(tree[1]), tree[2])
    if sampler is not None:
        plan.add(
            sampler.llm, [sampler.prompt(topic_names[i % len(topic_names)]) for i in range(pulls)], sampler.max_tokens
        )
    stand_in = " ".join(["word"] * words)
    for tgt_lang in tgt_langs:
        for translator in scorer.translators:
            plan.add_role(translator, [stand_in], None, src_lang, tgt_lang, times=pulls)
        plan.add_role(scorer.qe, [stand_in], [stand_in], src_lang, tgt_lang, times=pulls * len(scorer.translators))
    return plan


def _topics(o: BanditBuildOptions, rows: list[dict[str, Any]], corpus: str | None, label: str | None, dry_run: bool):
    """(topic list, the (llm, prompts, max_tokens) of the trees asked for on a dry run, or None)."""
    from mtgauntlet.models import registry

    if o.topics:
        return T.from_taxonomy(o.topics), None
    if o.llm_topics and dry_run:  # the trees are asked for, not known: the sampler's prompts name the domains
        domains = T.domains_of(o.llm_topics)
        tree = (
            registry.load("llm", o.llm),
            [T.tree_prompt(d, o.topic_levels, o.topic_branching) for d in domains],
            T.tree_max_tokens(o.topic_levels, o.topic_branching),
        )
        return [T.Topic(d, []) for d in domains], tree
    if o.llm_topics:
        found = T.from_llm_domains(
            registry.load("llm", o.llm), T.domains_of(o.llm_topics), o.topic_levels, o.topic_branching
        )
        if not found:
            raise GauntletError(
                f"the LLM ({o.llm or 'embedded default'}) gave no topic for --llm-topics "
                f"{o.llm_topics!r}: its answer held an empty tree"
            )
        return found, None
    if label:
        found = T.from_column(rows, label)
        if not found:
            raise GauntletError(f"{corpus}: the topic column {label!r} holds no value")
        return found, None
    raise UsageError("give --topics FILE, --llm-topics DOMAIN, or a --corpus with --topic-column")


def prepare(
    o: BanditBuildOptions,
    rows: list[dict[str, Any]],
    corpus: str | None,
    named_format: str | None,
    input_sha256: str | None,
    dry_run: bool = False,
) -> BanditSearch | Plan:
    """The search over ``rows`` (the corpus read, possibly empty) — or, with ``dry_run``, the plan of its calls.
    ``o``: the options of ``gauntlet build bandit`` (its languages normalised)."""
    from mtgauntlet.builders.breaker_scoring import Scorer
    from mtgauntlet.models import registry

    label = o.topic_column or (NAMED_TOPIC_COLUMNS.get(named_format or "") if not (o.topics or o.llm_topics) else None)
    topic_list, tree = _topics(o, rows, corpus, label, dry_run)
    llm_sampler = None
    if o.sampler == "llm":
        llm_sampler = LLMSampler(
            registry.load("llm", o.llm),
            min_words=o.min_words,
            max_words=o.max_words,
            max_tokens=o.sampler_max_tokens,
            temperature=o.sampler_temperature,
        )
        samp: Any = TopicAdapter(llm_sampler, topic_list)
    else:
        if not rows:
            raise UsageError("the corpus sampler needs --corpus")
        samp = CorpusSampler(
            rows, topic_list, text_key="src", label_key=label, min_words=o.min_words, max_words=o.max_words, seed=o.seed
        )
    algorithm, cap, budget = o.algorithm, o.cap, o.budget
    if o.prescore is not None:
        if o.prescore < 1:
            raise UsageError("--prescore must be >= 1")
        algorithm, cap, budget = "brute", o.prescore, o.prescore * len(topic_list)
    if dry_run:
        if tree is not None and o.prescore is not None:
            raise UsageError(
                "--dry-run with --llm-topics and --prescore: the number of pulls depends on the "
                "topics the LLM answers; dry-run with --budget instead"
            )
        return bandit_plan(
            Scorer(mt_specs(o), o.qe, o.src_lang, target_languages(o)[0]),
            budget,
            [t.name for t in topic_list],
            o.max_words,
            o.src_lang,
            target_languages(o),
            llm_sampler,
            tree,
        )
    source = corpus.rsplit("/", 1)[-1].split(".")[0] if corpus else "llm"
    return BanditSearch(
        topic_list,
        samp,
        mt=mt_specs(o),
        qe=o.qe,
        algorithm=algorithm,
        budget=budget,
        k=o.k,
        cap=math.inf if not cap else cap,
        epsilon=o.epsilon,
        batch=o.batch,
        seed=o.seed,
        src_lang=o.src_lang,
        tgt_lang=target_languages(o),
        source=source,
        input_sha256=input_sha256,
    )


class BanditMethod:
    """The builder of ``gauntlet build bandit``: made from its options (languages normalised by `read`), it plans
    the search's API calls (`plan`) or runs the search into a build folder (`run`: the pull log and the
    ``topic_text`` records; no shards, so the build runner is not involved)."""

    def __init__(self, options: BanditBuildOptions):
        self.options = options

    @classmethod
    def read(cls, options: BanditBuildOptions) -> tuple[BanditBuildOptions, RowSet]:
        """The corpus the texts are sampled from (none without ``corpus``: the LLM sampler writes them)."""
        o = options
        given = [o.tgt_lang] if isinstance(o.tgt_lang, str) else list(o.tgt_lang)
        targets = [t for g in given for t in comma_list(g)] or ["es"]  # several: the crowd's (builders.bandit.crowd)
        src_lang, tgt_lang = lang_pair(o.src_lang, targets[0])
        more = [lang_pair(o.src_lang, t)[1] for t in targets[1:]]
        first = dataclasses.replace(o, src_lang=src_lang, tgt_lang=tgt_lang)
        rows = read_corpus(first, o.corpus, text=o.text_column) if o.corpus is not None else RowSet(path="", rows=[])
        return dataclasses.replace(first, tgt_lang=[tgt_lang, *more] if more else tgt_lang), rows

    def load_backends(self) -> None:
        """Every model is loaded when the search is set up."""

    def notes(self) -> list[str]:
        return []

    def _named_format(self) -> str | None:
        from mtgauntlet.corpora.formats import sniff_named_format

        o = self.options
        return o.format or (sniff_named_format(o.corpus) if o.corpus else None)

    def plan(self, items: Sequence[Item]) -> Plan:
        plan = prepare(self.options, [it.data for it in items], self.options.corpus, self._named_format(), None, True)
        assert isinstance(plan, Plan)
        return plan

    def run(self, out: str, rows: list[dict[str, Any]], overwrite: bool) -> None:
        """Search into ``out``; a `GauntletError` when no pull got a score (the pull log is kept)."""
        from mtgauntlet.core.builds import input_digest

        search = prepare(self.options, rows, self.options.corpus, self._named_format(), None)
        assert isinstance(search, BanditSearch)
        # the digest names the topics asked for; an LLM tree is only known once grown, inside prepare
        search.input_sha256 = input_digest(
            iter_items([*({"topic": t.name, "path": t.path} for t in search.topics), *rows])
        )
        c = search.run(out, overwrite=overwrite)["counts"]
        if c["pulls"] and not c["scored_pulls"]:
            raise GauntletError(
                f"none of the {c['pulls']} pulls got a score (mt={c['mt_failures']}, "
                f"qe={c['qe_failures']}): check --mt / --qe"
            )
