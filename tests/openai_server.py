"""A real OpenAI-compatible HTTP server on 127.0.0.1 with scripted, deterministic answers."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # as real servers (socketserver's 5 drops simultaneous connects: 1 s SYN retries)


class ScriptedServer:
    """Each POST pops the next scripted action (thread-safe):

    ('ok', text) | ('status', code) | ('status', code, {header: value}) | ('sleep', s) | ('garbage', bytes)
    | ('trickle', seconds_per_byte): a valid answer sent one byte at a time
    | ('truncate', None): a Content-Length larger than the body, then the connection closes.

    With the script empty, answers with ``default(messages)`` (``default(messages, body)`` when the function has
    ``wants_body = True``: it sees the seed) after ``latency`` seconds; a tuple it returns is one of the actions
    above. ``max_in_flight`` is the largest number of requests the server was handling at the same time.
    """

    def __init__(self, default=None, latency: float = 0.0):
        self.script: list[tuple] = []
        self.requests: list[dict] = []
        self.default = default or (lambda messages: "echo: " + messages[-1]["content"])
        self.latency = latency
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers: the client pools connections

            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
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
                    self._send(arg, b'{"error": {"message": "scripted failure"}}',
                               action[2] if len(action) > 2 else None)
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
                if kind == "ok" and arg is not None:
                    text = arg
                else:
                    messages = body.get("messages") or [{"content": body.get("prompt", "")}]
                    text = (server.default(messages, body) if getattr(server.default, "wants_body", False)
                            else server.default(messages))
                    if isinstance(text, tuple):  # the default chose an action (e.g. a failure for some inputs)
                        self._answer(body, text)
                        return
                if self.path.endswith("/completions") and "messages" not in body:
                    payload = {"choices": [{"text": text, "index": 0}]}
                else:
                    payload = {"choices": [{"message": {"role": "assistant", "content": text}, "index": 0}]}
                data = json.dumps(payload).encode()
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
                        self.wfile.write(data[i:i + 1])
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

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
