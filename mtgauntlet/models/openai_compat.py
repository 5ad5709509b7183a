"""``openai:<model>@<base_url>[#key_env=NAME,timeout=S,retries=N,concurrency=N]``: any OpenAI-compatible server.

vLLM, llama.cpp's server, Ollama and hosted APIs speak this protocol. Requests go through one pooled
``httpx.AsyncClient`` per backend, driven by an event loop in a background thread, so plain
synchronous callers and :meth:`OpenAIChatLLM.chat_many` (up to ``concurrency`` requests at once,
replies in input order) share the connections. ``timeout`` covers the whole response, headers and
body: a server that trickles bytes cannot hold a call longer. HTTP 408/409/425/429/5xx, timeouts,
broken connections and malformed JSON are retried with exponential back-off and jitter; a
``Retry-After`` header (seconds or an HTTP date, capped at ``max_retry_after``) is honoured. Other HTTP
errors fail at once with a clear message. The API key comes from an environment variable
(``OPENAI_API_KEY`` by default) and is sent in the Authorization header only, never logged or written.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import threading
import time
import urllib.parse
from typing import Any

from mtgauntlet.errors import GauntletError
from mtgauntlet.models import cache
from mtgauntlet.models.base import ChatLLM, per_item_seeds
from mtgauntlet.models.cache import parse_options
from mtgauntlet.models.runtime import default_concurrency, parse_positive

DEFAULT_URL = "https://api.openai.com/v1"
RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class OpenAIError(GauntletError):
    pass


class _LoopThread:
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
        future = asyncio.run_coroutine_threadsafe(coro, cls.get())
        try:
            return future.result()
        except BaseException:  # KeyboardInterrupt in the caller: stop the requests in flight
            future.cancel()
            raise


def check_base_url(url: str, spec: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise GauntletError(f"spec {spec!r}: {url!r} is not an http(s) URL; "
                            "write openai:<model>@http://host:port/v1")
    try:
        parts.port
    except ValueError:
        raise GauntletError(f"spec {spec!r}: {url!r} has an invalid port") from None
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


class OpenAIChatLLM(ChatLLM):
    description = "OpenAI-compatible chat-completions server"

    def __init__(self, arg: str, timeout: float = 60.0, max_retries: int = 4, backoff: float = 1.0,
                 concurrency: int | None = None, max_retry_after: float = 120.0):
        main, opts = parse_options(arg)
        model, sep, url = main.partition("@")
        spec = f"openai:{arg}"
        if not model:
            raise GauntletError("openai spec needs a model: openai:<model>@<base_url>")
        self.model = model
        self.base_url = check_base_url(url if sep else os.environ.get("OPENAI_BASE_URL", DEFAULT_URL), spec)
        self.key_env = opts.get("key_env", "OPENAI_API_KEY")
        try:
            self.timeout = float(opts.get("timeout", timeout))
            self.max_retries = int(opts.get("retries", max_retries))
        except ValueError:
            raise GauntletError(f"spec {spec!r}: timeout and retries must be numbers") from None
        if self.timeout <= 0 or self.max_retries < 0:
            raise GauntletError(f"spec {spec!r}: timeout must be > 0 and retries >= 0")
        self.concurrency = parse_positive(opts.get("concurrency") or concurrency or default_concurrency(),
                                          "concurrency")
        self.backoff, self.max_retry_after = backoff, max_retry_after
        self._client = None
        self._client_pid: int | None = None

    def runtime_info(self) -> dict[str, Any]:
        return {"concurrency": self.concurrency, "timeout": self.timeout, "retries": self.max_retries}

    # -- HTTP ---------------------------------------------------------------------------------------
    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json"}
        key = os.environ.get(self.key_env)
        if key:
            h["Authorization"] = f"Bearer {key}"
        return h

    def _http(self):
        """The pooled client of this process (created inside the event loop thread)."""
        if self._client is None or self._client_pid != os.getpid():
            import httpx

            self._client = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout),
                                             limits=httpx.Limits(max_connections=None, max_keepalive_connections=64))
            self._client_pid = os.getpid()
        return self._client

    async def _post(self, path: str, payload: dict) -> dict:
        import httpx

        url = f"{self.base_url}{path}"
        body = json.dumps(payload).encode("utf-8")
        last: OpenAIError | None = None
        for attempt in range(self.max_retries + 1):
            wait = None
            try:  # the whole exchange (connect, headers, body) within one timeout
                resp = await asyncio.wait_for(self._http().post(url, content=body, headers=self._headers()),
                                              self.timeout)
            except (asyncio.TimeoutError, httpx.TimeoutException):
                last = OpenAIError(f"{url}: request failed (no complete response within the {self.timeout:g} s timeout)")
            except httpx.HTTPError as exc:  # refused, reset, truncated body (incomplete read), bad TLS, ...
                last = OpenAIError(f"{url}: request failed ({type(exc).__name__}: {str(exc)[:200]})")
            else:
                if resp.status_code >= 400:
                    detail = resp.content[:300].decode("utf-8", "replace")
                    last = OpenAIError(f"{url}: HTTP {resp.status_code} {resp.reason_phrase}: {detail}")
                    if resp.status_code not in RETRY_STATUS:
                        raise last
                    wait = retry_after_seconds(resp.headers.get("retry-after"), self.max_retry_after)
                else:
                    try:
                        return json.loads(resp.content)
                    except (json.JSONDecodeError, UnicodeDecodeError):
                        last = OpenAIError(f"{url}: malformed JSON in response: {resp.content[:200]!r}")
            if attempt < self.max_retries:
                if wait is None:
                    wait = self.backoff * (2 ** attempt) * (0.5 + random.random() / 2)
                await asyncio.sleep(wait)
        raise OpenAIError(f"{last} (gave up after {self.max_retries + 1} attempts)")

    # -- chat -----------------------------------------------------------------------------------------
    async def _chat_async(self, messages, max_tokens, temperature, seed) -> str:
        payload = {"model": self.model, "messages": list(messages), "max_tokens": max_tokens,
                   "temperature": temperature}
        if seed is not None:
            payload["seed"] = seed
        data = await self._post("/chat/completions", payload)
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise OpenAIError(f"{self.base_url}: unexpected response shape: {str(data)[:200]}") from None
        return content or ""

    def _chat_once(self, messages, max_tokens, temperature, seed) -> str:
        return _LoopThread.run(self._chat_async(messages, max_tokens, temperature, seed))

    async def _gather(self, jobs: list[tuple], max_tokens, temperature, limit: int) -> list:
        gate = asyncio.Semaphore(limit)

        async def one(messages, seed):
            async with gate:
                return await self._chat_async(messages, max_tokens, temperature, seed)

        return await asyncio.gather(*(one(m, s) for m, s in jobs), return_exceptions=True)

    def chat_many(self, conversations, *, max_tokens=256, temperature=0.0, seed=None, concurrency=None) -> list[str]:
        """Up to ``concurrency`` (default: the backend's) requests at once; replies in input order. Greedy or
        seeded replies are cached; each finished reply is stored even when another one fails."""
        seeds = per_item_seeds(seed, len(conversations))
        items = [[list(c), s] for c, s in zip(conversations, seeds)]
        cacheable = temperature <= 0 or all(s is not None for s in seeds)
        spec = f"openai:{self.model}" if cacheable else ""
        params = {"max_tokens": max_tokens, "temperature": temperature, "url": self.base_url}
        keys, found = cache.lookup(spec, "chat", params, items)
        todo = cache.missing_indices(keys, found) if spec else list(range(len(items)))
        limit = parse_positive(concurrency or self.concurrency, "concurrency")
        results = _LoopThread.run(self._gather([tuple(items[i]) for i in todo], max_tokens, temperature, limit))
        cache.store(spec, [(keys[i], r) for i, r in zip(todo, results) if not isinstance(r, BaseException)])
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]
        if not spec:
            return list(results)
        found.update({keys[i]: r for i, r in zip(todo, results)})
        return [found[k] for k in keys]

    def chat(self, messages, *, max_tokens=256, temperature=0.0, seed=None) -> str:
        return self.chat_many([messages], max_tokens=max_tokens, temperature=temperature, seed=seed)[0]

    def complete(self, prompt, *, max_tokens=256, temperature=0.0, seed=None) -> str:
        payload = {"model": self.model, "prompt": prompt, "max_tokens": max_tokens, "temperature": temperature}
        if seed is not None:
            payload["seed"] = seed
        data = _LoopThread.run(self._post("/completions", payload))
        try:
            return data["choices"][0]["text"]
        except (KeyError, IndexError, TypeError):
            raise OpenAIError(f"{self.base_url}: unexpected response shape: {str(data)[:200]}") from None
