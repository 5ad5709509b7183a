"""The HTTP plumbing of the ``openai:`` backend (:mod:`.openai_compat`): the event loop thread that runs its
requests, the base URL check, the retry rules (which statuses are retried, how long ``Retry-After`` says to
wait) and the budget and journal side of one paid request's attempts (`PaidAttempt`)."""

from __future__ import annotations

import asyncio
import email.utils
import os
import threading
import time
import urllib.parse

from mtgauntlet.core.paid_run import stop_if_draining
from mtgauntlet.core.usage import LEDGER
from mtgauntlet.errors import GauntletError

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class LoopThread:
    """One asyncio event loop per process, in a daemon thread; synchronous code submits coroutines to it."""

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None
    _pid: int | None = None

    @classmethod
    def get(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls._loop is None or cls._pid != os.getpid():  # a forked child needs its own thread
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="mtgauntlet-http", daemon=True).start()
                cls._loop, cls._pid = loop, os.getpid()
            return cls._loop

    @classmethod
    def run(cls, coro):
        """The result of ``coro`` run on the loop; once a graceful stop began (:mod:`mtgauntlet.core.paid_run`)
        and the requests of ``coro`` ended, `Interrupted` instead."""
        future = asyncio.run_coroutine_threadsafe(coro, cls.get())
        try:
            result = future.result()
        except BaseException as exc:  # KeyboardInterrupt in the caller: stop the requests in flight
            future.cancel()
            if not isinstance(exc, KeyboardInterrupt):
                stop_if_draining()
            raise
        stop_if_draining()
        return result


def check_base_url(url: str, spec: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise GauntletError(f"spec {spec!r}: {url!r} is not an http(s) URL; write openai:<model>@http://host:port/v1")
    try:
        _ = parts.port
    except ValueError:
        raise GauntletError(f"spec {spec!r}: {url!r} has an invalid port") from None
    if parts.query or "?" in url:  # request paths are appended to the base URL; a query would also be published
        raise GauntletError(
            f"spec {spec!r}: the base URL has a query (?...); write openai:<model>@http://host:port/v1 "
            "and options after #"
        )
    return url.rstrip("/")


def retry_after_seconds(value: str | None, cap: float) -> float | None:
    """``Retry-After`` as seconds to wait (delta-seconds or an HTTP date), or None when absent/unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return min(max(seconds, 0.0), cap)


class PaidAttempt:
    """The budget and journal side of one request's attempts (:meth:`.openai_compat.OpenAIChatLLM._request`):
    each reserved before it leaves, then settled or abandoned; nothing for an unpaid call (``bound`` None: a file
    upload, a batch status)."""

    def __init__(self, spec: str, bound: float | None):
        self.spec, self.bound = spec, bound

    async def reserve(self, first: bool) -> None:
        if self.bound is not None:
            await LEDGER.reserve_async(self.spec, self.bound, first=first)

    def settle(self, **counts: int) -> None:
        if self.bound is not None:
            LEDGER.settle(self.spec, self.bound, **counts)

    def abandon(self) -> None:
        if self.bound is not None:
            LEDGER.abandon(self.bound)
