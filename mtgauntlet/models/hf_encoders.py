"""transformers encoder backends: NLI (``hf:``), regression QE/difficulty heads (``hf:``) and ``sentinel:``.

They take the same ``#device=..,dtype=..,batch=..`` options as every torch backend (see
:mod:`mtgauntlet.models.hf`) and run length-sorted batches with out-of-memory back-off.
"""

from __future__ import annotations

from pathlib import Path

from mtgauntlet.core.cache import cached_map, parse_options
from mtgauntlet.core.spec_public import ANSWER
from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models.base import NLI, NLI_LABELS, PLACEMENT_OPTIONS, DifficultyEstimator, QualityEstimator
from mtgauntlet.models.hf import HF_OPTIONS, TorchBackend, _from_pretrained

CLASSIFIER = "AutoModelForSequenceClassification"  # the NLI and regression heads' transformers class


def _normalise_label(label: str) -> str | None:
    low = label.lower()
    for name in NLI_LABELS:
        if low.startswith(name[:5]):
            return name
    if low in ("not_entailment", "non-entailment"):
        return "neutral"
    return None


class HFNLI(TorchBackend, NLI):
    description = "transformers sequence-classification NLI"
    options = HF_OPTIONS

    def __init__(self, arg: str, device: str | None = None, dtype: str | None = None, batch_size: int | None = None):
        path, opts = self._load_hf(arg, CLASSIFIER, device=device, dtype=dtype, batch_size=batch_size)
        if "labels" in opts:
            names = opts["labels"].split("+")
        else:
            id2label = self.model.config.id2label
            names = [id2label[i] for i in range(len(id2label))]
        mapped = [_normalise_label(n) for n in names]
        if "contradiction" not in mapped:
            raise BackendUnavailable(
                f"{path}: cannot tell which output is 'contradiction' from labels {names}; pass "
                "#labels=<label0>+<label1>+... with entailment/neutral/contradiction names"
            )
        self.labels = mapped

    def _run(self, pairs: list[list[str]]) -> list[dict[str, float]]:
        torch = self._torch

        def run_model(batch, idx):
            out = []
            for row in torch.softmax(self.model(**batch).logits.float(), dim=-1).tolist():
                d = {name: 0.0 for name in NLI_LABELS}
                for label, p in zip(self.labels, row):
                    if label:
                        d[label] += p
                out.append(d)
            return out

        return self.map_encoded([p for p, _ in pairs], [h for _, h in pairs], run_model)

    def predict(self, premises, hypotheses) -> list[dict[str, float]]:
        return cached_map(self.cache_spec, "nli", {}, [[p, h] for p, h in zip(premises, hypotheses)], self._run)


class _Regressor(TorchBackend):
    def _init_regressor(self, arg: str, device, dtype, batch_size):
        path, self.opts = self._load_hf(arg, CLASSIFIER, device=device, dtype=dtype, batch_size=batch_size)
        if self.model.config.num_labels != 1:
            raise BackendUnavailable(
                f"{path}: expected a regression head (num_labels=1), found {self.model.config.num_labels} labels"
            )

    def _predict(self, firsts: list[str], seconds: list[str] | None) -> list[float]:
        return self.map_encoded(firsts, seconds, lambda batch, idx: self.model(**batch).logits[:, 0].float().tolist())


class HFRegressionQE(_Regressor, QualityEstimator):
    description = "transformers regression head on (source, translation); #scale=<factor> maps to 0..100"
    options = HF_OPTIONS

    def __init__(self, arg: str, device: str | None = None, dtype: str | None = None, batch_size: int | None = None):
        self._init_regressor(arg, device, dtype, batch_size)

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        scale = float(self.opts.get("scale", 1.0))
        raw = cached_map(
            self.cache_spec,
            "qe",
            {},
            [[s, t] for s, t in zip(sources, translations)],
            lambda ps: self._predict([p[0] for p in ps], [p[1] for p in ps]),
        )
        return [min(100.0, max(0.0, r * scale)) for r in raw]


class HFRegressionDifficulty(_Regressor, DifficultyEstimator):
    description = "transformers regression head on the source; #negate when it predicts quality"
    options = HF_OPTIONS

    def __init__(self, arg: str, device: str | None = None, dtype: str | None = None, batch_size: int | None = None):
        self._init_regressor(arg, device, dtype, batch_size)

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float]:
        sign = -1.0 if "negate" in self.opts else 1.0
        raw = cached_map(self.cache_spec, "difficulty", {}, list(texts), lambda xs: self._predict(xs, None))
        return [sign * r for r in raw]


