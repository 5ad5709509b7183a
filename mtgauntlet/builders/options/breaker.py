"""The methods ``mtbreaker`` and ``zeroshot``: the options of ``gauntlet build mtbreaker`` and ``gauntlet build
zeroshot`` (``mg.build_mtbreaker``, ``mg.build_zeroshot``), declared once (the two methods share the reading of
their seed texts, `SeedTexts`, and their run options, `BreakerRun`), and their records
(`mtgauntlet.builders.methods`)."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet import shared_options as shared
from mtgauntlet.builders.breaker_sources import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE
from mtgauntlet.builders.methods import Method, MethodText
from mtgauntlet.builders.options import BREAKER_SHARD_SIZE, arxiv_citation
from mtgauntlet.builders.options.groups import BuildRun
from mtgauntlet.options import REQUIRED, option

MTBREAKER_VARIANTS = ("seeded", "seedless", "seeded+qe", "seedless+qe")
ZEROSHOT_VARIANTS = ("plain", "history", "min")
# the test example of both methods (`mtgauntlet.builders.methods.Method.example`): three seeds, scripted models
EXAMPLE = {"seeds": "{sample}", "column": "en", "limit": 3, "src_lang": "en", "tgt_lang": "es"}
EXAMPLE_MODELS = {"llm": "{llm}", "mt": "{mt}", "qe": "{qe}"}

SHARD_HELP = (
    f"Items per resumable shard, advanced together (their model calls go out as one list per step) "
    f"[default: {BREAKER_SHARD_SIZE}, or the shard size of the build already in --out]. An LLM step "
    "sends one request per item of the shard, so requests in flight are at most min(--concurrency, shard "
    "size); the records do not depend on it."
)
MAX_TOKENS_HELP = "Generation budget per LLM answer; answers cut by it are unusable and counted ('truncated')."
COLUMN_HELP = "Seed text column (tables; named layouts decide their own)."
MT_HELP = "Target translator spec(s), comma-separated (several = multi)."
GUARD_FLAGS = ("--language-guard/--no-language-guard",)
GUARD_HELP = "not detected as --src-lang (lingua; not in the paper, stated in the card when on)."


@dataclass(kw_only=True, frozen=True)
class SeedTexts:
    """What MT-breaker and zero-shot read: the seed texts (a method may say again what it uses them for), and where
    the build goes."""

    seeds: Any = option(
        REQUIRED,
        help="Seed texts (TSV/CSV/JSONL/Parquet, or flores / wmt24 layouts).",
        doc="Seed texts: a file, a named layout (flores, wmt24) or an in-memory table (``mg.build``: ``input=``).",
    )
    out: str | Path = shared.out("Output build directory (resumable).")
    column: str = option("text", help=COLUMN_HELP)
    format: str | None = shared.format()
    src_lang: str = shared.src_lang()
    tgt_lang: str = shared.tgt_lang()
    lp: str | None = shared.lp("wmt24 seeds")
    limit: int | None = shared.limit("seeds")
    sample: int | None = shared.sample()
    quoting: str = shared.quoting()
    max_chars: int = shared.max_chars()
    skip_bad: bool = shared.skip_bad()


@dataclass(kw_only=True, frozen=True)
class BreakerRun(BuildRun):
    """`BuildRun` with the shard size of MT-breaker and zero-shot (items advanced together)."""

    shard_size: int | None = option(None, min=1, help=SHARD_HELP)


@dataclass(kw_only=True, frozen=True)
class MTBreakerOptions(BreakerRun, SeedTexts):
    """MT-breaker: an LLM edits each seed step by step until the target MT model translates it badly."""

    variant: str = option(
        "seeded", choices=lambda: MTBREAKER_VARIANTS, help="seeded | seedless | seeded+qe | seedless+qe"
    )
    llm: str | None = option(None, help="Editing LLM spec (default: embedded SmolLM2).")
    mt: str = option("apertium", help=MT_HELP)
    qe: str = option("qe", help=shared.QE_HELP)
    steps: int = option(10, min=1, help="Edit steps after the initial source.")
    temperature: float = option(
        DEFAULT_TEMPERATURE, help="Sampling temperature of the LLM (zero-shot uses the same default)."
    )
    max_tokens: int = option(DEFAULT_MAX_TOKENS, min=16, help=MAX_TOKENS_HELP)
    grammatical_edits: bool = option(
        False,
        help="Add 'Only make grammatical edits' "
        "to every follow-up (section 3.7 of the paper; not in its Appendix B prompts).",
    )
    language_guard: bool = option(False, flags=GUARD_FLAGS, help="Reject proposals " + GUARD_HELP)


@dataclass(kw_only=True, frozen=True)
class ZeroShotOptions(BreakerRun, SeedTexts):
    """Zero-shot baselines: one generation per item, with history, or the most difficult of n (min)."""

    seeds: Any = option(
        REQUIRED,
        help="Seed texts: only their lengths are used (length matching).",
        doc="Seed texts: only their lengths are used (``mg.build``: ``input=``; an in-memory table too).",
    )
    variant: str = option("plain", choices=lambda: ZEROSHOT_VARIANTS, help="plain | history | min")
    llm: str | None = option(None, help="Generating LLM spec (default: embedded SmolLM2).")
    mt: str = option("apertium", help=MT_HELP)
    qe: str = option("qe", help=shared.QE_HELP)
    generations: int = option(
        10,
        flags=("--generations", "--n"),
        min=1,
        help="Texts generated per item by the 'min' variant (the most difficult is kept).",
    )
    temperature: float = option(DEFAULT_TEMPERATURE, help="Sampling temperature (MT-breaker's default).")
    max_tokens: int = option(DEFAULT_MAX_TOKENS, min=1, help=MAX_TOKENS_HELP)
    history_size: int | None = option(
        None,
        min=1,
        help="'history' variant: list only "
        "the last N earlier texts (default: all, as the paper; the card states a "
        "cap).",
    )
    language_guard: bool = option(False, flags=GUARD_FLAGS, help="Reject texts " + GUARD_HELP)


MTBREAKER_BIBTEX = arxiv_citation(
    "zouhar2025generating",
    "Generating Difficult-to-Translate Texts",
    "Zouhar, Vil{\\'e}m and Xu, Wenda and Riley, Parker and Juraska, Juraj and Finkelstein, Mara and Freitag, Markus and Deutsch, Daniel",
    "2509.26592",
)

MTBREAKER = Method(
    name="mtbreaker",
    options=MTBreakerOptions,
    builder="mtgauntlet.builders.mtbreaker:MTBreakerBuilder",
    input="seeds",
    example={**EXAMPLE, **EXAMPLE_MODELS, "steps": 2},
    text=MethodText(
        title="MT-breaker difficult source texts",
        description=(
            "Source texts edited step by step by an LLM until a target MT model translates them badly, judged by "
            "quality estimation; each record keeps the full trajectory (source, translations, QE per step)."
        ),
        citation=MTBREAKER_BIBTEX,
        limitations=(
            "Difficulty is judged by an automatic QE model, not by humans; texts may drift from the seed's topic."
        ),
    ),
)
ZEROSHOT = Method(
    name="zeroshot",
    options=ZeroShotOptions,
    builder="mtgauntlet.builders.zeroshot:ZeroShotBuilder",
    input="seeds",
    example={**EXAMPLE, **EXAMPLE_MODELS, "variant": "min", "generations": 2},
    text=MethodText(
        title="Zero-shot difficult source texts",
        description="Texts an LLM generated in one shot to be hard to translate (MT-breaker paper baselines).",
        citation=MTBREAKER_BIBTEX,
        limitations="Difficulty is judged by an automatic QE model.",
    ),
)
