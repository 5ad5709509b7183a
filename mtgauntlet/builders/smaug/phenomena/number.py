"""``num``: one number of the reference changed."""

from __future__ import annotations

from mtgauntlet.builders.smaug.constraints import (
    SameCount,
    count_numbers,
    infill_checks,
)
from mtgauntlet.builders.smaug.phenomena.base import Phenomenon
from mtgauntlet.builders.smaug.transformations import NumberChange


class Number(Phenomenon):
    name = "num"
    example = ("El puente mide 250 metros.", "The bridge is 250 metres long.")
    paper = "mT5 infill (the replaced number's sign and leading `.` are kept: `-3` → `-7`, `.5` → `.25`)"
    model_free = "format-preserving digit change"
    validation = "same number count, differs, no mask/special tokens, no extra brackets"

    def transformation(self, builder):
        return NumberChange(builder.infiller)

    def constraints(self, builder):
        return [
            *infill_checks(),
            SameCount("same_number_count", count_numbers),
        ]

    def support(self, builder, lang):
        return (
            True,
            f"infill: {builder.public_specs['infiller']}" if builder.infiller else "format-preserving digit change",
        )

    def flags(self, builder):
        if builder.infiller is not None:
            return {}
        return {
            "num_digit_change": (
                "num changes one digit of a number, keeping its format (digit count, separators, "
                "sign), not generated (the paper: mT5 infilling; --infiller SPEC)"
            )
        }


PHENOMENON = Number()
