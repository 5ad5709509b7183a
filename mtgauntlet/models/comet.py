"""``comet:<model id or checkpoint path>[#device=..,batch=..]`` — unbabel-comet QE (e.g. CometKiwi, xCOMET), optional
extra.

An xCOMET model (unbabel-comet's ``XCOMETMetric``, or any model with word-level tags) also marks error spans: its
``predict`` output holds ``metadata.error_spans``, per input a list of ``{"text", "confidence", "severity", "start",
"end"}`` (``UnifiedMetric.decode``: ``start``/``end`` the tokenizer's character offsets into ``mt`` of the first and
last subword of the span, ``severity`` ``minor``/``major``/``critical``; an empty list: no error). The backend keeps
them (:func:`xcomet_spans`) and the workbench stores them with the score, as ``-m file:`` spans.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mtgauntlet.core.cache import cached_map
from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models.base import QualityEstimator, import_or_unavailable
from mtgauntlet.models.runtime import PlacedModel, cache_namespace


def xcomet_spans(found: Sequence[Mapping[str, Any]] | None, translation: str) -> list[dict[str, Any]] | None:
    """xCOMET's spans of one translation as the workbench stores spans: ``start``/``end`` (character offsets, end
    exclusive, kept inside the text, the whitespace a subword offset may carry at either edge left out),
    ``severity`` lower-cased; a span empty after that is dropped. None (not a span model) stays None."""
    if found is None:
        return None
    out = []
    for s in found:
        start, end = max(0, int(s["start"])), min(len(translation), int(s["end"]))
        while start < end and translation[start].isspace():
            start += 1
        while end > start and translation[end - 1].isspace():
            end -= 1
        if start < end:
            severity = s.get("severity")
            out.append({"start": start, "end": end, "severity": None if severity is None else str(severity).lower()})
    return sorted(out, key=lambda s: (s["start"], s["end"]))


def error_spans_of(prediction: Any, n: int) -> list[Any]:
    """``metadata.error_spans`` of a COMET ``Prediction`` (one list per input), or ``n`` Nones without them."""
    meta = prediction.get("metadata") if isinstance(prediction, Mapping) else getattr(prediction, "metadata", None)
    spans = (meta.get("error_spans") if isinstance(meta, Mapping) else getattr(meta, "error_spans", None)) or None
    return list(spans) if spans is not None and len(spans) == n else [None] * n


class CometQE(PlacedModel, QualityEstimator):
    description = "COMET / CometKiwi / xCOMET reference-free QE (unbabel-comet); xCOMET's error spans kept"
    requires = (("comet", "comet"),)

    def __init__(self, arg: str, device: str | None = None, dtype: str | None = None, batch_size: int | None = None):
        comet = import_or_unavailable("comet", "comet: needs unbabel-comet (pip install 'mtgauntlet[comet]')")
        path = self._place(arg, default_batch=16, device=device, dtype=dtype, batch_size=batch_size)
        try:
            ckpt = path if path.endswith(".ckpt") else comet.download_model(path)
            self.model = comet.load_from_checkpoint(ckpt)
        except Exception as exc:  # network or checkpoint errors
            raise BackendUnavailable(f"cannot load COMET model {path!r}: {exc}") from None
        self.model = self._in_dtype(self.model)
        dev = self.runtime.device
        # COMET runs through Lightning: gpus=0 is CPU; a CUDA device is chosen by index
        self._predict_kw = (
            {"gpus": 1, "devices": [int(dev.partition(":")[2] or 0)]} if dev.startswith("cuda") else {"gpus": 0}
        )
        self.gives_spans = bool(getattr(self.model, "word_level", False))  # xCOMET tags words: it marks spans

    def _predict(self, pairs) -> Any:
        data = [{"src": s, "mt": t} for s, t in pairs]
        return self.model.predict(data, batch_size=self.batch_size, progress_bar=False, **self._predict_kw)

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        def run(pairs):
            return [100.0 * s for s in self._predict(pairs).scores]

        return cached_map(
            cache_namespace(self.spec, self.runtime), "qe", {}, [[s, t] for s, t in zip(sources, translations)], run
        )

    def score_spans(self, sources, translations, src_lang, tgt_lang) -> list[tuple[float, list | None]]:
        """(score, error spans) per translation; spans None where the model gave none (not an xCOMET model)."""

        def run(pairs):
            pred = self._predict(pairs)
            found = error_spans_of(pred, len(pairs))
            return [[100.0 * s, xcomet_spans(f, t)] for s, f, (_, t) in zip(pred.scores, found, pairs)]

        got = cached_map(
            cache_namespace(self.spec, self.runtime),
            "qe_spans",
            {},
            [[s, t] for s, t in zip(sources, translations)],
            run,
        )
        return [(score, spans) for score, spans in got]
