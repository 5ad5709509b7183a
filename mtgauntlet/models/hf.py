"""transformers backends (``hf:<model id or local path>[#options]``), imported lazily.

- causal LM (chat template when the tokenizer has one), GGUF via ``#file=<name>.gguf``
- seq2seq translation (Marian/OPUS-MT, NLLB/M2M with ``#src=..,tgt=..`` language tokens)
- mT5/T5 span infilling with ``<extra_id_0>``
- NLI, regression QE/difficulty and Sentinel live in :mod:`mtgauntlet.models.hf_encoders`

Every backend takes ``#device=auto|cpu|cuda[:N]|mps,dtype=auto|fp32|bf16|fp16,batch=N`` (or the global
defaults, see :mod:`mtgauntlet.models.runtime`), runs length-sorted batches, halves the batch on an
out-of-memory error and counts truncated inputs (:mod:`mtgauntlet.models.batching`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mtgauntlet.core.cache import cached_map, parse_options
from mtgauntlet.core.spec_public import ANSWER
from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models.base import PLACEMENT_OPTIONS, ChatLLM, Infiller, Translator, per_item_seeds
from mtgauntlet.models.batching import LengthBatcher
from mtgauntlet.models.runtime import Runtime, cache_namespace, resolve_runtime


def _torch():
    try:
        import torch
    except ModuleNotFoundError:
        raise BackendUnavailable("hf: backends need torch (pip install torch==2.13.0 on CPU)") from None
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except ModuleNotFoundError:
        pass
    return torch


def _from_pretrained(cls, path: str, **kw):
    """``cls.from_pretrained(path)``; a path that is missing or holds no usable model is a one-line user error."""
    from pathlib import Path

    hint = "give a local model directory or a model id available in the local Hugging Face cache (no hub access here)"
    if path.startswith(("/", "./", "../", "~")) and not Path(path).expanduser().exists():
        raise BackendUnavailable(f"cannot load {path!r} (no such file or directory); {hint}")
    try:
        return cls.from_pretrained(path, **kw)
    except (OSError, ValueError) as exc:  # ValueError: a directory without a usable tokenizer/config
        why = " ".join(str(exc).split()) or type(exc).__name__
        why = why if len(why) <= 200 else why[:199] + "…"
        raise BackendUnavailable(f"cannot load {path!r} ({why}); {hint}") from None


def dtype_kwargs(runtime: Runtime) -> dict[str, Any]:
    """``from_pretrained`` keyword for the weights' dtype (``dtype`` since transformers 4.56, ``torch_dtype`` before)."""
    import transformers
    from packaging.version import Version

    key = "dtype" if Version(transformers.__version__) >= Version("4.56") else "torch_dtype"
    return {key: runtime.torch_dtype()}


def load_model(cls, path: str, runtime: Runtime, **kw):
    return _from_pretrained(cls, path, **kw, **dtype_kwargs(runtime)).to(runtime.device).eval()


# the options of every hf: class (one backend name, six roles): placement, a GGUF file, decoding, language codes,
# labels and score mapping
HF_OPTIONS: dict[str, str] = {
    **PLACEMENT_OPTIONS,
    **dict.fromkeys(("file", "beams", "max_tokens", "src", "tgt", "labels", "scale", "negate"), ANSWER),
}


