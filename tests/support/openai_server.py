"""A real OpenAI-compatible HTTP server on 127.0.0.1 with scripted, deterministic answers.

Answers carry ``usage`` (prompt and completion tokens: words and punctuation marks of the messages and of the
answer), summed in ``ScriptedServer.usage`` as a paid server bills them. ``/v1/files`` (multipart upload, content
download) and ``/v1/batches`` (create with ``metadata``, retrieve, list newest first with ``limit`` and ``after``)
implement the Batch API: a batch completes after ``batch_polls`` status checks (``hold_batches`` keeps every batch
in progress), its lines answered as ``/v1/chat/completions`` requests; while ``stall_create`` is set, the answer to a
batch creation (the batch exists already) waits until it is cleared, as a reply lost to a killed client. ``rate_limit=(n, seconds)`` answers 429 (with Retry-After) to a request beyond ``n`` in any ``seconds``.

What it is paid: ``usage`` sums every answer it sent or wrote into a batch output (as a paid API bills them, whether
or not the client reads it), ``paid`` counts each distinct request (path + body) answered, so ``paid_twice()`` is
how many answers were paid more than once, and ``cost(price)`` is what the tokens cost at ``(IN, OUT)`` USD per 1M.
``mangle_batch(lines)`` rewrites a batch's output lines (duplicates, malformed lines); ``purge_after_polls=n``
deletes a batch and its files after ``n`` status checks (a purged batch: 404).
"""

from __future__ import annotations

import collections
import email.parser
import itertools
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def count_tokens(text: str) -> int:
    """The test server's tokenizer: words and punctuation marks."""
    return len(re.findall(r"\w+|[^\w\s]", text or ""))


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # as real servers (socketserver's 5 drops simultaneous connects: 1 s SYN retries)


