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

    def token_logprobs(self, texts: Sequence[str]) -> list[list[float]]:
        torch = self._torch
        out = []
        bos = self.tokenizer.bos_token_id
        for text in texts:
            ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
            if bos is not None:
                ids = [bos] + ids
            if len(ids) < 2:
                out.append([])
                continue
            t = torch.tensor([ids], device=self.device)
            with torch.no_grad():
                logits = self.model(t).logits[0, :-1].float()
            lp = torch.log_softmax(logits, dim=-1).gather(1, t[0, 1:, None])[:, 0]
            out.append(lp.tolist())
        return out


class HFTranslator(Translator):
    description = "transformers seq2seq translation model"

    def __init__(self, arg: str, device: str = "cpu", batch_size: int = 16, num_beams: int = 1, max_tokens: int = 256):
        torch = _torch()
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        path, self.opts = parse_options(arg)
        self.tokenizer = _from_pretrained(AutoTokenizer, path)
        self.model = _from_pretrained(AutoModelForSeq2SeqLM, path).to(device).eval()
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
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        path, _ = parse_options(arg)
        self.tokenizer = _from_pretrained(AutoTokenizer, path)
        self.model = _from_pretrained(AutoModelForSeq2SeqLM, path).to(device).eval()
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
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        path, opts = parse_options(arg)
        self.tokenizer = _from_pretrained(AutoTokenizer, path)
        self.model = _from_pretrained(AutoModelForSequenceClassification, path).to(device).eval()
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
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        path, self.opts = parse_options(arg)
        self.tokenizer = _from_pretrained(AutoTokenizer, path)
        self.model = _from_pretrained(AutoModelForSequenceClassification, path).to(device).eval()
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
