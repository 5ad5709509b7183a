"""The error of an OpenAI-compatible request that got no usable answer (shared by the synchronous path,
:mod:`.openai_compat`, and the Batch API path, :mod:`.openai_batch`, which it imports)."""

from __future__ import annotations

from mtgauntlet.errors import GauntletError


class OpenAIError(GauntletError):
    """A request that got no usable answer; ``status``: the HTTP status of the last attempt (None: none came)."""

    status: int | None = None
