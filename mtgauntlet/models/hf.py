"""transformers backends (``hf:<model id or local path>[#options]``), imported lazily.

- causal LM (chat template when the tokenizer has one), GGUF via ``#file=<name>.gguf``
- seq2seq translation (Marian/OPUS-MT, NLLB/M2M with ``#src=..,tgt=..`` language tokens)
- mT5/T5 span infilling with ``<extra_id_0>``
- sequence classification: NLI (labels read from the config, or ``#labels=contradiction+neutral+entailment``)
- regression heads: QE on (source, translation) pairs, difficulty on sources (``#negate`` when it predicts quality)
"""

from __future__ import annotations

import re
from typing import Sequence

from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models.base import NLI, NLI_LABELS, ChatLLM, DifficultyEstimator, Infiller, QualityEstimator, Translator
from mtgauntlet.models.cache import cached_map, parse_options


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
    try:
        return cls.from_pretrained(path, **kw)
    except OSError as exc:
        raise BackendUnavailable(f"cannot load {path!r} ({str(exc).splitlines()[0]}); give a local path or a model "
                                 "id available in the local Hugging Face cache (no hub access here)") from None


def _load_pair(model_cls_name: str, arg: str, device: str):
    """(tokenizer, model on device in eval mode, spec options) for ``hf:<path>#opts``."""
    import transformers

    path, opts = parse_options(arg)
    tokenizer = _from_pretrained(transformers.AutoTokenizer, path)
    model = _from_pretrained(getattr(transformers, model_cls_name), path).to(device).eval()
    max_pos = getattr(model.config, "max_position_embeddings", None)
    if max_pos and tokenizer.model_max_length > 100_000:  # tokenizer saved without a limit: truncate to the model's
        tokenizer.model_max_length = max_pos - 2
    return tokenizer, model, opts


class HFChatLLM(ChatLLM):
    description = "transformers causal LM"

    def __init__(self, arg: str, device: str = "cpu", dtype: str | None = None):
        torch = _torch()
        from transformers import AutoModelForCausalLM, AutoTokenizer

        path, opts = parse_options(arg)
        kw = {"gguf_file": opts["file"]} if "file" in opts else {}
        self.tokenizer = _from_pretrained(AutoTokenizer, path, **kw)
        self.model = _from_pretrained(AutoModelForCausalLM, path, **kw).to(device).eval()
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.device, self._torch = device, torch

    def _format(self, messages) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
        return "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant:"

    def _generate(self, prompt: str, max_tokens: int, temperature: float, seed: int | None) -> str:
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
        return self.tokenizer.decode(out[0][enc["input_ids"].shape[1]:], skip_special_tokens=True).strip()

    def chat(self, messages, *, max_tokens=256, temperature=0.0, seed=None) -> str:
        params = {"max_tokens": max_tokens, "temperature": temperature, "seed": seed}
        if temperature > 0 and seed is None:
            return self._generate(self._format(messages), max_tokens, temperature, seed)
        return cached_map(self.spec, "chat", params, [list(messages)],
                          lambda ms: [self._generate(self._format(m), max_tokens, temperature, seed) for m in ms])[0]

    def complete(self, prompt, *, max_tokens=256, temperature=0.0, seed=None) -> str:
        params = {"max_tokens": max_tokens, "temperature": temperature, "seed": seed}
        return cached_map(self.spec, "complete", params, [prompt],
                          lambda ps: [self._generate(p, max_tokens, temperature, seed) for p in ps])[0]

    def token_logprobs(self, texts: Sequence[str], batch_size: int = 16) -> list[list[float]]:
        """Per-token log-probabilities (BOS-conditioned), batched with right padding; cached per text."""
        return cached_map(self.spec, "token_logprobs", {}, list(texts),
                          lambda xs: self._token_logprobs(xs, batch_size))

    def _token_logprobs(self, texts: list[str], batch_size: int) -> list[list[float]]:
        torch = self._torch
        bos = self.tokenizer.bos_token_id
        seqs = []
        for text in texts:
            ids = self.tokenizer(text, add_special_tokens=False)["input_ids"][:1024]
            seqs.append(([bos] if bos is not None else []) + ids)
        out: list[list[float]] = [[] for _ in texts]
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))  # similar lengths together
        pad = self.tokenizer.pad_token_id or 0
        for k in range(0, len(order), batch_size):
            idx = [i for i in order[k:k + batch_size] if len(seqs[i]) >= 2]
            if not idx:
                continue
            width = max(len(seqs[i]) for i in idx)
            ids = torch.full((len(idx), width), pad, dtype=torch.long)
            mask = torch.zeros((len(idx), width), dtype=torch.long)
            for r, i in enumerate(idx):
                ids[r, :len(seqs[i])] = torch.tensor(seqs[i])
                mask[r, :len(seqs[i])] = 1
            with torch.no_grad():
                logits = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device)).logits.float()
            lp = torch.log_softmax(logits[:, :-1], dim=-1).gather(2, ids[:, 1:, None].to(self.device))[..., 0]
            for r, i in enumerate(idx):
                out[i] = lp[r, :len(seqs[i]) - 1].tolist()
        return out