class TorchBackend:
    """Mixin of the torch backends: resolved runtime, length batcher, output-cache namespace, runtime info."""

    neural = True
    options: Mapping[str, str] | None = PLACEMENT_OPTIONS
    requires: tuple[tuple[str, str], ...] = (("torch", "models"), ("transformers", "models"))
    runtime: Runtime
    batcher: LengthBatcher
    tokenizer: Any

    def _setup_runtime(
        self,
        opts: dict[str, str],
        label: str,
        *,
        device: str | None,
        dtype: str | None,
        batch_size: int | None,
        default_batch: int = 16,
    ) -> Runtime:
        self._torch = _torch()
        self.runtime = resolve_runtime(opts, default_batch=default_batch, device=device, dtype=dtype, batch=batch_size)
        self.device = self.runtime.device
        self.batcher = LengthBatcher(self.runtime.batch, label, self.runtime.device)
        return self.runtime

    def _load_hf(
        self, arg: str, model_class: str, *, device: str | None, dtype: str | None, batch_size: int | None
    ) -> tuple[str, dict[str, str]]:
        """``hf:<path>[#options]``: the runtime resolved and the tokenizer and the ``model_class`` (a transformers
        Auto class name) of ``path`` loaded onto it; returns (path, options)."""
        path, opts = parse_options(arg)
        runtime = self._setup_runtime(opts, f"hf:{path}", device=device, dtype=dtype, batch_size=batch_size)
        self.tokenizer, self.model = _load_pair(model_class, path, runtime)
        return path, opts

    @property
    def batch_size(self) -> int:
        return self.batcher.batch

    @property
    def cache_spec(self) -> str:
        return cache_namespace(getattr(self, "spec", ""), self.runtime) if getattr(self, "spec", "") else ""

    def runtime_info(self) -> dict[str, Any]:
        return {**self.runtime.info(), **self.batcher.info()}

    def max_input_tokens(self) -> int | None:
        n = getattr(self.tokenizer, "model_max_length", None)
        return n if n and n < 100_000 else None

    def map_encoded(self, firsts: list[str], seconds: list[str] | None, run_model: Callable[[Any, list[int]], list]):
        """Tokenize once (no truncation) to sort by length and count truncations, then run ``run_model(batch, idx)``
        over length-sorted padded batches; results come back in input order."""
        if not firsts:
            return []
        tok = self.tokenizer
        args = (firsts,) if seconds is None else (firsts, seconds)
        enc = tok(*args, truncation=False, padding=False)
        lengths = [len(x) for x in enc["input_ids"]]
        limit = self.max_input_tokens()
        self.batcher.count_truncated(lengths, limit)
        keys = list(enc.keys())

        def run(idx: list[int]) -> list:
            if limit and any(lengths[i] > limit for i in idx):
                batch = tok(*[[a[i] for i in idx] for a in args], truncation=True, padding=True, return_tensors="pt")
            else:
                batch = tok.pad([{k: enc[k][i] for k in keys} for i in idx], return_tensors="pt")
            with self._torch.no_grad():
                return run_model(batch.to(self.device), idx)

        return self.batcher.map(lengths, run)


def _load_pair(model_cls_name: str, path: str, runtime: Runtime):
    """(tokenizer, model on the runtime's device and dtype, in eval mode) for ``hf:<path>``."""
    import transformers

    tokenizer = _from_pretrained(transformers.AutoTokenizer, path)
    model = load_model(getattr(transformers, model_cls_name), path, runtime)
    max_pos = getattr(model.config, "max_position_embeddings", None)
    if max_pos and tokenizer.model_max_length > 100_000:  # tokenizer saved without a limit: truncate to the model's
        tokenizer.model_max_length = max_pos - 2
    return tokenizer, model