class ScriptedServer:
    """Each POST pops the next scripted action (thread-safe):

    ('ok', text) | ('status', code) | ('status', code, {header: value}) | ('sleep', s) | ('garbage', bytes)
    | ('trickle', seconds_per_byte): a valid answer sent one byte at a time
    | ('truncate', None): a Content-Length larger than the body, then the connection closes
    | ('usage', value): a valid answer whose ``usage`` field is ``value`` (any JSON; the server's own sums count
    the real tokens).

    With the script empty, answers with ``default(messages)`` (``default(messages, body)`` when the function has
    ``wants_body = True``: it sees the seed) after ``latency`` seconds; a tuple it returns is one of the actions
    above. ``max_in_flight`` is the largest number of requests the server was handling at the same time.
    """

    def __init__(
        self, default=None, latency: float = 0.0, batch_polls: int = 1, rate_limit: tuple[int, float] | None = None
    ):
        self.script: list[tuple] = []
        self.requests: list[dict] = []
        self.usage = {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0}
        self.paid: collections.Counter = collections.Counter()  # answers per distinct request (path + body)
        self.mangle_batch = None  # lines -> lines, applied to each batch output file
        self.purge_after_polls: int | None = None
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.batch_polls, self.hold_batches = batch_polls, False
        self.stall_create = threading.Event()  # set: batch creations are not answered until it is cleared
        self.rate_limit, self.rejected = rate_limit, 0
        self._recent: collections.deque = collections.deque()
        self._ids = itertools.count(1)
        self.default = default or (lambda messages: "echo: " + messages[-1]["content"])
        self.latency = latency
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers: the client pools connections

            def log_message(self, *a):
                pass

            def do_GET(self):
                listing = re.fullmatch(r"/v1/batches\?limit=(\d+)(?:&after=([\w-]+))?", self.path)
                m = re.fullmatch(r"/v1/(batches|files)/([\w-]+)(/content)?", self.path)
                if listing:
                    self._send(200, json.dumps(server._list_batches(int(listing.group(1)), listing.group(2))).encode())
                elif not m:
                    self._send(404, b'{"error": {"message": "not found"}}')
                elif m.group(1) == "files" and m.group(2) in server.files:
                    self._send(200, server.files[m.group(2)])
                elif m.group(1) == "batches" and m.group(2) in server.batches:
                    polled = server._poll(m.group(2))
                    if polled is None:  # purged just now
                        self._send(404, b'{"error": {"message": "no such object"}}')
                    else:
                        self._send(200, json.dumps(polled).encode())
                else:
                    self._send(404, b'{"error": {"message": "no such object"}}')

            def do_POST(self):
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path.endswith("/files"):
                    self._send(200, json.dumps(server._upload(self.headers["Content-Type"], raw)).encode())
                    return
                body = json.loads(raw)
                if self.path.endswith("/batches"):
                    created = server._create_batch(body)
                    while server.stall_create.is_set():
                        time.sleep(0.05)
                    self._send(200, json.dumps(created).encode())
                    return
                if server._over_limit():
                    self._send(429, b'{"error": {"message": "rate limit"}}', {"Retry-After": "0.2"})
                    return
                with server._lock:
                    server.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
                    action = server.script.pop(0) if server.script else ("ok", None)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    self._answer(body, action)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _answer(self, body, action):
                kind, arg = action[0], action[1]
                if kind == "status":
                    self._send(
                        arg, b'{"error": {"message": "scripted failure"}}', action[2] if len(action) > 2 else None
                    )
                    return
                if kind == "garbage":
                    self._send(200, arg)
                    return
                if kind == "truncate":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "1000")
                    self.end_headers()
                    self.wfile.write(b'{"choices": [')
                    self.wfile.flush()
                    self.close_connection = True
                    return
                time.sleep(arg if kind == "sleep" else server.latency)
                if kind == "usage":
                    data = server._payload(self.path, body, server._text(body))
                    data["usage"] = arg
                    self._send(200, json.dumps(data).encode())
                    return
                if kind == "ok" and arg is not None:
                    text = arg
                else:
                    text = server._text(body)
                    if isinstance(text, tuple):  # the default chose an action (e.g. a failure for some inputs)
                        self._answer(body, text)
                        return
                data = json.dumps(server._payload(self.path, body, text)).encode()
                if kind == "trickle":
                    self._trickle(data, arg)
                    return
                self._send(200, data)

            def _trickle(self, data: bytes, per_byte: float):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    for i in range(len(data)):
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                        time.sleep(per_byte)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def _send(self, code, data: bytes, headers: dict | None = None):
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _text(self, body: dict) -> str:
        messages = body.get("messages") or [{"content": body.get("prompt", "")}]
        return self.default(messages, body) if getattr(self.default, "wants_body", False) else self.default(messages)

    def _payload(self, path: str, body: dict, text: str) -> dict:
        """A completion answer with its usage (summed in ``self.usage``)."""
        prompt = body["messages"] if "messages" in body else [{"content": body.get("prompt", "")}]
        usage = {
            "prompt_tokens": sum(count_tokens(str(m.get("content", ""))) for m in prompt),
            "completion_tokens": count_tokens(text),
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        with self._lock:
            self.paid[path.rsplit("/v1", 1)[-1] + json.dumps(body, sort_keys=True)] += 1
            self.usage["requests"] += 1
            self.usage["prompt_tokens"] += usage["prompt_tokens"]
            self.usage["completion_tokens"] += usage["completion_tokens"]
        if path.endswith("/completions") and "messages" not in body:
            return {"choices": [{"text": text, "index": 0}], "usage": usage}
        return {"choices": [{"message": {"role": "assistant", "content": text}, "index": 0}], "usage": usage}

    def paid_twice(self) -> int:
        """Answers paid beyond the first for the same request."""
        with self._lock:
            return sum(n - 1 for n in self.paid.values() if n > 1)

    def cost(self, price: tuple[float, float]) -> float:
        return self.usage["prompt_tokens"] * price[0] / 1e6 + self.usage["completion_tokens"] * price[1] / 1e6

    def _over_limit(self) -> bool:
        if self.rate_limit is None:
            return False
        n, window = self.rate_limit
        with self._lock:
            now = time.monotonic()
            while self._recent and now - self._recent[0] > window:
                self._recent.popleft()
            if len(self._recent) >= n:
                self.rejected += 1
                return True
            self._recent.append(now)
            return False

    def _upload(self, content_type: str, raw: bytes) -> dict:
        msg = email.parser.BytesParser().parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
        parts = {
            p.get_param("name", header="content-disposition"): p.get_payload(decode=True) for p in msg.get_payload()
        }
        with self._lock:
            file_id = f"file-{next(self._ids)}"
            self.files[file_id] = parts["file"]
            self.requests.append({"path": "/v1/files", "body": {"purpose": parts["purpose"].decode()}, "headers": {}})
        return {"id": file_id, "object": "file", "purpose": "batch", "bytes": len(parts["file"])}

    def _create_batch(self, body: dict) -> dict:
        with self._lock:
            batch_id = f"batch-{next(self._ids)}"
            self.batches[batch_id] = {"id": batch_id, "object": "batch", "status": "validating", "polls": 0, **body}
            self.requests.append({"path": "/v1/batches", "body": body, "headers": {}})
            return {k: v for k, v in self.batches[batch_id].items() if k != "polls"}

    def _list_batches(self, limit: int, after: str | None) -> dict:
        with self._lock:
            newest = [{k: v for k, v in b.items() if k != "polls"} for b in reversed(self.batches.values())]
        start = next((i + 1 for i, b in enumerate(newest) if b["id"] == after), 0) if after else 0
        page = newest[start : start + limit]
        self.requests.append({"path": "/v1/batches?list", "body": {"limit": limit, "after": after}, "headers": {}})
        return {
            "object": "list",
            "data": page,
            "has_more": start + limit < len(newest),
            "first_id": page[0]["id"] if page else None,
            "last_id": page[-1]["id"] if page else None,
        }

    def _poll(self, batch_id: str) -> dict:
        batch = self.batches[batch_id]
        batch["polls"] += 1
        if self.purge_after_polls is not None and batch["polls"] > self.purge_after_polls:
            for key in ("input_file_id", "output_file_id", "error_file_id"):
                self.files.pop(batch.get(key) or "", None)
            del self.batches[batch_id]
            return None
        if batch["status"] != "completed" and not self.hold_batches:
            batch["status"] = "in_progress"
            if batch["polls"] > self.batch_polls:
                self._run_batch(batch)
        return {k: v for k, v in batch.items() if k != "polls"}

    def _run_batch(self, batch: dict) -> None:
        out = []
        for line in self.files[batch["input_file_id"]].decode().splitlines():
            req = json.loads(line)
            text = self._text(req["body"])
            response = (
                {"status_code": 500, "body": {"error": {"message": "scripted failure"}}}
                if isinstance(text, tuple)
                else {"status_code": 200, "body": self._payload(req["url"], req["body"], text)}
            )
            out.append(
                {"id": f"req-{req['custom_id']}", "custom_id": req["custom_id"], "error": None, "response": response}
            )
        file_id = f"file-{next(self._ids)}"
        lines = [json.dumps(o) for o in out]
        if self.mangle_batch is not None:
            lines = self.mangle_batch(lines)
        self.files[file_id] = "".join(line + "\n" for line in lines).encode()
        batch.update(status="completed", output_file_id=file_id, error_file_id=None)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