class SentinelDifficulty(TorchBackend, DifficultyEstimator):
    """``sentinel:<local dir or hub id>[#encoder=<local path>]`` — Sentinel-src models (guardians-mt-eval).

    Layout (as on the Hub): ``hparams.yaml`` (pretrained_model, hidden_sizes, activations, final_activation,
    dropout) and ``checkpoints/model.ckpt`` whose ``state_dict`` holds ``encoder.model.*`` (XLM-R without
    pooler) and ``estimator.ff.*`` (feed-forward on the [CLS] state). The model predicts quality; difficulty
    is its negation. ``#lang_token`` prepends the target-language code to the source (for checkpoints
    trained with a target-language token).
    """

    description = "Sentinel-src: XLM-R + feed-forward on [CLS] (guardians-mt-eval checkpoints)"
    options = {**PLACEMENT_OPTIONS, "encoder": ANSWER, "lang_token": ANSWER}

    def __init__(self, arg: str, device: str | None = None, dtype: str | None = None, batch_size: int | None = None):
        import yaml
        from transformers import AutoConfig, AutoTokenizer, XLMRobertaModel

        location, self.opts = parse_options(arg)
        runtime = self._setup_runtime(
            self.opts, f"sentinel:{location}", device=device, dtype=dtype, batch_size=batch_size
        )
        torch = self._torch
        root = Path(location)
        if not root.exists():
            try:
                from huggingface_hub import snapshot_download

                root = Path(snapshot_download(location))
            except Exception as exc:
                raise BackendUnavailable(f"sentinel: cannot find {location!r} locally or download it ({exc})") from None
        hp_path, ckpt = root / "hparams.yaml", root / "checkpoints" / "model.ckpt"
        if not hp_path.exists() or not ckpt.exists():
            raise BackendUnavailable(f"{root}: expected hparams.yaml and checkpoints/model.ckpt (Sentinel layout)")
        hp = yaml.safe_load(hp_path.read_text()) or {}
        encoder = self.opts.get("encoder") or hp.get("pretrained_model", "xlm-roberta-large")
        self.tokenizer = _from_pretrained(AutoTokenizer, encoder)
        config = _from_pretrained(AutoConfig, encoder)
        self.encoder = XLMRobertaModel(config, add_pooling_layer=False)
        self.estimator = _feed_forward(
            config.hidden_size,
            hp.get("hidden_sizes") or [3072, 1024],
            hp.get("activations", "Tanh"),
            hp.get("final_activation"),
        )
        state = torch.load(ckpt, map_location="cpu", weights_only=False)
        state = state.get("state_dict", state)
        enc = {k[len("encoder.model.") :]: v for k, v in state.items() if k.startswith("encoder.model.")}
        est = {k[len("estimator.") :]: v for k, v in state.items() if k.startswith("estimator.")}
        missing = self.encoder.load_state_dict(enc, strict=False).missing_keys
        missing = [k for k in missing if "position_ids" not in k]
        if missing or not est:
            raise BackendUnavailable(f"{ckpt}: checkpoint does not match a Sentinel model (missing {missing[:3]})")
        self.estimator.load_state_dict(est)
        for module in (self.encoder, self.estimator):
            # transformers declares PreTrainedModel.to with functools.wraps, which mypy reads as a call without self
            module.to(device=runtime.device, dtype=runtime.torch_dtype()).eval()  # type: ignore[call-arg]
        max_pos = getattr(config, "max_position_embeddings", None)
        if max_pos and self.tokenizer.model_max_length > 100_000:
            self.tokenizer.model_max_length = max_pos - 2

    def predict_quality(self, texts: list[str]) -> list[float]:
        def run_model(batch, idx):
            cls = self.encoder(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state[
                :, 0
            ]
            return self.estimator(cls).view(-1).float().tolist()

        return self.map_encoded(list(texts), None, run_model)

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float]:
        texts = list(texts)
        if "lang_token" in self.opts and tgt_lang:
            texts = [f"{tgt_lang} {t}" for t in texts]
        q = cached_map(
            self.cache_spec,
            "sentinel",
            {"lang": tgt_lang if "lang_token" in self.opts else None},
            texts,
            self.predict_quality,
        )
        return [-x for x in q]


def _feed_forward(in_dim: int, hidden: list[int], activation: str, final: str | None):
    """The Sentinel/COMET FeedForward: [Linear, act, Dropout]* + Linear(1) [+ final act], as ``ff``."""
    from torch import nn  # imported already: the backend's _torch() found it

    def act(name):
        return getattr(nn, name.title())()

    layers = [nn.Linear(in_dim, hidden[0]), act(activation), nn.Dropout(0.0)]
    for a, b in zip(hidden, hidden[1:]):
        layers += [nn.Linear(a, b), act(activation), nn.Dropout(0.0)]
    layers.append(nn.Linear(hidden[-1], 1))
    if final:
        layers.append(act(final))

    class FeedForward(nn.Module):
        def __init__(self):
            super().__init__()
            self.ff = nn.Sequential(*layers)

        def forward(self, x):
            return self.ff(x)

    return FeedForward()