class HFChatLLM(TorchBackend, ChatLLM):
    description = "transformers causal LM"
    options = HF_OPTIONS
    max_logprob_tokens = 1024

    def __init__(self, arg: str, device: str | None = None, dtype: str | None = None, batch_size: int | None = None):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        path, opts = parse_options(arg)
        runtime = self._setup_runtime(opts, f"hf:{path}", device=device, dtype=dtype, batch_size=batch_size)
        kw = {"gguf_file": opts["file"]} if "file" in opts else {}
        self.tokenizer = _from_pretrained(AutoTokenizer, path, **kw)
        self.model = load_model(AutoModelForCausalLM, path, runtime, **kw)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

    def _format(self, messages) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
        return "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant:"

    def _generate(self, prompt: str, max_tokens: int, temperature: float, seed: int | None) -> str:
        """One prompt; sampling is seeded per prompt, so a reply never depends on what else is asked."""
        torch = self._torch
        enc = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(self.device)
        kw = dict(max_new_tokens=max_tokens, pad_token_id=self.tokenizer.pad_token_id)
        if temperature > 0:
            kw.update(do_sample=True, temperature=temperature, top_k=50)
            if seed is not None:
                torch.manual_seed(seed)
        else:
            kw.update(do_sample=False)
        with torch.no_grad():
            out = self.model.generate(**enc, **kw)
        return self.tokenizer.decode(out[0][enc["input_ids"].shape[1] :], skip_special_tokens=True).strip()

    def _generate_greedy(self, prompts: list[str], max_tokens: int) -> list[str]:
        """Greedy replies in length-sorted, left-padded batches."""
        if not prompts:
            return []
        tok = self.tokenizer
        lengths = [len(x) for x in tok(prompts, add_special_tokens=False)["input_ids"]]

        def run(idx: list[int]) -> list[str]:
            tok.padding_side = "left"
            enc = tok([prompts[i] for i in idx], return_tensors="pt", padding=True, add_special_tokens=False).to(
                self.device
            )
            with self._torch.no_grad():
                out = self.model.generate(
                    **enc, max_new_tokens=max_tokens, do_sample=False, pad_token_id=tok.pad_token_id
                )
            width = enc["input_ids"].shape[1]
            return [s.strip() for s in tok.batch_decode(out[:, width:], skip_special_tokens=True)]

        return self.batcher.map(lengths, run)

    def _replies(self, items: list, max_tokens: int, temperature: float) -> list[str]:
        prompts = [self._format(messages) for messages, _ in items]
        if temperature <= 0:
            return self._generate_greedy(prompts, max_tokens)
        return [self._generate(p, max_tokens, temperature, seed) for p, (_, seed) in zip(prompts, items)]

    def chat_many(self, conversations, *, max_tokens=256, temperature=0.0, seed=None, concurrency=None) -> list[str]:
        """Greedy replies run in batches; sampled replies run one by one, each with its own seed. A sampled
        reply without a seed is not cached."""
        seeds = per_item_seeds(seed, len(conversations))
        items = [[list(c), None if temperature <= 0 else s] for c, s in zip(conversations, seeds)]
        keyed = [i for i, (_, s) in enumerate(items) if temperature <= 0 or s is not None]
        out: list[str | None] = [None] * len(items)
        params = {"max_tokens": max_tokens, "temperature": temperature}
        done = cached_map(
            self.cache_spec,
            "chat",
            params,
            [items[i] for i in keyed],
            lambda xs: self._replies(xs, max_tokens, temperature),
        )
        for i, reply in zip(keyed, done):
            out[i] = reply
        for i in sorted(set(range(len(items))) - set(keyed)):
            out[i] = self._replies([items[i]], max_tokens, temperature)[0]
        return out  # type: ignore[return-value]

    def chat(self, messages, *, max_tokens=256, temperature=0.0, seed=None) -> str:
        return self.chat_many([messages], max_tokens=max_tokens, temperature=temperature, seed=seed)[0]

    def complete(self, prompt, *, max_tokens=256, temperature=0.0, seed=None) -> str:
        params = {"max_tokens": max_tokens, "temperature": temperature, "seed": seed}
        return cached_map(
            self.cache_spec,
            "complete",
            params,
            [prompt],
            lambda ps: [self._generate(p, max_tokens, temperature, seed) for p in ps],
        )[0]

    def token_logprobs(self, texts: Sequence[str], batch_size: int | None = None) -> list[list[float]]:
        """Per-token log-probabilities (BOS-conditioned), in length-sorted batches; cached per text."""
        if batch_size is not None:
            self.batcher.batch = batch_size
        return cached_map(self.cache_spec, "token_logprobs", {}, list(texts), self._token_logprobs)

    def _token_logprobs(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        torch = self._torch
        bos = self.tokenizer.bos_token_id
        ids_all = self.tokenizer(texts, add_special_tokens=False)["input_ids"]
        self.batcher.count_truncated([len(x) for x in ids_all], self.max_logprob_tokens)
        seqs = [([bos] if bos is not None else []) + ids[: self.max_logprob_tokens] for ids in ids_all]
        pad = self.tokenizer.pad_token_id or 0

        def run(idx: list[int]) -> list[list[float]]:
            width = max(len(seqs[i]) for i in idx)
            ids = torch.full((len(idx), width), pad, dtype=torch.long)
            mask = torch.zeros((len(idx), width), dtype=torch.long)
            for r, i in enumerate(idx):
                ids[r, : len(seqs[i])] = torch.tensor(seqs[i])
                mask[r, : len(seqs[i])] = 1
            if width < 2:
                return [[] for _ in idx]
            with torch.no_grad():
                logits = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device)).logits.float()
            lp = torch.log_softmax(logits[:, :-1], dim=-1).gather(2, ids[:, 1:, None].to(self.device))[..., 0]
            return [lp[r, : max(0, len(seqs[i]) - 1)].tolist() for r, i in enumerate(idx)]

        return self.batcher.map([len(s) for s in seqs], run)


