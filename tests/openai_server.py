"""A real OpenAI-compatible HTTP server on 127.0.0.1 with scripted, deterministic answers."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ScriptedServer:
    """Each POST pops the next scripted action: ('ok', text) | ('status', code) | ('sleep', s) | ('garbage', bytes).
    With the script empty, answers with ``default(messages)``."""

    def __init__(self, default=None):
        self.script: list[tuple] = []
        self.requests: list[dict] = []
        self.default = default or (lambda messages: "echo: " + messages[-1]["content"])
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
                action = server.script.pop(0) if server.script else ("ok", None)
                kind, arg = action
                if kind == "status":
                    self._send(arg, b'{"error": {"message": "scripted failure"}}')
                    return
                if kind == "sleep":
                    time.sleep(arg)
                    action = ("ok", None)
                if kind == "garbage":
                    self._send(200, arg)
                    return
                text = action[1] if action[1] is not None else server.default(body.get("messages") or
                                                                             [{"content": body.get("prompt", "")}])
                if self.path.endswith("/completions") and "messages" not in body:
                    payload = {"choices": [{"text": text, "index": 0}]}
                else:
                    payload = {"choices": [{"message": {"role": "assistant", "content": text}, "index": 0}]}
                self._send(200, json.dumps(payload).encode())

            def _send(self, code, data: bytes):
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except BrokenPipeError:
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
