"""``comet:<model id or checkpoint path>`` — unbabel-comet QE (e.g. CometKiwi), optional extra."""

from __future__ import annotations

from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models.base import QualityEstimator
from mtgauntlet.models.cache import cached_map


class CometQE(QualityEstimator):
    description = "COMET / CometKiwi reference-free QE (unbabel-comet)"

    def __init__(self, arg: str, batch_size: int = 16, gpus: int = 0):
        try:
            from comet import download_model, load_from_checkpoint
        except ModuleNotFoundError:
            raise BackendUnavailable("comet: needs unbabel-comet (pip install 'mtgauntlet[comet]')") from None
        try:
            path = arg if arg.endswith(".ckpt") else download_model(arg)
            self.model = load_from_checkpoint(path)
        except Exception as exc:  # network or checkpoint errors
            raise BackendUnavailable(f"cannot load COMET model {arg!r}: {exc}") from None
        self.batch_size, self.gpus = batch_size, gpus

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        def run(pairs):
            data = [{"src": s, "mt": t} for s, t in pairs]
            return [100.0 * s for s in self.model.predict(data, batch_size=self.batch_size, gpus=self.gpus).scores]

        return cached_map(self.spec, "qe", {}, [[s, t] for s, t in zip(sources, translations)], run)
