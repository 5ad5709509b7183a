"""The method ``smaug``: the options of ``gauntlet build smaug`` / ``mg.build_smaug``, declared once, and its
record (`mtgauntlet.builders.methods`)."""

from collections.abc import Sequence
from dataclasses import dataclass

from mtgauntlet import shared_options as shared
from mtgauntlet.builders.methods import Method, MethodText
from mtgauntlet.builders.options.groups import BuildRun, ParallelInput
from mtgauntlet.options import REQUIRED, option
from mtgauntlet.phenomena import DEFAULT_OPTION as PHENOMENA_DEFAULT
from mtgauntlet.phenomena import HELP as PHENOMENA_HELP
from mtgauntlet.phenomena import errors_in_words

GOOD_FROM = ("column", "translator", "reference")
NE_TYPES = ("all", "names")  # ne: entities of every type (the paper: Stanza NER, no filter) or names only


TEXT = MethodText(
    title="SMAUG critical-error challenge pairs",
    description=(
        "Each record holds a source, a good hypothesis, a bad hypothesis and a reference. The bad hypothesis is "
        f"the reference with exactly one critical error of a given phenomenon: {errors_in_words()}. Each "
        "perturbation has a transformation phase and a validation phase (SMAUG, Alves et al. 2022); every record "
        "stores the changed span and each validation check's result."
    ),
    citation="""@inproceedings{alves-etal-2022-robust,
  title = {Robust {MT} Evaluation with Sentence-level Multilingual Augmentation},
  author = {Alves, Duarte M. and Rei, Ricardo and Farinha, Ana C. and de Souza, Jos{\\'e} G. C. and Martins, Andr{\\'e} F. T.},
  booktitle = {Proceedings of the Seventh Conference on Machine Translation (WMT)},
  address = {Abu Dhabi, United Arab Emirates (Hybrid)},
  publisher = {Association for Computational Linguistics},
  year = {2022}
}""",
    limitations=(
        "Model-free perturbations (the offline default) are less fluent than mT5/Polyjuice ones: entity swaps "
        "draw from the corpus, clause insertion coordinates another reference's clause. Negation records are "
        "only NLI-validated when an NLI backend was configured (see `checks.nli_contradiction`; null = not "
        "checked). When `good_origin` is `reference`, the good hypothesis equals the reference."
    ),
)


EXAMPLE = {
    "input": "{sample}",
    **{"src_col": "es", "ref_col": "en", "src_lang": "es", "tgt_lang": "en"},
    **{"good_from": "reference", "phenomena": "num,del"},
}


@dataclass(kw_only=True, frozen=True)
class SmaugOptions(BuildRun, ParallelInput):
    """SMAUG: (source, good, bad, reference, phenomenon) records; bad = reference with one critical error."""

    tgt_lang: str = option(REQUIRED, help="Target language (BCP-47): the side that is perturbed.")
    ref_col: str = option("ref", help="Reference column (perturbed into the bad hypothesis).")
    good_col: str | None = option(None, help="Column with the good hypothesis (second reference or MT).")
    good_from: str | None = option(
        None,
        choices=lambda: GOOD_FROM,
        help="column | translator | reference. Items whose good equals the "
        "reference are rejected (good_equals_ref), as the paper; 'reference' is the "
        "explicit reference-free mode (good = reference, stated in the manifest).",
    )
    phenomena: str | Sequence[str] = option(
        PHENOMENA_DEFAULT,
        help=PHENOMENA_HELP,
        doc="Subset of the registered phenomena (``mtgauntlet.phenomena.NAMES``: ne,num,neg,ins,del with the package "
        "as shipped), a list or comma-separated; default: ``mtgauntlet.phenomena.DEFAULT``.",
    )
    translator: str | None = option(None, help="Translator spec for the good hypothesis (e.g. apertium).")
    infiller: str | None = option(None, help="Infiller spec (mT5: hf:google/mt5-large); default: model-free.")
    nli: str | None = option(None, help="NLI spec for the negation contradiction check (hf:roberta-large-mnli).")
    require_nli: bool = option(
        False,
        help="Drop neg records whose NLI check did not run "
        "(needs --nli); without it they are kept and flagged (nli_contradiction = null).",
    )
    annotator: str | None = option(None, help="Annotator spec (default spacy:<tgt-lang>).")
    polyjuice: str | None = option(None, help="Polyjuice causal LM spec for negation (hf:uw-hai/polyjuice).")
    min_char_edit: int = option(5, min=0, help="ne: minimum character edit distance.")
    min_word_edit: int = option(8, min=0, help="ins: minimum word edit distance.")
    del_min_words: int = option(5, min=1, help="del: fewest words in the deleted span (reference implementation: > 4).")
    del_max_words: int = option(9, min=1, help="del: most words in the deleted span (reference implementation: < 10).")
    max_parse_chars: int = option(
        5000,
        min=1,
        help="Longest source or reference SMAUG parses and perturbs, in "
        "characters; longer rows are skipped and counted (too_long).",
    )
    ne_types: str = option(
        "all",
        choices=lambda: NE_TYPES,
        help="ne: entities to replace: all (the paper: every NER type, dates and numbers included) or names.",
    )
    engine: str = shared.engine(
        "Build the shards with: local, or ray (RAY_ADDRESS or a local cluster; each actor builds "
        "its own SMAUG builder from these options); the records are the same. mtbreaker, "
        "zeroshot and bandit run locally only (docs/scaling.md).",
        lambda: ("local", "ray"),
    )
    actors: int | None = option(None, builds=False, min=1, help="Ray actors (default: one per CPU).")
    shard_size: int = shared.shard_size(200)


METHOD = Method("smaug", SmaugOptions, "mtgauntlet.builders.smaug:SmaugBuilder", "input", TEXT, EXAMPLE)
