"""The registered workbench metrics: one name -> ``"module:Class"`` table (sacrebleu's ``METRICS`` and lm-eval's
registry are the models), from which ``--metric``'s help, the docs and the workbench's scorers derive.

A registered metric is a subclass of :class:`WorkbenchMetric` in its own module: its ``signature()`` names
everything that makes its scores what they are (a stored score is reused only under an equal signature), its
``score()`` scores a batch of items of one language pair, and its ``example()`` gives items with the scores an
independent computation expects of them (the registry-wide tests, ``tests/workbench/test_metric_registry.py``,
score every registered metric's example, by itself and through ``gauntlet evaluate metric``). Adding a metric is
one new module and one line in :data:`METRICS` (docs/contributing.md, "Add a workbench metric").

Besides the registered names, ``--metric`` takes ``col:NAME`` / ``col:GOOD,BAD`` (the records' kept scores), a QE
spec (``mtgauntlet.models``) and, in Python, a callable (``mtgauntlet.workbench.metrics.make_scorer``).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from mtgauntlet.errors import UsageError


@dataclass(frozen=True)
class Registered:
    """A registered metric: where its class lives (``"module:Class"``, imported when it scores) and one line of
    help (what ``--metric``'s help and the docs say of it, without importing it)."""

    target: str
    help: str


# name -> where its class lives and what it is; one line per metric
METRICS: dict[str, Registered] = {
    "chrf": Registered("mtgauntlet.workbench.lexical:ChrF", "sacrebleu's sentence chrF"),
    "chrf++": Registered("mtgauntlet.workbench.lexical:ChrFPlusPlus", "sacrebleu's sentence chrF++, word 2-grams"),
    "bleu": Registered("mtgauntlet.workbench.lexical:Bleu", "sacrebleu's sentence BLEU: 13a, exp smoothing"),
}


@dataclass(frozen=True)
class Example:
    """Items a metric scores in the registry-wide tests, with the scores an independent computation gives them
    (sacrebleu's own ``sentence_score`` for chrF and BLEU); compared to 1e-9."""

    src: Sequence[str]
    hyp: Sequence[str]
    ref: Sequence[str | None]
    src_lang: str
    tgt_lang: str
    expected: Sequence[float | None]


class WorkbenchMetric:
    """A metric of the workbench. Subclasses set ``needs_ref`` (an item without a reference is not scored) and
    ``thread_safe`` (``score`` may run in two threads at once: the local engine then scores two chunks at a time),
    and define ``signature``, ``score`` and ``example``; the constructor takes no argument."""

    needs_ref: ClassVar[bool] = True
    thread_safe: ClassVar[bool] = False

    def signature(self) -> str:
        """Everything that makes the scores what they are (versions, options); the stored rows' signature is
        ``NAME|`` + this."""
        raise NotImplementedError

    def score(
        self, src: list[str], hyp: list[str], ref: list[str | None], src_lang: str, tgt_lang: str
    ) -> Sequence[float | None]:
        """One score per item (None: not scored)."""
        raise NotImplementedError

    @classmethod
    def example(cls) -> Example:
        """Items and their expected scores, for the registry-wide tests."""
        raise NotImplementedError


def names() -> tuple[str, ...]:
    """The registered metric names, in registration order."""
    return tuple(METRICS)


def described() -> str:
    """``chrf (sentence chrF ...), bleu (...)``: the registered metrics with their help, for ``--metric``."""
    return ", ".join(f"{name} ({entry.help})" for name, entry in METRICS.items())


def metric_class(name: str) -> type[WorkbenchMetric]:
    """The class registered under ``name`` (imported now)."""
    entry = METRICS.get(name)
    if entry is None:
        raise UsageError(f"--metric: {name!r} is not a registered metric ({', '.join(METRICS)})")
    module, _, attr = entry.target.partition(":")
    cls = getattr(importlib.import_module(module), attr)
    if not (isinstance(cls, type) and issubclass(cls, WorkbenchMetric)):
        raise TypeError(f"{entry.target} (registered as {name!r}) is not a WorkbenchMetric")
    return cls
