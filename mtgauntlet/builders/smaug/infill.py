"""Several mT5 masks filled in one call (SMAUG insertion: the masked sentence with up to 3 masks is fed to
mT5 once, and its output ``<extra_id_0> a <extra_id_1> b ...`` gives the fill of every mask).

An infiller backend may offer ``fill_spans(texts, *, top_k, seed) -> [[fill of mask 0, mask 1, ...], ...]``;
otherwise an HF seq2seq infiller (``model`` + ``tokenizer``, as ``hf:`` loads) is driven directly.
"""

from __future__ import annotations

import re

from mtgauntlet.errors import GauntletError

SENTINEL = re.compile(r"<extra_id_(\d{1,2})>")


def mask_token(i: int) -> str:
    return f"<extra_id_{i}>"


def parse_spans(decoded: str, n_masks: int) -> list[str | None]:
    """``'<pad><extra_id_0> a<extra_id_1> b</s>'`` -> ``['a', 'b']``; a mask the output does not fill -> None."""
    text = decoded.replace("<pad>", "").replace("</s>", "")
    parts = SENTINEL.split(text)  # [before, id, span, id, span, ...]
    fills: dict[int, str] = {}
    for k in range(1, len(parts) - 1, 2):
        fills.setdefault(int(parts[k]), parts[k + 1].strip())
    return [fills.get(i) for i in range(n_masks)]


def fill_masks(infiller, masked: str, n_masks: int, *, top_k: int = 50, seed: int | None = None) -> list[str | None]:
    """Fills of masks ``<extra_id_0>`` .. ``<extra_id_{n_masks-1}>`` of ``masked``, sampled in one generation."""
    spans = getattr(infiller, "fill_spans", None)
    if spans is not None:
        got = list(spans([masked], top_k=top_k, seed=seed)[0])
        return (got + [None] * n_masks)[:n_masks]
    model, tok = getattr(infiller, "model", None), getattr(infiller, "tokenizer", None)
    if model is None or tok is None or not hasattr(model, "generate"):
        raise GauntletError(
            f"infiller {getattr(infiller, 'spec', infiller)!r} cannot fill several masks in one call "
            "(it needs fill_spans() or an hf: seq2seq model)"
        )
    import torch

    if seed is not None:
        torch.manual_seed(seed)
    enc = tok(masked, return_tensors="pt").to(getattr(infiller, "device", "cpu"))
    with torch.no_grad():
        gen = model.generate(
            **enc, do_sample=True, top_k=top_k, max_new_tokens=getattr(infiller, "max_tokens", 16) * n_masks
        )
    return parse_spans(tok.decode(gen[0], skip_special_tokens=False), n_masks)