class HFTranslator(Translator):
    description = "transformers seq2seq translation model"

    def __init__(self, arg: str, device: str = "cpu", batch_size: int = 16, num_beams: int = 1, max_tokens: int = 256):
        torch = _torch()
        self.tokenizer, self.model, self.opts = _load_pair("AutoModelForSeq2SeqLM", arg, device)
        self.device, self.batch_size, self.num_beams, self.max_tokens, self._torch = (
            device, batch_size, num_beams, max_tokens, torch)

    def _run(self, texts: list[str], src_lang: str, tgt_lang: str) -> list[str]:
        torch = self._torch
        tok = self.tokenizer
        src_code, tgt_code = self.opts.get("src", None), self.opts.get("tgt", None)
        if src_code and hasattr(tok, "src_lang"):
            tok.src_lang = src_code
        kw = dict(max_new_tokens=self.max_tokens, num_beams=self.num_beams, do_sample=False)
        if tgt_code:
            tid = tok.convert_tokens_to_ids(tgt_code)
            if tid is not None and tid != tok.unk_token_id:
                kw["forced_bos_token_id"] = tid
        out = []
        for i in range(0, len(texts), self.batch_size):
            enc = tok(texts[i:i + self.batch_size], return_tensors="pt", padding=True, truncation=True).to(self.device)
            with torch.no_grad():
                gen = self.model.generate(**enc, **kw)
            out.extend(s.strip() for s in tok.batch_decode(gen, skip_special_tokens=True))
        return out

    def translate(self, texts, src_lang, tgt_lang) -> list[str]:
        params = {"src": src_lang, "tgt": tgt_lang, "beams": self.num_beams, "max": self.max_tokens}
        return cached_map(self.spec, "translate", params, list(texts), lambda xs: self._run(xs, src_lang, tgt_lang))


_EXTRA_ID = re.compile(r"<extra_id_\d{1,2}>")
LEADING_PUNCT = re.compile(r"^[\s.,;:!?¿¡\"'«»“”„()\[\]{}_-]+")


def extract_first_span(decoded: str) -> str:
    """'<pad><extra_id_0> the fill<extra_id_1> ...' -> 'the fill' (leading punctuation stripped, as SMAUG)."""
    text = decoded.replace("<pad>", "").replace("</s>", "")
    parts = _EXTRA_ID.split(text)
    span = parts[1] if len(parts) > 1 else parts[0]
    return LEADING_PUNCT.sub("", span).strip()


