"""``del``: a span of the reference deleted."""

from __future__ import annotations

from mtgauntlet.builders.smaug.clause_edits import Deletion as DeletionTransformation
from mtgauntlet.builders.smaug.constraints import Differs
from mtgauntlet.builders.smaug.phenomena.base import Phenomenon


class Deletion(Phenomenon):
    name = "del"
    example = (
        "Los niños, que estaban cansados después del largo viaje, se durmieron enseguida.",
        "The children, who were tired after the long journey, fell asleep at once.",
    )
    model_free = (
        "the reference implementation's span: **more than 4 and fewer than 10 words** (`--del-min-words 5 "
        "--del-max-words 9`) between runs of `,.!?`, never the first span; the text then ends in `.!?`"
    )
    validation = "differs"

    def transformation(self, builder):
        return DeletionTransformation(builder.params["del_min_words"], builder.params["del_max_words"])

    def constraints(self, builder):
        return [Differs()]

    def support(self, builder, lang):
        return True, "span deletion between punctuation"

    def flags(self, builder):
        return {
            "del_split": (
                "del does not split at separators inside numbers (1,200), and a candidate that ends "
                "in a word gets a '.' (the reference replaces its last character)"
            )
        }


PHENOMENON = Deletion()
