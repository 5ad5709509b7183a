"""``openai:<model>@<base_url>``: any OpenAI-compatible chat-completions server.

vLLM, llama.cpp server, Ollama and hosted APIs speak this protocol. The API key comes from an
environment variable (``OPENAI_API_KEY`` by default, ``#key_env=NAME`` to change it); it is sent in
the Authorization header only, never logged or written anywhere. Retries with exponential backoff
on 429/5xx, timeouts and malformed JSON; other HTTP errors fail at once with a clear message.
"""

from __future__ import annotations

import json
import os
import random
import socket
import time
import urllib.error
import urllib.request

from mtgauntlet.errors import GauntletError
from mtgauntlet.models.base import ChatLLM
from mtgauntlet.models.cache import cached_map, parse_options

DEFAULT_URL = "https://api.openai.com/v1"
RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class OpenAIError(GauntletError):
    pass


class OpenAIChatLLM(ChatLLM):
    description = "OpenAI-compatible chat-completions server"

    def __init__(self, arg: str, timeout: float = 60.0, max_retries: int = 4, backoff: float = 1.0):
        main, opts = parse_options(arg)
        model, sep, url = main.partition("@")
        if not model:
            raise GauntletError("openai spec needs a model: openai:<model>@<base_url>")
        self.model = model
        self.base_url = (url if sep else os.environ.get("OPENAI_BASE_URL", DEFAULT_URL)).rstrip("/")
        self.key_env = opts.get("key_env", "OPENAI_API_KEY")
        self.timeout = float(opts.get("timeout", timeout))
        self.max_retries = int(opts.get("retries", max_retries))
        self.backoff = backoff

    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json"}
        key = os.environ.get(self.key_env)
        if key:
            h["Authorization"] = f"Bearer {key}"
        return h

    def _post(self, path: str, payload: dict) -> dict:
        url = f"{self.base_url}{path}"
        body = json.dumps(payload).encode("utf-8")
        last = None
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self.backoff * (2 ** (attempt - 1)) * (0.5 + random.random() / 2))
            req = urllib.request.Request(url, data=body, headers=self._headers(), method="POST")
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    raw = resp.read()
            except urllib.error.HTTPError as exc:
                detail = exc.read()[:300].decode("utf-8", "replace")
                last = OpenAIError(f"{url}: HTTP {exc.code} {exc.reason}: {detail}")
                if exc.code in RETRY_STATUS:
                    continue
                raise last from None
            except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError) as exc:
                reason = getattr(exc, "reason", exc)
                last = OpenAIError(f"{url}: request failed ({reason}) after {self.timeout:g} s timeout")
                continue
            try:
                return json.loads(raw)
            except json.JSONDecodeError:
                last = OpenAIError(f"{url}: malformed JSON in response: {raw[:200]!r}")
                continue
        raise OpenAIError(f"{last} (gave up after {self.max_retries + 1} attempts)")

    def _chat_once(self, messages, max_tokens, temperature, seed) -> str:
        payload = {"model": self.model, "messages": list(messages), "max_tokens": max_tokens,
                   "temperature": temperature}
        if seed is not None:
            payload["seed"] = seed
        data = self._post("/chat/completions", payload)
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise OpenAIError(f"{self.base_url}: unexpected response shape: {str(data)[:200]}") from None
        return content or ""

    def chat(self, messages, *, max_tokens=256, temperature=0.0, seed=None) -> str:
        if temperature > 0 and seed is None:
            return self._chat_once(messages, max_tokens, temperature, seed)
        params = {"max_tokens": max_tokens, "temperature": temperature, "seed": seed, "url": self.base_url}
        return cached_map(f"openai:{self.model}", "chat", params, [list(messages)],
                          lambda ms: [self._chat_once(m, max_tokens, temperature, seed) for m in ms])[0]

    def complete(self, prompt, *, max_tokens=256, temperature=0.0, seed=None) -> str:
        payload = {"model": self.model, "prompt": prompt, "max_tokens": max_tokens, "temperature": temperature}
        if seed is not None:
            payload["seed"] = seed
        data = self._post("/completions", payload)
        try:
            return data["choices"][0]["text"]
        except (KeyError, IndexError, TypeError):
            raise OpenAIError(f"{self.base_url}: unexpected response shape: {str(data)[:200]}") from None
