"""chrF, chrF++ and BLEU as workbench metrics: sacrebleu's sentence scores, computed in batches by the compiled
kernels of `mtgauntlet.validators.sentence_lexical` (equal to ``sentence_score`` to 1e-9; the property test
checks it), under sacrebleu's own signature (``chrf|chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:…``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from mtgauntlet.workbench.registry import Example, WorkbenchMetric

# texts of several scripts for the registry-wide tests: Latin, CJK, Arabic, emoji, empty and blank hypotheses
EXAMPLE_PAIRS = (
    ("The cat sat on the mat.", "The cat sat on the mat."),
    ("A cat was sitting on a mat!", "The cat sat on the mat."),
    ("He paid 3,50 euros - twice.", "He paid 3.50 euros, twice."),
    ("東京は日本の首都です。", "東京は日本の首都である。"),
    ("القطة جلست على الحصيرة", "جلست القطة على الحصيرة."),
    ("Great job 👍🏽 (really)", "Great job 👍 really"),
    ("", "Nothing was translated."),
    ("   ", "Blank."),
)


class _Sacrebleu(WorkbenchMetric):
    """A sacrebleu metric scored sentence by sentence, in batches."""

    needs_ref = True
    thread_safe = True  # compiled kernels that release the GIL; the sacrebleu object is only read

    def __init__(self) -> None:
        from mtgauntlet.workbench.kernel_process import attach

        # a command line's run: a second process loads the compiled kernels while this one reads the catalog
        self.process = attach(type(self))
        self.metric = self.make()
        self.metric.corpus_score(["a"], [["a"]])  # sacrebleu knows its signature once it has seen references
        if self.process is not None:
            self.process.expect(type(self), self.signature())
        self._warm: threading.Thread | None = None
        if self.process is None:  # here: the kernels load (or compile) in the background meanwhile
            self._warm = threading.Thread(target=self.score, args=([""], ["a b"], ["a c"], "", ""), daemon=True)
            self._warm.start()

    def ready(self) -> None:
        """Wait for the warm-up (the first call compiles or loads the kernels)."""
        if self._warm is not None:
            self._warm.join()

    @staticmethod
    def make() -> Any:
        raise NotImplementedError

    def signature(self) -> str:
        return str(self.metric.get_signature().format())

    @staticmethod
    def kernel() -> Any:
        """The batched scorer of `mtgauntlet.validators.sentence_lexical`: ``kernel(metric, hyps, refs)``."""
        raise NotImplementedError

    def score(
        self, src: list[str], hyp: list[str], ref: list[str | None], src_lang: str, tgt_lang: str
    ) -> Sequence[float | None]:
        if self.process is not None:
            scores = self.process.score(type(self), hyp, ref)
            if scores is not None:
                return scores
            self.process = None  # the process is gone or refused the metric: scored here from now on
        if threading.current_thread() is not self._warm:
            self.ready()
        return self.kernel()(self.metric, hyp, ref)

    @classmethod
    def example(cls) -> Example:
        metric = cls.make()
        hyp = [h for h, _ in EXAMPLE_PAIRS] + ["no reference"]
        ref: list[str | None] = [r for _, r in EXAMPLE_PAIRS] + [None]
        expected = [metric.sentence_score(h, [r]).score if r is not None else None for h, r in zip(hyp, ref)]
        return Example([""] * len(hyp), hyp, ref, "xx", "yy", expected)


class ChrF(_Sacrebleu):
    """sacrebleu's sentence chrF (character 6-grams, beta 2, effective order)."""

    @staticmethod
    def make() -> Any:
        from sacrebleu.metrics import CHRF

        return CHRF()

    @staticmethod
    def kernel() -> Any:
        from mtgauntlet.validators.sentence_lexical import chrf_sentences

        return chrf_sentences


class ChrFPlusPlus(ChrF):
    """sacrebleu's sentence chrF++ (character 6-grams and word 2-grams)."""

    @staticmethod
    def make() -> Any:
        from sacrebleu.metrics import CHRF

        return CHRF(word_order=2)


class Bleu(_Sacrebleu):
    """sacrebleu's sentence BLEU (13a tokenizer, exp smoothing, effective order: ``sentence_bleu``'s)."""

    @staticmethod
    def make() -> Any:
        from sacrebleu.metrics import BLEU

        return BLEU(effective_order=True)

    @staticmethod
    def kernel() -> Any:
        from mtgauntlet.validators.sentence_lexical import bleu_sentences

        return bleu_sentences
