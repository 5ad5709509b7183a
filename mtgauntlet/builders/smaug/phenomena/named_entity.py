"""``ne``: one named entity of the reference replaced by another."""

from __future__ import annotations

from mtgauntlet.builders.smaug.constraints import (
    CharEditDistance,
    SameCount,
    infill_checks,
)
from mtgauntlet.builders.smaug.phenomena.base import Phenomenon
from mtgauntlet.builders.smaug.transformations import NamedEntitySwap


class NamedEntity(Phenomenon):
    name = "ne"
    example = ("María vive en Madrid con su hermano Pedro.", "Maria lives in Madrid with her brother Peter.")
    paper = (
        "one entity drawn uniformly among **all** the NER finds (dates, times, numbers included; `--ne-types "
        "names`: names only, stated in the card), mT5 `<extra_id_0>` infill, top-k 50 (`--infiller`)"
    )
    model_free = "another entity of the same NER label from the corpus"
    validation = "same entity count, differs, char edit distance >= 5, no mask/special tokens, no extra `()[]{}_`"

    def transformation(self, builder):
        return NamedEntitySwap(builder.infiller, types=builder.params["ne_types"])

    def constraints(self, builder):
        return [
            *infill_checks(),
            SameCount("same_entity_count", builder.entity_count),
            CharEditDistance(builder.params["min_char_edit"]),
        ]

    def support(self, builder, lang):
        if builder.annotator is None:
            return False, self.without_annotator(builder)
        if builder.infiller is not None:
            return True, f"infill: {builder.public_specs['infiller']}"
        return True, "corpus entity swap (same label)"

    def flags(self, builder):
        out = {}
        if builder.params["ne_types"] == "names":
            out["ne_names_only"] = (
                "ne replaces named entities only (--ne-types names); the paper draws one entity "
                "uniformly among every entity the NER finds, dates, times and numbers included"
            )
        if builder.infiller is None:
            out["ne_corpus_swap"] = (
                "ne swaps in an entity of the same NER label taken from another reference of "
                "this input, not generated (the paper: mT5 infilling; --infiller SPEC)"
            )
        return out


PHENOMENON = NamedEntity()
