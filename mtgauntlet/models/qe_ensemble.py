"""Several QE metrics used as one objective: ``--qe A,B`` (the MT-breaker paper optimises and reports the average
of MetricX-24-QE and LLM-as-QE, both on a 0-100 quality scale).

Each component is loaded by its own spec, its scores are mapped to 0-100 quality, and the ensemble score of a
text is the plain mean of its components. A component that gives no score for a text (``None`` or NaN: an
unparseable LLM judgement) makes the ensemble score of that text missing (``None``) — never a number, and never a
mean over the components that happened to answer, which would be a different metric. Every component score is
kept (:meth:`QEEnsemble.score_components`).

Spec option consumed here, before the component is loaded: ``#error=<max>`` (``#error`` alone = 25) for a backend
whose scores are *errors* on ``[0, max]`` (lower is better, e.g. a MetricX-like regression head loaded with
``hf:``): quality = ``100 * (1 - clip(x, 0, max) / max)``. ``metricx:`` maps its own 0-25 errors already.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from mtgauntlet.errors import GauntletError
from mtgauntlet.models.base import QualityEstimator


def split_specs(value: str | Sequence[str] | None, names: Collection[str] = ()) -> list[str]:
    """``"A,B"`` -> ``["A", "B"]``, each spec with its options (``hf:x#scale=100,error=25``,
    ``llm-as-qe:openai:m@URL#price=1/2,json=1``): :func:`mtgauntlet.core.spec_list.split_spec_list`, where a bare
    word is a spec when it names a backend (or one of ``names``)."""
    from mtgauntlet.core.spec_list import split_spec_list
    from mtgauntlet.models.registry import REGISTRY

    return split_spec_list(value, {*REGISTRY, *names})


def error_to_quality(error: float | None, max_error: float = 25.0) -> float | None:
    """Map an error score on ``[0, max_error]`` (lower is better) to 0-100 quality; None stays None."""
    if error is None or (isinstance(error, float) and math.isnan(error)):
        return None
    return 100.0 * (1.0 - min(max(float(error), 0.0), max_error) / max_error)


@dataclass(frozen=True)
class Component:
    spec: str  # as the user wrote it
    backend_spec: str  # without the options consumed here
    max_error: float | None = None


def parse_component(spec: str) -> Component:
    main, sep, opts = spec.partition("#")
    if not sep:
        return Component(spec, spec)
    keep, max_error = [], None
    for part in [p for p in opts.split(",") if p]:
        key, eq, val = part.partition("=")
        if key.strip() == "error":
            try:
                max_error = float(val) if eq else 25.0
            except ValueError:
                raise GauntletError(f"QE spec {spec!r}: #error takes a number (the worst error score)") from None
            if max_error <= 0:
                raise GauntletError(f"QE spec {spec!r}: #error must be > 0")
        else:
            keep.append(part)
    return Component(spec, main + ("#" + ",".join(keep) if keep else ""), max_error)


def _valid(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


class QEEnsemble(QualityEstimator):
    description = "mean of several QE metrics on the 0-100 quality scale"

    def __init__(self, specs: Sequence[str]):
        from mtgauntlet.models import registry

        self.specs = list(specs)
        if not self.specs:
            raise GauntletError("no QE spec given")
        self.components = [parse_component(s) for s in self.specs]
        self.backends = [registry.load("qe", c.backend_spec) for c in self.components]
        self.spec = ",".join(self.specs)

    def score_components(self, sources, translations, src_lang, tgt_lang) -> list[list[float | None]]:
        """Per text, the 0-100 quality of each component (``None`` where a component gave no score)."""
        sources, translations = list(sources), list(translations)
        per_component = []
        for comp, backend in zip(self.components, self.backends):
            values = [_valid(v) for v in backend.score(sources, translations, src_lang, tgt_lang)]
            if comp.max_error is not None:
                values = [error_to_quality(v, comp.max_error) for v in values]
            per_component.append(values)
        return [[vals[i] for vals in per_component] for i in range(len(sources))]

    @staticmethod
    def combine(components: Sequence[float | None]) -> float | None:
        values = [c for c in components if c is not None]
        if not components or len(values) < len(components):
            return None
        return sum(values) / len(values)

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float | None]:
        return [self.combine(c) for c in self.score_components(sources, translations, src_lang, tgt_lang)]


def load_qe(specs: str | Sequence[str] | None = None) -> QEEnsemble:
    """``--qe`` value (one spec, ``A,B`` or a list) -> ensemble; default: the embedded ``qe``."""
    return QEEnsemble(split_specs(specs) or ["qe"])
