"""``metricx:<checkpoint dir or id>[#tokenizer=...,version=24|23,max_length=N,batch=N,device=cpu]`` — MetricX QE.

Loads the released checkpoints as they are laid out (google-research/metricx, ``MT5ForRegression``): an mT5
encoder-decoder whose prediction is the logit of the vocabulary token ``<extra_id_10>`` (id 250089 in the mT5
vocabulary) at the first decoder step (decoder input: token 0), clipped to [0, 25] — an *error* score, lower is
better. Inputs follow the reference ``predict.py``: ``source: {src} candidate: {hyp}`` for MetricX-24 QE
(``#version=23``: ``candidate: {hyp} source: {src}``), truncated to ``max_length`` tokens (1536 / 1024), the
tokenizer's end-of-sequence token removed. The checkpoints ship no tokenizer: ``#tokenizer=`` names one (the
reference uses ``google/mt5-xl``, the default when the checkpoint folder has none).

As a :class:`QualityEstimator` it returns quality on the project's 0-100 scale, ``100 - 4 * error``
(:func:`mtgauntlet.models.qe_ensemble.error_to_quality`); :meth:`MetricXQE.errors` gives the raw scores.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from mtgauntlet.core.cache import cached_map, parse_options
from mtgauntlet.core.spec_public import ANSWER
from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models.base import PLACEMENT_OPTIONS, QualityEstimator

SCORE_TOKEN = "<extra_id_10>"
MAX_ERROR = 25.0
DEFAULT_TOKENIZER = "google/mt5-xl"


def metricx_input(source: str, candidate: str, version: str = "24") -> str:
    if version == "23":
        return f"candidate: {candidate} source: {source}"
    return f"source: {source} candidate: {candidate}"


class MetricXQE(QualityEstimator):
    description = "MetricX-24/23 QE checkpoint (mT5, <extra_id_10> logit at decoder step 1, 0-25 -> 0-100 quality)"
    options = {**PLACEMENT_OPTIONS, "version": ANSWER, "max_length": ANSWER, "tokenizer": ANSWER}
    requires = (("torch", "models"), ("transformers", "models"))

    def __init__(self, arg: str, device: str = "cpu"):
        from mtgauntlet.models.hf import _from_pretrained, _torch

        self._torch = _torch()
        import transformers

        path, opts = parse_options(arg)
        if not path:
            raise GauntletError("metricx needs a checkpoint: metricx:<dir or model id>[#tokenizer=<dir or id>]")
        self.version = opts.get("version", "24")
        if self.version not in ("23", "24"):
            raise GauntletError(f"metricx: unknown #version={self.version!r} (23 or 24)")
        self.max_length = int(opts.get("max_length", 1536 if self.version == "24" else 1024))
        self.batch_size = int(opts.get("batch", 8))
        self.device = opts.get("device", device)
        local = Path(path)
        has_tokenizer = local.is_dir() and any(
            (local / f).exists() for f in ("tokenizer.json", "spiece.model", "tokenizer_config.json")
        )
        self.tokenizer_name = opts.get("tokenizer") or (path if has_tokenizer else DEFAULT_TOKENIZER)
        self.tokenizer = _from_pretrained(transformers.AutoTokenizer, self.tokenizer_name)
        self.token_id = self.tokenizer.convert_tokens_to_ids(SCORE_TOKEN)
        if self.token_id is None or self.token_id == self.tokenizer.unk_token_id:
            raise BackendUnavailable(
                f"metricx: the tokenizer {self.tokenizer_name!r} has no {SCORE_TOKEN} token "
                "(use the mT5 tokenizer: #tokenizer=google/mt5-xl)"
            )
        self.model = _from_pretrained(transformers.MT5ForConditionalGeneration, path).to(self.device).eval()
        # MetricX rescales the decoder output only when the checkpoint ties its embeddings (the released ones do
        # not); read the flag from config.json as saved, since newer transformers force it to True on load.
        self.rescale = _saved_flag(local / "config.json", "tie_word_embeddings", False) if local.is_dir() else False

    def _encode(self, source: str, candidate: str) -> list[int]:
        ids = self.tokenizer(
            metricx_input(source, candidate, self.version), max_length=self.max_length, truncation=True
        )["input_ids"]
        if ids and ids[-1] == self.tokenizer.eos_token_id:
            ids = ids[:-1]  # as the reference predict.py (_remove_eos)
        return ids

    def _predict(self, pairs: Sequence[Sequence[str]]) -> list[float]:
        torch = self._torch
        seqs = [self._encode(s, t) for s, t in pairs]
        out = [0.0] * len(seqs)
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
        pad = self.tokenizer.pad_token_id or 0
        head = self.model.lm_head.weight[self.token_id]
        for k in range(0, len(order), self.batch_size):
            idx = order[k : k + self.batch_size]
            width = max(1, max(len(seqs[i]) for i in idx))
            ids = torch.full((len(idx), width), pad, dtype=torch.long)
            mask = torch.zeros((len(idx), width), dtype=torch.long)
            for r, i in enumerate(idx):
                ids[r, : len(seqs[i])] = torch.tensor(seqs[i], dtype=torch.long)
                mask[r, : len(seqs[i])] = 1
            ids, mask = ids.to(self.device), mask.to(self.device)
            with torch.no_grad():
                enc = self.model.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
                start = torch.zeros((len(idx), 1), dtype=torch.long, device=self.device)
                hidden = self.model.decoder(
                    input_ids=start, encoder_hidden_states=enc, encoder_attention_mask=mask, use_cache=False
                ).last_hidden_state[:, 0]
                if self.rescale:
                    hidden = hidden * (self.model.config.d_model**-0.5)
                pred = torch.clamp(hidden.float() @ head.float(), 0.0, MAX_ERROR)
            for r, i in enumerate(idx):
                out[i] = float(pred[r])
        return out

    def errors(self, sources, translations) -> list[float]:
        """Raw MetricX scores, 0 (no error) .. 25 (worst); cached per (source, candidate)."""
        params = {"version": self.version, "max_length": self.max_length, "tokenizer": self.tokenizer_name}
        return cached_map(self.spec, "metricx", params, [[s, t] for s, t in zip(sources, translations)], self._predict)

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float | None]:
        from mtgauntlet.models.qe_ensemble import error_to_quality

        return [error_to_quality(e, MAX_ERROR) for e in self.errors(sources, translations)]


def _saved_flag(config_path: Path, key: str, default: bool) -> bool:
    try:
        return bool(json.loads(config_path.read_text(encoding="utf-8")).get(key, default))
    except (OSError, ValueError):
        return default