class HFTranslator(TorchBackend, Translator):
    description = "transformers seq2seq translation model"
    options = HF_OPTIONS

    def __init__(
        self,
        arg: str,
        device: str | None = None,
        dtype: str | None = None,
        batch_size: int | None = None,
        num_beams: int = 1,
        max_tokens: int = 256,
    ):
        _, self.opts = self._load_hf(arg, "AutoModelForSeq2SeqLM", device=device, dtype=dtype, batch_size=batch_size)
        try:  # hf:opus-mt-en-de#beams=4,max_tokens=128
            self.num_beams = int(self.opts.get("beams", num_beams))
            self.max_tokens = int(self.opts.get("max_tokens", max_tokens))
        except ValueError:
            self.num_beams = self.max_tokens = 0
        if self.num_beams < 1 or self.max_tokens < 1:
            raise BackendUnavailable(f"hf:{arg}: beams and max_tokens must be whole numbers of at least 1")

    def _run(self, texts: list[str], src_lang: str, tgt_lang: str) -> list[str]:
        tok = self.tokenizer
        src_code, tgt_code = self.opts.get("src", None), self.opts.get("tgt", None)
        if src_code and hasattr(tok, "src_lang"):
            tok.src_lang = src_code
        kw = dict(max_new_tokens=self.max_tokens, num_beams=self.num_beams, do_sample=False)
        if tgt_code:
            tid = tok.convert_tokens_to_ids(tgt_code)
            if tid is not None and tid != tok.unk_token_id:
                kw["forced_bos_token_id"] = tid

        def run_model(batch, idx):
            gen = self.model.generate(**batch, **kw)
            return [s.strip() for s in tok.batch_decode(gen, skip_special_tokens=True)]

        return self.map_encoded(texts, None, run_model)

    def translate(self, texts, src_lang, tgt_lang) -> list[str]:
        params = {"src": src_lang, "tgt": tgt_lang, "beams": self.num_beams, "max": self.max_tokens}
        return cached_map(
            self.cache_spec, "translate", params, list(texts), lambda xs: self._run(xs, src_lang, tgt_lang)
        )


_EXTRA_ID = re.compile(r"<extra_id_\d{1,2}>")
LEADING_PUNCT = re.compile(r"^[\s.,;:!?¿¡\"'«»“”„()\[\]{}_-]+")


def extract_first_span(decoded: str) -> str:
    """'<pad><extra_id_0> the fill<extra_id_1> ...' -> 'the fill' (leading punctuation stripped, as SMAUG)."""
    text = decoded.replace("<pad>", "").replace("</s>", "")
    parts = _EXTRA_ID.split(text)
    span = parts[1] if len(parts) > 1 else parts[0]
    return LEADING_PUNCT.sub("", span).strip()


class HFInfiller(TorchBackend, Infiller):
    description = "mT5/T5 span infilling (<extra_id_0>)"
    options = HF_OPTIONS

    def __init__(
        self,
        arg: str,
        device: str | None = None,
        dtype: str | None = None,
        batch_size: int | None = None,
        max_tokens: int = 16,
    ):
        _, opts = self._load_hf(arg, "AutoModelForSeq2SeqLM", device=device, dtype=dtype, batch_size=batch_size)
        try:  # hf:mt5-small#max_tokens=8: the longest span sampled
            self.max_tokens = int(opts.get("max_tokens", max_tokens))
        except ValueError:
            self.max_tokens = 0
        if self.max_tokens < 1:
            raise BackendUnavailable(f"hf:{arg}: max_tokens must be a whole number of at least 1")

    def fill(self, texts, *, n=1, top_k=50, seed=None) -> list[list[str]]:
        """With a seed, each text is sampled on its own with that seed (results independent of the batch);
        without one, texts are sampled in length-sorted batches."""
        torch = self._torch
        kw = dict(do_sample=True, top_k=top_k, num_return_sequences=n, max_new_tokens=self.max_tokens)

        def run_model(batch, idx):
            decoded = self.tokenizer.batch_decode(self.model.generate(**batch, **kw), skip_special_tokens=False)
            return [[extract_first_span(d) for d in decoded[r * n : (r + 1) * n]] for r in range(len(idx))]

        if seed is None:
            return self.map_encoded(list(texts), None, run_model)
        out = []
        for text in texts:
            torch.manual_seed(seed)
            out.extend(self.map_encoded([text], None, run_model))
        return out
