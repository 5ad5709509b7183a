"""``openai:<model>@<base_url>[#key_env=NAME,timeout=S,retries=N,concurrency=N]``: any OpenAI-compatible server.

Credentials: the key of ``key_env`` (``OPENAI_API_KEY`` by default) or ``#key=KEY`` as a bearer token, user info
in the URL (``http://user:password@host/v1``) as basic auth; never written out (:mod:`.spec_public`).

vLLM, llama.cpp's server, Ollama and hosted APIs speak this protocol. Requests go through one pooled
``httpx.AsyncClient`` per backend, driven by an event loop in a background thread (:mod:`.openai_http`), so plain
synchronous callers and :meth:`OpenAIChatLLM.chat_many` (up to ``concurrency`` requests at once,
replies in input order) share the connections. ``timeout`` covers the whole response, headers and
body: a server that trickles bytes cannot hold a call longer. HTTP 408/409/425/429/5xx, timeouts,
broken connections and malformed JSON are retried with exponential back-off and jitter; a
``Retry-After`` header (seconds or an HTTP date, capped at ``max_retry_after``) is honoured. Other HTTP
errors fail at once with a clear message. The API key comes from an environment variable
(``OPENAI_API_KEY`` by default) and is sent in the Authorization header only, never logged or written.

More spec options: ``price=IN/OUT`` (USD per 1M input/output tokens: the run's cost in build.json ``usage``),
``rpm=N`` / ``tpm=N`` (requests / tokens per minute, one limiter per endpoint and limits: :mod:`.ratelimit`), ``json=1``
(schema-constrained JSON answers for the roles that parse one: :mod:`.structured`), ``batch=1`` (each list of
requests through the OpenAI Batch API: :mod:`.openai_batch`; ``poll=S`` seconds between status checks). Every
answer's ``usage`` is recorded per spec in :data:`.usage.LEDGER`, and each request first passes the run's budget
(with what it may cost at most: :func:`.usage.cost_bound`). Every answer is stored in the output cache the moment it
arrives, so a run killed mid-list pays again only for the requests that had no answer yet. The options a spec may
carry are declared in :attr:`OpenAIChatLLM.options` (with their kinds: ``#key`` a secret, ``#price`` a cost, ...);
an unknown, repeated or non-finite one is a one-line error.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from typing import Any

from mtgauntlet.core import cache
from mtgauntlet.core.cache import flag_option, parse_options
from mtgauntlet.core.spec_public import (
    ACCESS,
    ANSWER,
    COST,
    PACE,
    SECRET,
    redact_secrets,
    remember_secret,
    split_userinfo,
)
from mtgauntlet.core.usage import LEDGER, answer_counts, cost_bound, parse_price
from mtgauntlet.errors import GauntletError
from mtgauntlet.models.base import ChatLLM, per_item_seeds
from mtgauntlet.models.openai_batch import run_batch
from mtgauntlet.models.openai_errors import OpenAIError
from mtgauntlet.models.openai_http import (
    RETRY_STATUS,
    LoopThread,
    PaidAttempt,
    check_base_url,
    retry_after_seconds,
)
from mtgauntlet.models.ratelimit import estimate_tokens, limiter_for
from mtgauntlet.models.runtime import default_concurrency, parse_positive

DEFAULT_URL = "https://api.openai.com/v1"


class OpenAIChatLLM(ChatLLM):
    description = "OpenAI-compatible chat-completions server"
    options = {
        "key": SECRET,
        "key_env": ACCESS,
        "timeout": PACE,
        "retries": ANSWER,
        "concurrency": PACE,
        "price": COST,
        "rpm": PACE,
        "tpm": PACE,
        "json": ANSWER,
        "batch": COST,
        "poll": PACE,
    }
    requires = (("httpx", ""),)  # a dependency of mtgauntlet itself

    def __init__(
        self,
        arg: str,
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff: float = 1.0,
        concurrency: int | None = None,
        max_retry_after: float = 120.0,
    ):
        main, opts = parse_options(arg)
        model, sep, url = main.partition("@")
        spec = redact_secrets(f"openai:{arg}")  # messages and usage keys never show a credential
        if not model:
            raise GauntletError("openai spec needs a model: openai:<model>@<base_url>")
        self.model = model
        self.base_url, self.auth = split_userinfo(url if sep else os.environ.get("OPENAI_BASE_URL", DEFAULT_URL))
        self.base_url = check_base_url(self.base_url, spec)
        self.api_key = opts.get("key")  # #key=... (a secret: never written out) wins over the variable key_env
        self.key_env = opts.get("key_env", "OPENAI_API_KEY")
        if self.api_key is None and "key_env" in opts and not os.environ.get(self.key_env):
            raise GauntletError(
                f"spec {spec!r}: #key_env names the variable {self.key_env}, which is not set (or empty): "
                "nothing was sent; set it, or leave #key_env out"
            )
        try:
            self.timeout = float(opts.get("timeout", timeout))
            self.max_retries = int(opts.get("retries", max_retries))
        except ValueError:
            raise GauntletError(f"spec {spec!r}: timeout and retries must be numbers") from None
        if not 0 < self.timeout < float("inf") or self.max_retries < 0:
            raise GauntletError(f"spec {spec!r}: #timeout must be a finite number > 0 and #retries >= 0")
        self.concurrency = parse_positive(
            opts.get("concurrency") or concurrency or default_concurrency(), "concurrency"
        )
        self.backoff, self.max_retry_after = backoff, max_retry_after
        self.usage_key = spec
        self.price = parse_price(opts.get("price"), spec)
        rpm, tpm = (_positive_number(opts.get(k), k, spec) for k in ("rpm", "tpm"))
        self.limiter = limiter_for(self.base_url, rpm, tpm)
        self.structured = flag_option(opts.get("json"), "json", spec)
        self.batch = flag_option(opts.get("batch"), "batch", spec)
        self.poll = _positive_number(opts.get("poll"), "poll", spec) or 15.0
        LEDGER.register(spec, self.price)
        LEDGER.require_price(spec, self.price)
        self._client = None
        self._client_pid: int | None = None

    def runtime_info(self) -> dict[str, Any]:
        info = {"concurrency": self.concurrency, "timeout": self.timeout, "retries": self.max_retries}
        for key, value in (("rpm", self.limiter.rpm), ("tpm", self.limiter.tpm)):
            if value:
                info[key] = value
        if self.structured:
            info["json"] = True
        if self.batch:
            info["batch"] = True
        return info

    # -- HTTP ---------------------------------------------------------------------------------------
    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json"}
        key = self.api_key or os.environ.get(self.key_env)
        if key:
            remember_secret(key)  # an error body quoting it back is masked like a #key= (issue #34 item 8)
            h["Authorization"] = f"Bearer {key}"
        return h

    def _http(self):
        """The pooled client of this process (created inside the event loop thread)."""
        if self._client is None or self._client_pid != os.getpid():
            import httpx

            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout),
                auth=self.auth,
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
            )
            self._client_pid = os.getpid()
        return self._client

    async def _post(self, path: str, payload: dict) -> dict:
        return await self._request("POST", path, content=json.dumps(payload).encode("utf-8"))

    async def _request(
        self, method: str, path: str, *, raw: bool = False, bound: float | None = None, record=None, **send
    ) -> Any:
        """The JSON answer (``raw``: the bytes) of one API call, retried as the module says; the retries and a final
        failure are counted in the usage ledger. ``bound`` makes it a paid request (what one attempt may cost at
        most): each attempt passes the budget and is journalled before it leaves (:meth:`.usage.Ledger.reserve`),
        and ends settled with its answer, ``record(data) -> (value or exception, usage counts)``, in one journal
        line, or abandoned (no answer: a timeout, a broken connection, a cancel), when it may have been billed."""
        import httpx

        url = f"{self.base_url}{path}"
        headers = self._headers()
        if "content" not in send:
            headers.pop("Content-Type")  # multipart uploads and GETs set their own
        paid = PaidAttempt(self.usage_key, bound)
        last: OpenAIError | None = None
        for attempt in range(self.max_retries + 1):
            if attempt:
                LEDGER.add(self.usage_key, retries=1)
            wait = None
            await paid.reserve(first=attempt == 0)
            try:  # the whole exchange (connect, headers, body) within one timeout
                resp = await asyncio.wait_for(self._http().request(method, url, headers=headers, **send), self.timeout)
            except httpx.ConnectError as exc:  # nothing left this machine: nothing was billed
                paid.settle()
                last = OpenAIError(f"{url}: request failed ({type(exc).__name__}: {str(exc)[:200]})")
            except (TimeoutError, httpx.TimeoutException):
                paid.abandon()
                last = OpenAIError(
                    f"{url}: request failed (no complete response within the {self.timeout:g} s timeout)"
                )
            except httpx.HTTPError as exc:  # reset, truncated body (incomplete read), bad TLS, ...
                paid.abandon()
                last = OpenAIError(f"{url}: request failed ({type(exc).__name__}: {str(exc)[:200]})")
            except BaseException:  # cancelled (a second Ctrl-C, a failed sibling): perhaps billed, never answered
                paid.abandon()
                raise
            else:
                if resp.status_code >= 400:
                    detail = resp.content[:300].decode("utf-8", "replace")
                    last = OpenAIError(f"{url}: HTTP {resp.status_code} {resp.reason_phrase}: {detail}")
                    last.status = resp.status_code
                    if resp.status_code not in RETRY_STATUS:
                        paid.settle(failures=1)
                        raise last
                    paid.settle()
                    wait = retry_after_seconds(resp.headers.get("retry-after"), self.max_retry_after)
                elif raw:
                    paid.settle()
                    return resp.content
                else:
                    try:
                        data = json.loads(resp.content)
                    except (json.JSONDecodeError, UnicodeDecodeError):
                        paid.abandon()  # an answer that cannot be read may have been billed all the same
                        last = OpenAIError(f"{url}: malformed JSON in response: {resp.content[:200]!r}")
                    else:
                        if record is None:
                            paid.settle()
                            return data
                        try:
                            value, counts = record(data)
                        except BaseException:
                            paid.settle(requests=1, failures=1, missing_usage=1)  # billed; its usage unread
                            raise
                        paid.settle(**counts)
                        if isinstance(value, BaseException):
                            raise value
                        return value
            if attempt < self.max_retries:
                if wait is None:
                    wait = self.backoff * (2**attempt) * (0.5 + random.random() / 2)
                await asyncio.sleep(wait)
        LEDGER.add(self.usage_key, failures=1)
        final = OpenAIError(f"{last} (gave up after {self.max_retries + 1} attempts)")
        final.status = last.status if last is not None else None
        raise final

    # -- chat -----------------------------------------------------------------------------------------
    def payload(self, messages, max_tokens, temperature, seed, schema=None) -> dict:
        """The body of one chat-completions request (also a line of a Batch API input file)."""
        payload = {
            "model": self.model,
            "messages": list(messages),
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if seed is not None:
            payload["seed"] = seed
        if schema is not None:
            payload["response_format"] = schema.response_format()
        return payload

    def parse_answer(self, data: Any, schema=None) -> tuple[Any, dict[str, int]]:
        """(the reply text of a chat-completions answer, or the error of an answer without one; its usage counts:
        :func:`.usage.answer_counts`, plus ``invalid_json`` for an answer that does not validate against
        ``schema``, ``failures`` for one without a reply: paid all the same)."""
        counts = answer_counts(data)  # usage that is not token counts is counted invalid, the answer kept
        try:
            content = data["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            counts["failures"] = 1
            return OpenAIError(f"{self.base_url}: unexpected response shape: {str(data)[:200]}"), counts
        if schema is not None and schema.validate(content) is None:
            counts["invalid_json"] = 1
        return content, counts

    def cost_bound(self, payload: dict) -> float:
        """What the request ``payload`` may cost at most (0 without a price): see :func:`.usage.cost_bound`."""
        prompt = payload.get("messages") or [{"content": payload.get("prompt", "")}]
        size = sum(len(str(m.get("content", "")).encode("utf-8")) for m in prompt)
        if "response_format" in payload:
            size += len(json.dumps(payload["response_format"]).encode("utf-8"))
        return cost_bound(self.price, size, len(prompt), int(payload.get("max_tokens") or 0))

    def request_tokens(self, payload: dict) -> int:
        """The tokens a request is counted for by ``#tpm`` (estimated: :func:`.ratelimit.estimate_tokens`)."""
        prompt = payload.get("messages") or [{"content": payload.get("prompt", "")}]
        return estimate_tokens(sum(len(str(m.get("content", ""))) for m in prompt), int(payload.get("max_tokens") or 0))

    def check_tpm(self, payloads: list[dict]) -> None:
        """Refuse, before anything is sent, a ``#tpm`` smaller than one of these requests: it would wait minutes per
        request in silence."""
        tpm = self.limiter.tpm
        if not tpm or not payloads:
            return
        biggest = max(self.request_tokens(p) for p in payloads)
        if biggest > tpm:
            raise GauntletError(
                f"spec {self.usage_key!r}: #tpm={tpm:g} is smaller than one request (~{biggest} "
                "tokens: prompt characters / 4 + max_tokens); raise #tpm to at least that"
            )

    async def _paid(self, path: str, payload: dict, record) -> Any:
        """``record(answer)`` of one request sent through the rate limiter and the budget (see `_request`)."""
        await self.limiter.acquire(self.request_tokens(payload))
        content = json.dumps(payload).encode("utf-8")
        return await self._request("POST", path, content=content, bound=self.cost_bound(payload), record=record)

    async def _chat_async(self, messages, max_tokens, temperature, seed, schema=None) -> str:
        payload = self.payload(messages, max_tokens, temperature, seed, schema)
        return await self._paid("/chat/completions", payload, lambda data: self.parse_answer(data, schema))

    def _chat_once(self, messages, max_tokens, temperature, seed) -> str:
        return LoopThread.run(self._chat_async(messages, max_tokens, temperature, seed))

    async def _gather(
        self, jobs: list[tuple], max_tokens, temperature, limit: int, schema=None, keep=lambda i, answer: None
    ) -> list:
        """Replies (or exceptions) of ``jobs``; ``keep(i, answer)`` is called with each answer as it arrives."""
        gate = asyncio.Semaphore(limit)

        async def one(i, messages, seed):
            async with gate:
                answer = await self._chat_async(messages, max_tokens, temperature, seed, schema)
            keep(i, answer)
            return answer

        return await asyncio.gather(*(one(i, m, s) for i, (m, s) in enumerate(jobs)), return_exceptions=True)

    def chat_many(
        self, conversations, *, max_tokens=256, temperature=0.0, seed=None, concurrency=None, schema=None
    ) -> list[str]:
        """Up to ``concurrency`` (default: the backend's) requests at once (``#batch=1``: one Batch API job);
        replies in input order. Greedy or seeded replies are cached, each stored the moment it arrives (a kill,
        a failure of another request or a spent budget loses none). ``schema`` (a
        :class:`~mtgauntlet.models.structured.AnswerSchema`) asks for JSON."""
        seeds = per_item_seeds(seed, len(conversations))
        items = [[list(c), s] for c, s in zip(conversations, seeds)]
        cacheable = temperature <= 0 or all(s is not None for s in seeds)
        spec = f"openai:{self.model}" if cacheable else ""
        params = {"max_tokens": max_tokens, "temperature": temperature, "url": self.base_url}
        if schema is not None:
            params["schema"] = schema.json_schema()
        keys, found = cache.lookup(spec, "chat", params, items)
        todo = cache.missing_indices(keys, found) if spec else list(range(len(items)))
        LEDGER.add(self.usage_key, cached=len(keys) - len(todo) if spec else 0)
        jobs = [tuple(items[i]) for i in todo]
        payloads = [self.payload(m, max_tokens, temperature, s, schema) for m, s in jobs]
        self.check_tpm(payloads)

        def keep(j: int, answer: str) -> None:  # the moment it arrives: a kill after it does not pay it again
            cache.store(spec, [(keys[todo[j]], answer)])

        if self.batch and jobs:
            results = LoopThread.run(run_batch(self, payloads, schema, keep))
        else:
            limit = parse_positive(concurrency or self.concurrency, "concurrency")
            results = LoopThread.run(self._gather(jobs, max_tokens, temperature, limit, schema, keep))
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

        self.check_tpm([payload])

        data = LoopThread.run(self._paid("/completions", payload, lambda data: (data, answer_counts(data))))
        try:
            text = data["choices"][0]["text"]
        except (KeyError, IndexError, TypeError):
            raise OpenAIError(f"{self.base_url}: unexpected response shape: {str(data)[:200]}") from None
        return text


def _positive_number(value: str | None, name: str, spec: str) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not number > 0 or number == float("inf"):
        raise GauntletError(f"spec {spec!r}: #{name}={value!r} must be a positive number")
    return number