class HFInfiller(Infiller):
    description = "mT5/T5 span infilling (<extra_id_0>)"

    def __init__(self, arg: str, device: str = "cpu", max_tokens: int = 16):
        torch = _torch()
        self.tokenizer, self.model, _ = _load_pair("AutoModelForSeq2SeqLM", arg, device)
        self.device, self.max_tokens, self._torch = device, max_tokens, torch

    def fill(self, texts, *, n=1, top_k=50, seed=None) -> list[list[str]]:
        torch = self._torch
        out = []
        for text in texts:
            if seed is not None:
                torch.manual_seed(seed)
            enc = self.tokenizer(text, return_tensors="pt").to(self.device)
            with torch.no_grad():
                gen = self.model.generate(**enc, do_sample=True, top_k=top_k, num_return_sequences=n,
                                          max_new_tokens=self.max_tokens)
            decoded = self.tokenizer.batch_decode(gen, skip_special_tokens=False)
            out.append([extract_first_span(d) for d in decoded])
        return out


def _normalise_label(label: str) -> str | None:
    l = label.lower()
    for name in NLI_LABELS:
        if l.startswith(name[:5]):
            return name
    if l in ("not_entailment", "non-entailment"):
        return "neutral"
    return None


class HFNLI(NLI):
    description = "transformers sequence-classification NLI"

    def __init__(self, arg: str, device: str = "cpu", batch_size: int = 16):
        torch = _torch()
        self.tokenizer, self.model, opts = _load_pair("AutoModelForSequenceClassification", arg, device)
        path = parse_options(arg)[0]
        if "labels" in opts:
            names = opts["labels"].split("+")
        else:
            id2label = self.model.config.id2label
            names = [id2label[i] for i in range(len(id2label))]
        mapped = [_normalise_label(n) for n in names]
        if "contradiction" not in mapped:
            raise BackendUnavailable(
                f"{path}: cannot tell which output is 'contradiction' from labels {names}; pass "
                "#labels=<label0>+<label1>+... with entailment/neutral/contradiction names")
        self.labels = mapped
        self.device, self.batch_size, self._torch = device, batch_size, torch

    def _run(self, pairs: list[list[str]]) -> list[dict[str, float]]:
        torch = self._torch
        out = []
        for i in range(0, len(pairs), self.batch_size):
            chunk = pairs[i:i + self.batch_size]
            enc = self.tokenizer([p for p, _ in chunk], [h for _, h in chunk], return_tensors="pt", padding=True,
                                 truncation=True).to(self.device)
            with torch.no_grad():
                probs = torch.softmax(self.model(**enc).logits.float(), dim=-1)
            for row in probs.tolist():
                d = {name: 0.0 for name in NLI_LABELS}
                for label, p in zip(self.labels, row):
                    if label:
                        d[label] += p
                out.append(d)
        return out

    def predict(self, premises, hypotheses) -> list[dict[str, float]]:
        return cached_map(self.spec, "nli", {}, [[p, h] for p, h in zip(premises, hypotheses)], self._run)


class _Regressor:
    def _init_regressor(self, arg: str, device: str, batch_size: int):
        torch = _torch()
        self.tokenizer, self.model, self.opts = _load_pair("AutoModelForSequenceClassification", arg, device)
        path = parse_options(arg)[0]
        if self.model.config.num_labels != 1:
            raise BackendUnavailable(f"{path}: expected a regression head (num_labels=1), "
                                     f"found {self.model.config.num_labels} labels")
        self.device, self.batch_size, self._torch = device, batch_size, torch

    def _predict(self, firsts: list[str], seconds: list[str] | None) -> list[float]:
        torch = self._torch
        out = []
        for i in range(0, len(firsts), self.batch_size):
            a = firsts[i:i + self.batch_size]
            args = (a, seconds[i:i + self.batch_size]) if seconds is not None else (a,)
            enc = self.tokenizer(*args, return_tensors="pt", padding=True, truncation=True).to(self.device)
            with torch.no_grad():
                out.extend(self.model(**enc).logits[:, 0].float().tolist())
        return out


class HFRegressionQE(_Regressor, QualityEstimator):
    description = "transformers regression head on (source, translation); #scale=<factor> maps to 0..100"

    def __init__(self, arg: str, device: str = "cpu", batch_size: int = 16):
        self._init_regressor(arg, device, batch_size)

    def score(self, sources, translations, src_lang, tgt_lang) -> list[float]:
        scale = float(self.opts.get("scale", 1.0))
        raw = cached_map(self.spec, "qe", {}, [[s, t] for s, t in zip(sources, translations)],
                         lambda ps: self._predict([p[0] for p in ps], [p[1] for p in ps]))
        return [min(100.0, max(0.0, r * scale)) for r in raw]


