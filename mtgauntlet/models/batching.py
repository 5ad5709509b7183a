"""Length-sorted batches with out-of-memory back-off and truncation counting, for the torch backends.

Inputs are ordered longest first (so an out-of-memory error shows up on the first batch, not after an
hour), cut into batches of ``batch`` items, and the results are put back in input order. When a batch
raises a CUDA/MPS out-of-memory error, the batch size is halved for good and the batch is retried;
at batch size 1 the error is reported in one line. Inputs longer than the model accepts are
truncated by the tokenizer: they are counted here and warned about once per call.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from mtgauntlet.errors import BackendUnavailable

log = logging.getLogger(__name__)


def is_out_of_memory(exc: BaseException) -> bool:
    try:
        import torch
    except ModuleNotFoundError:  # pragma: no cover - torch backends always have torch
        return False
    if isinstance(exc, torch.OutOfMemoryError):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()  # MPS, older torch, cuDNN


def _free_accelerator_memory() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    elif torch.backends.mps.is_available():
        torch.mps.empty_cache()


class LengthBatcher:
    """Runs ``run(indices) -> results`` over length-sorted batches; keeps the (possibly halved) batch size."""

    def __init__(self, batch: int, label: str, device: str = "cpu"):
        self.batch, self.label, self.device = batch, label, device
        self.truncated = 0
        self.oom_halvings = 0

    def map(self, lengths: Sequence[int], run: Callable[[list[int]], Sequence[Any]]) -> list[Any]:
        n = len(lengths)
        order = sorted(range(n), key=lambda i: (-lengths[i], i))
        out: list[Any] = [None] * n
        pos = 0
        while pos < n:
            idx = order[pos : pos + self.batch]
            try:
                results = run(idx)
            except Exception as exc:
                if not is_out_of_memory(exc):
                    raise
                oom = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            else:
                if len(results) != len(idx):
                    raise RuntimeError(f"{self.label}: {len(results)} results for a batch of {len(idx)}")
                for i, r in zip(idx, results):
                    out[i] = r
                pos += len(idx)
                continue
            # out of memory: leave the except block first so the failed batch's tensors can be freed
            if self.batch == 1:
                raise BackendUnavailable(
                    f"{self.label}: out of memory on {self.device} even with batch size 1 "
                    f"({oom}); use a smaller model, a shorter input or another device"
                )
            self.batch = max(1, self.batch // 2)
            self.oom_halvings += 1
            _free_accelerator_memory()
            log.warning(
                "%s: out of memory on %s; batch size halved to %d and the batch retried",
                self.label,
                self.device,
                self.batch,
            )
        return out

    def count_truncated(self, lengths: Sequence[int], limit: int | None) -> int:
        """Count (and warn about) inputs longer than ``limit`` tokens; returns how many in this call."""
        if not limit:
            return 0
        over = sum(1 for n in lengths if n > limit)
        if over:
            self.truncated += over
            log.warning(
                "%s: %d of %d input(s) are longer than %d tokens and were truncated (%d so far)",
                self.label,
                over,
                len(lengths),
                limit,
                self.truncated,
            )
        return over

    def info(self) -> dict[str, Any]:
        return {"batch": self.batch, "truncated": self.truncated, "oom_halvings": self.oom_halvings}
