"""``<translator>><translator>`` — a pivot translator: a chain of translator specs, each leg's output the next
leg's input, for language pairs only a chain covers.

Example: ``bergamot:en-pt>apertium:pt-es`` translates English into Spanish through Portuguese (neural
en->pt, then Debian's rule-based ``apertium-es-pt``). Each leg names its pair (``bergamot:en-pt``,
``apertium:pt-es`` or ``apertium:por-spa``, ``hf:...`` legs need a neighbour that names one) so the
language between two legs is known. Every leg translates each text alone, so the chain does too. A text one
leg fails to translate is not handed to the next: its translation is missing (``None``) and counted.
Compared with the direct Apertium pair in benchmarks/translators.py.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models.base import Translator

SEPARATOR = ">"
_PAIR = re.compile(r"^([a-z]{2,3})(?:_[A-Za-z]+)?-([a-z]{2,3})(?:[_-][A-Za-z0-9_]+)?$")


def _lang2(code: str) -> str:
    from mtgauntlet.models.apertium import ISO3

    back = {v: k for k, v in ISO3.items() if len(k) == 2 and k not in ("sh", "sr", "bs", "hr")}
    return back.get(code, code)


def leg_languages(spec: str) -> tuple[str, str] | None:
    """(source, target) a leg's spec names (``bergamot:en-pt``, ``apertium:por-spa``), else None."""
    _, _, arg = spec.partition(":")
    m = _PAIR.match(arg.partition("#")[0].strip())
    return (_lang2(m.group(1)), _lang2(m.group(2))) if m else None


def chain_languages(legs: Sequence[str], src_lang: str, tgt_lang: str) -> list[str]:
    """The languages along the chain: ``[src, pivot..., tgt]``; an error when a pivot cannot be told or a leg's
    named pair contradicts the requested languages."""
    from mtgauntlet.models.bergamot import lang2

    named = [leg_languages(leg) for leg in legs]
    langs = [lang2(src_lang)]
    for i, pair in enumerate(named):
        if pair is not None and pair[0] != langs[-1]:
            raise BackendUnavailable(
                f"pivot leg {legs[i]!r} translates {pair[0]}->{pair[1]}, but its input is {langs[-1]}"
            )
        if i == len(legs) - 1:
            nxt = lang2(tgt_lang)
        elif pair is not None:
            nxt = pair[1]
        elif (following := named[i + 1]) is not None:
            nxt = following[0]
        else:
            raise GauntletError(
                f"pivot: cannot tell the language between {legs[i]!r} and {legs[i + 1]!r}; "
                "name the pair in one of them (e.g. bergamot:en-pt, apertium:pt-es)"
            )
        if pair is not None and pair[1] != nxt:
            raise BackendUnavailable(f"pivot leg {legs[i]!r} translates into {pair[1]}, not {nxt}")
        langs.append(nxt)
    return langs


class PivotTranslator(Translator):
    description = "pivot: a chain of translators (e.g. bergamot:en-pt>apertium:pt-es)"
    options = None  # its legs are specs: their backends declare the options

    def __init__(self, arg: str = ""):
        from mtgauntlet.models import registry

        self.leg_specs = [p.strip() for p in arg.split(SEPARATOR)]
        if len(self.leg_specs) < 2 or not all(self.leg_specs):
            raise GauntletError(f"pivot spec {arg!r}: give two or more translator specs joined by '{SEPARATOR}'")
        self.legs = [registry.load("translator", s) for s in self.leg_specs]
        self.failures: Counter = Counter()

    def translate(self, texts: Sequence[str], src_lang: str, tgt_lang: str) -> list[str | None]:
        """Each text through every leg. A text a leg could not translate (``None``, e.g. an LLM leg's unusable
        answer) is not handed to the next leg: its translation is ``None`` (missing, as a direct translator's
        failure) and it is counted in ``failures`` (``pivot_leg_failed``)."""
        langs = chain_languages(self.leg_specs, src_lang, tgt_lang)
        out: list[str | None] = list(texts)
        for n, (leg, a, b) in enumerate(zip(self.legs, langs, langs[1:])):
            alive = [i for i, t in enumerate(out) if t is not None]
            if not alive:
                break
            done = leg.translate([out[i] for i in alive], a, b)
            self.failures[f"leg {n + 1}"] += sum(t is None for t in done)
            out = [None] * len(out)
            for i, t in zip(alive, done):
                out[i] = t
        self.failures["pivot_leg_failed"] += sum(t is None for t in out)
        return out

    def runtime_info(self) -> dict:
        """For build.json's ``runtime``: how many texts a leg failed (``pivot_leg_failed``, and by leg), which the
        build's own counts show only as ``mt_failures``."""
        from mtgauntlet.models.registry import public_spec

        by_leg = {
            f"{i + 1}: {public_spec(spec)}": n
            for i, spec in enumerate(self.leg_specs)
            if (n := self.failures[f"leg {i + 1}"])
        }
        return {"pivot_leg_failed": self.failures["pivot_leg_failed"], "failed_by_leg": by_leg}