class HFRegressionDifficulty(_Regressor, DifficultyEstimator):
    description = "transformers regression head on the source; #negate when it predicts quality"

    def __init__(self, arg: str, device: str = "cpu", batch_size: int = 16):
        self._init_regressor(arg, device, batch_size)

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float]:
        sign = -1.0 if "negate" in self.opts else 1.0
        raw = cached_map(self.spec, "difficulty", {}, list(texts), lambda xs: self._predict(xs, None))
        return [sign * r for r in raw]


class SentinelDifficulty(DifficultyEstimator):
    """``sentinel:<local dir or hub id>[#encoder=<local path>]`` — Sentinel-src models (guardians-mt-eval).

    Layout (as on the Hub): ``hparams.yaml`` (pretrained_model, hidden_sizes, activations, final_activation,
    dropout) and ``checkpoints/model.ckpt`` whose ``state_dict`` holds ``encoder.model.*`` (XLM-R without
    pooler) and ``estimator.ff.*`` (feed-forward on the [CLS] state). The model predicts quality; difficulty
    is its negation. ``#lang_token`` prepends the target-language code to the source (for checkpoints
    trained with a target-language token).
    """

    description = "Sentinel-src: XLM-R + feed-forward on [CLS] (guardians-mt-eval checkpoints)"

    def __init__(self, arg: str, device: str = "cpu", batch_size: int = 16):
        torch = _torch()
        import yaml
        from pathlib import Path

        from transformers import AutoConfig, AutoTokenizer, XLMRobertaModel

        location, self.opts = parse_options(arg)
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
        self.estimator = _feed_forward(torch, config.hidden_size, hp.get("hidden_sizes") or [3072, 1024],
                                       hp.get("activations", "Tanh"), hp.get("final_activation"))
        state = torch.load(ckpt, map_location="cpu", weights_only=False)
        state = state.get("state_dict", state)
        enc = {k[len("encoder.model."):]: v for k, v in state.items() if k.startswith("encoder.model.")}
        est = {k[len("estimator."):]: v for k, v in state.items() if k.startswith("estimator.")}
        missing = self.encoder.load_state_dict(enc, strict=False).missing_keys
        missing = [k for k in missing if "position_ids" not in k]
        if missing or not est:
            raise BackendUnavailable(f"{ckpt}: checkpoint does not match a Sentinel model (missing {missing[:3]})")
        self.estimator.load_state_dict(est)
        self.encoder.to(device).eval()
        self.estimator.to(device).eval()
        self.device, self.batch_size, self._torch = device, batch_size, torch

    def predict_quality(self, texts: list[str]) -> list[float]:
        torch = self._torch
        out = []
        for i in range(0, len(texts), self.batch_size):
            enc = self.tokenizer(texts[i:i + self.batch_size], return_tensors="pt", padding=True,
                                 truncation=True).to(self.device)
            with torch.no_grad():
                cls = self.encoder(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).last_hidden_state[:, 0]
                out.extend(self.estimator(cls).view(-1).float().tolist())
        return out

    def difficulty(self, texts, src_lang=None, tgt_lang=None) -> list[float]:
        texts = list(texts)
        if "lang_token" in self.opts and tgt_lang:
            texts = [f"{tgt_lang} {t}" for t in texts]
        q = cached_map(self.spec, "sentinel", {"lang": tgt_lang if "lang_token" in self.opts else None}, texts,
                       self.predict_quality)
        return [-x for x in q]


def _feed_forward(torch, in_dim: int, hidden: list[int], activation: str, final: str | None):
    """The Sentinel/COMET FeedForward: [Linear, act, Dropout]* + Linear(1) [+ final act], as ``ff``."""
    nn = torch.nn

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
