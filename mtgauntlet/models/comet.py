"""``comet:<model id or checkpoint path>[#device=..,batch=..]`` — unbabel-comet QE (e.g. CometKiwi), optional extra."""

from __future__ import annotations

from mtgauntlet.core.cache import cached_map, parse_options
from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models.base import PLACEMENT_OPTIONS, QualityEstimator
from mtgauntlet.models.runtime import cache_namespace, resolve_runtime


class CometQE(QualityEstimator):
    description = "COMET / CometKiwi reference-free QE (unbabel-comet)"
    options = PLACEMENT_OPTIONS
    requires = (("comet", "comet"),)
    neural = True

    def __init__(self, arg: str, device: str | None = None, dtype: str | None = None, batch_size: int | None = None):
        try:
            from comet import download_model, load_from_checkpoint
        except ModuleNotFoundError:
            raise BackendUnavailable("comet: needs unbabel-comet (pip install 'mtgauntlet[comet]')") from None
        path, opts = parse_options(arg)
        self.runtime = resolve_runtime(opts, default_batch=16, device=device, dtype=dtype, batch=batch_size)
        try:
            ckpt = path if path.endswith(".ckpt") else download_model(path)
            self.model = load_from_checkpoint(ckpt)
        except Exception as exc:  # network or checkpoint errors
            raise BackendUnavailable(f"cannot load COMET model {path!r}: {exc}") from None
        if self.runtime.dtype != "fp32":
            self.model = self.model.to(self.runtime.torch_dtype())
        dev = self.runtime.device
        # COMET runs through Lightning: gpus=0 is CPU; a CUDA device is chosen by index
        self._predict_kw = (
            {"gpus": 1, "devices": [int(dev.partition(":")[2] or 0)]} if dev.startswith("cuda") else {"gpus": 0}
        )
        self.batch_size = self.runtime.batch

    def runtime_info(self) -> dict:
        return self.runtime.info()

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        def run(pairs):
            data = [{"src": s, "mt": t} for s, t in pairs]
            pred = self.model.predict(data, batch_size=self.batch_size, progress_bar=False, **self._predict_kw)
            return [100.0 * s for s in pred.scores]

        return cached_map(
            cache_namespace(self.spec, self.runtime), "qe", {}, [[s, t] for s, t in zip(sources, translations)], run
        )
