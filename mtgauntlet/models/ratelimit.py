"""Requests and tokens per minute (``openai:...#rpm=N,tpm=N``): one limiter per endpoint and stated limits, shared by
every backend of this process that talks to that endpoint with those limits (the roles of a run given the same
spec options share one bucket), on top of ``--concurrency``. A backend stating other limits keeps its own: limits
stated once (a refused ``#tpm`` in a notebook, an earlier command run in the same process) never hold a later
backend that states others.

Each limit is a leaky bucket without burst: a request may start once the previous ones' share of the minute has
passed (``60 / rpm`` seconds per request, ``60 * tokens / tpm`` seconds per request of ``tokens`` tokens), so the
rate never exceeds the limit over any window. A request's tokens are estimated before it is sent (prompt characters
/ 4 plus its ``max_tokens``). HTTP 429 answers are still retried with back-off (``Retry-After`` honoured). A
``#tpm`` smaller than one request would hold each request for minutes: the backend refuses it before sending
anything (``OpenAIChatLLM.check_tpm``).
"""

from __future__ import annotations

import asyncio
import threading
import time


class RateLimiter:
    def __init__(self, rpm: float | None = None, tpm: float | None = None, window: float = 60.0):
        self.rpm, self.tpm, self.window = rpm, tpm, window
        self._next = 0.0  # monotonic time at which the next request may start
        self._lock: asyncio.Lock | None = None

    def interval(self, tokens: int) -> float:
        gaps = [self.window / self.rpm if self.rpm else 0.0, self.window * tokens / self.tpm if self.tpm else 0.0]
        return max(gaps)

    async def acquire(self, tokens: int) -> None:
        if not (self.rpm or self.tpm):
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval(tokens)
        if start > now:
            await asyncio.sleep(start - now)


_LIMITERS: dict[tuple[str, float | None, float | None], RateLimiter] = {}
_GUARD = threading.Lock()


def limiter_for(endpoint: str, rpm: float | None, tpm: float | None) -> RateLimiter:
    """The limiter shared by every backend of ``endpoint`` that states these limits (without limits it lets every
    request through)."""
    with _GUARD:
        return _LIMITERS.setdefault((endpoint, rpm or None, tpm or None), RateLimiter(rpm, tpm))


def estimate_tokens(text_chars: int, max_tokens: int) -> int:
    """Tokens a request may use: prompt characters / 4 (a common rule of thumb) plus the answer budget."""
    return text_chars // 4 + 1 + max_tokens
