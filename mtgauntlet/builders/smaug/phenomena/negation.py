"""``neg``: a verb of the reference negated (or a negation removed)."""

from __future__ import annotations

from mtgauntlet.builders.smaug import negation as rules
from mtgauntlet.builders.smaug.constraints import Differs, NLIContradiction, NoSpecialTokens
from mtgauntlet.builders.smaug.phenomena.base import Phenomenon
from mtgauntlet.builders.smaug.transformations import Negation as NegationTransformation


class Negation(Phenomenon):
    name = "neg"
    example = ("El tren llega a la estación a las ocho.", "The train arrives at the station at eight.")
    paper = (
        "Polyjuice (`--polyjuice`, English targets only) on one span drawn uniformly among the reference "
        "code's: for each VERB, the AUX run immediately before it with the verb, and the bare verb (POS "
        'sequence only: in "has really seen" only "seen"); answers up to 128 tokens, one without `[ANSWER]` '
        "rejected (`neg:polyjuice_unparsed`, or `neg:polyjuice_cut` when it filled the budget)"
    )
    model_free = (
        "rules on the dependency parse: English (do-support, auxiliaries, copulas, contractions), French "
        "(ne…pas), Spanish"
    )
    validation = (
        'differs; no special tokens (Polyjuice\'s `[EMPTY]` = "could not fill" is rejected, as are '
        "`[BLANK]`, `<\\|perturb\\|>`, ...); NLI contradiction with `--nli` (argmax)"
    )

    def transformation(self, builder):
        return NegationTransformation(builder.tgt_lang, builder.polyjuice)

    def constraints(self, builder):
        return [Differs(), NoSpecialTokens(), NLIContradiction(builder.nli)]

    def support(self, builder, lang):
        if builder.annotator is None:
            return False, self.without_annotator(builder)
        if builder.polyjuice is not None:
            return True, f"polyjuice: {builder.public_specs['polyjuice']}"
        if lang in rules.SUPPORTED:
            return True, "rule-based negation on the dependency parse"
        return False, f"no negation rules for '{lang}' (have: {', '.join(rules.SUPPORTED)}); pass --polyjuice SPEC"

    def flags(self, builder):
        out = {}
        if builder.nli is None:
            out["nli_not_checked"] = (
                "neg records were kept without the paper's NLI contradiction check "
                "(checks.nli_contradiction = null); build with --nli SPEC --require-nli"
            )
        if builder.polyjuice is not None:
            out["polyjuice_greedy"] = (
                "Polyjuice is decoded greedily (the reference code: beam search, 5 beams, no_repeat_ngram_size=2)"
            )
        else:
            out["neg_rules"] = (
                "neg negates a verb by hand-written rules on the dependency parse, not generated "
                "(the paper: Polyjuice; --polyjuice SPEC, English targets only)"
            )
        return out


PHENOMENON = Negation()
