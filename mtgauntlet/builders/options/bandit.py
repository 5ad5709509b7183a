"""The method ``bandit``: the options of ``gauntlet build bandit`` / ``mg.build_bandit``, declared once, and its
record (`mtgauntlet.builders.methods`)."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet import shared_options as shared
from mtgauntlet.builders.methods import Method, MethodText
from mtgauntlet.builders.options import arxiv_citation
from mtgauntlet.builders.options.groups import Spending
from mtgauntlet.options import option

TEXT = MethodText(
    title="Difficult topics found by bandit search",
    description=(
        "Topics are arms; each pull samples a text for a topic, translates it and scores it with QE "
        "(difficulty = 100 - mean QE). The search spends a budget of pulls to find the hardest topics; "
        "records hold texts of the chosen topics with provenance."
    ),
    citation=arxiv_citation(
        "xu2025searching",
        "Searching for Difficult-to-Translate Test Examples at Scale",
        "Xu, Wenda and Zouhar, Vil{\\'e}m and Riley, Parker and Finkelstein, Mara and Freitag, Markus and Deutsch, Daniel",
        "2509.26619",
    ),
    limitations="Texts are retrieved from a local corpus offline; topic difficulty is estimated from few pulls.",
)


EXAMPLE = {
    "corpus": "{sample}",
    **{"text_column": "en", "topic_column": "domain", "min_words": 5, "budget": 6, "k": 2, "cap": 3},
    **{"mt": "{mt}", "qe": "{qe}", "src_lang": "en", "tgt_lang": "es"},
}


@dataclass(kw_only=True, frozen=True)
class BanditBuildOptions(Spending):
    """Search for the hardest topics with a bandit; writes the pull log and topic_text records."""

    out: str | Path = shared.out("Output directory: pull log (pulls/), topic_text records (data/).")
    corpus: Any = option(
        None,
        help="Local corpus to sample texts from (flores, wmt24, any table).",
        doc="Local corpus to sample texts from (a file, flores / wmt24, an in-memory table; ``mg.build``: ``input=``).",
    )
    topics: str | None = option(None, help="Taxonomy YAML/JSON; texts retrieved by e5 similarity.")
    llm_topics: str | None = option(
        None,
        help="Generate a topic tree for each of these root domains (comma-separated; "
        "'paper': science,business,law,education,culture) with --llm.",
    )
    topic_levels: int = option(
        2,
        min=1,
        help="Levels of subtopics beneath each root of --llm-topics (the paper: 4, five levels with the roots).",
    )
    topic_branching: int = option(5, min=1, help="Subtopics of each topic of --llm-topics (the paper: 5).")
    llm: str | None = option(None, help="LLM spec for --llm-topics or --sampler llm.")
    sampler: str = option("corpus", help="corpus (offline) | llm (search-grounded LLM, paper prompt).")
    sampler_max_tokens: int = option(
        2048,
        min=64,
        help="--sampler llm: most tokens of an answer (the paper gives no limit; it reports 94 output tokens on "
        "average). A cut answer is counted (sampler_truncated_failures); its complete snippets are kept.",
    )
    sampler_temperature: float = option(
        0.7, min=0.0, max=2.0, help="--sampler llm: sampling temperature (the paper gives none)."
    )
    topic_column: str | None = option(None, help="Corpus column with topic labels (flores: topic, wmt24: domain).")
    text_column: str = option("src", help="Corpus text column (tables; named layouts decide their own).")
    format: str | None = shared.format()
    quoting: str = shared.quoting()
    max_chars: int = shared.max_chars()
    skip_bad: bool = shared.skip_bad()
    algorithm: str = option("eps-greedy", help="brute | greedy | eps-greedy | contextual | ucb")
    budget: int = option(300, min=1, help="Pulls (sample + translate + QE), cost 1 each; failed pulls cost too.")
    k: int = option(10, min=1, help="Topics to return.")
    cap: int = option(10, min=0, help="Max pulls per topic (the paper's c; 0 = no cap).")
    epsilon: float = option(
        0.7, min=0.0, max=1.0, help="eps-greedy: probability of exploring an unsampled topic (paper: 0.7)."
    )
    batch: int = option(1, min=1, help="Topics chosen per step (batched variants).")
    prescore: int | None = option(
        None,
        help="Pre-score a replay pool instead: N samples per topic (brute force, "
        "cap N, budget N x topics; the paper used 25). Then: gauntlet evaluate bandit "
        "--pool OUT.",
    )
    mt: str | Sequence[str] = option(
        ("apertium",),
        help="Translator spec(s), comma-separated or repeated (artificial crowd: a pull's QE is the mean over them).",
        doc="Translator spec(s): a list or comma-separated (the artificial crowd: a pull's QE is the mean over them).",
    )
    qe: str = option(
        "qe",
        help="QE spec(s), comma-separated, averaged per text on 0-100 (qe, roundtrip, "
        "llm-as-qe:..., metricx:..., hf:...#error=25).",
    )
    src_lang: str = shared.src_lang()
    tgt_lang: str | Sequence[str] = option(
        ("es",),
        help="Target language (BCP-47); repeat it (or cs,de): a pull's difficulty is the mean over the languages "
        "and --mt models (the paper's Table 1: 4 languages x 3 models).",
        doc='Target language; several (a list or ``"cs,de"``): every text is translated into each by every '
        "``mt`` model, and a pull's difficulty is 100 - the mean QE over them all (the paper's Table 1).",
    )
    lp: str | None = shared.lp("multi-pair corpora (wmt24)")
    min_words: int = option(
        20, min=1, help="Shortest text sampled (corpus row or LLM snippet), in words (paper: 20-40)."
    )
    max_words: int = option(40, min=1, help="Longest text sampled (corpus row or LLM snippet), in words.")
    seed: int = shared.seed()


METHOD = Method("bandit", BanditBuildOptions, "mtgauntlet.builders.bandit.setup:BanditMethod", "corpus", TEXT, EXAMPLE)
