"""``ins``: content that is not in the source inserted into the reference."""

from __future__ import annotations

from mtgauntlet.builders.smaug.clause_edits import CONJUNCTIONS, coordinate
from mtgauntlet.builders.smaug.clause_edits import Insertion as InsertionTransformation
from mtgauntlet.builders.smaug.constraints import Differs, NoMaskTokens, NoSpecialTokens, WordEditDistance
from mtgauntlet.builders.smaug.phenomena.base import Phenomenon


class Insertion(Phenomenon):
    name = "ins"
    example = ("Ella abrió la ventana de la cocina.", "She opened the kitchen window.")
    paper = "up to 3 masks between words, filled **together in one** mT5 call"
    model_free = (
        "a clause from another reference coordinated at the end with the target language's conjunction "
        "(`…, and <clause>.`, `… y <clause>.`, `… et <clause>.`; en es fr pt it de cs zh, others need "
        "`--infiller`)"
    )
    validation = (
        "differs, word edit distance >= 8, no mask/special tokens (a mask mT5 left unfilled stays and is rejected)"
    )

    def transformation(self, builder):
        return InsertionTransformation(builder.infiller, lang=builder.tgt_lang)

    def constraints(self, builder):
        return [Differs(), NoMaskTokens(), NoSpecialTokens(), WordEditDistance(builder.params["min_word_edit"])]

    def support(self, builder, lang):
        if builder.infiller is not None:
            return True, f"infill: {builder.public_specs['infiller']}"
        if builder.annotator is None:
            return False, self.without_annotator(builder)
        if coordinate("", lang) is None:
            return False, (
                f"no conjunction for model-free insertion in '{lang}' (have: {', '.join(CONJUNCTIONS)}); "
                "pass --infiller SPEC"
            )
        return True, f"clauses from other references, joined by '{coordinate('…', lang).strip()}'"

    def flags(self, builder):
        if builder.infiller is not None:
            return {
                "ins_masks": (
                    "ins places min(3, gaps) masks uniformly (the reference: each gap with probability "
                    "0.9, then at most 3) and strips leading punctuation from each fill"
                )
            }
        return {
            "ins_clause": (
                "ins coordinates a clause taken from another reference of this input at the end of the "
                "sentence, not generated (the paper: up to 3 masks filled by mT5; --infiller SPEC)"
            )
        }


PHENOMENON = Insertion()
