"""Load a local HTML file in headless Chromium with the network disabled, over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: no websocket client needed), and report what the page did: console errors,
uncaught exceptions, every network request, a screenshot, and the values of JavaScript expressions."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--proxy-server=127.0.0.1:9",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--remote-debugging-pipe",
]


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class PageRun:
    errors: list[str] = field(default_factory=list)  # console errors, uncaught exceptions, error log entries
    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    screenshot: bytes = b""
    values: dict[str, Any] = field(default_factory=dict)


class _Pipe:
    def __init__(self, wf, rf):
        self.wf, self.rf, self.buf, self.n, self.events = wf, rf, b"", 0, []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self.n += 1
        msg: dict[str, Any] = {"id": self.n, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.wf.write(json.dumps(msg).encode() + b"\0")
        return self.n

    def recv(self, deadline: float) -> dict:
        while b"\0" not in self.buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = self.rf.read(1 << 16)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 60) -> dict:
        i = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            m = self.recv(deadline)
            if m.get("id") == i:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_for(self, method: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        if any(ev.get("method") == method for ev in self.events):
            return
        while True:
            m = self.recv(deadline)
            self.events.append(m)
            if m.get("method") == method:
                return


def load_page(
    html: Path,
    *,
    width: int = 1280,
    height: int = 2000,
    scripts: bool = True,
    evaluate: dict[str, str] | None = None,
    timeout: float = 90,
) -> PageRun:
    """Open ``html`` (file://), wait for load, run ``evaluate`` expressions (name -> JS), take a screenshot."""
    exe = chromium()
    assert exe, "chromium not installed"
    r3, w3 = os.pipe()
    r4, w4 = os.pipe()

    def child_fds():
        os.dup2(r3, 3)
        os.dup2(w4, 4)

    with tempfile.TemporaryDirectory() as profile:
        # preexec_fn puts the pipe ends on fds 3 and 4, where --remote-debugging-pipe expects them
        proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"],
            pass_fds=(3, 4),
            preexec_fn=child_fds,  # noqa: PLW1509
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(r3)
        os.close(w4)
        pipe = _Pipe(os.fdopen(w3, "wb", buffering=0), os.fdopen(r4, "rb", buffering=0))
        run = PageRun()
        try:
            target = pipe.call("Target.createTarget", {"url": "about:blank"}, timeout=timeout)["targetId"]
            s = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Runtime.enable", "Log.enable", "Page.enable", "Network.enable"):
                pipe.call(domain, session=s)
            pipe.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                session=s,
            )
            if not scripts:
                pipe.call("Emulation.setScriptExecutionDisabled", {"value": True}, session=s)
            pipe.call("Page.navigate", {"url": Path(html).resolve().as_uri()}, session=s)
            pipe.wait_for("Page.loadEventFired", timeout=timeout)
            for name, expr in (evaluate or {}).items():
                res = pipe.call(
                    "Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True}, session=s
                )
                run.values[name] = res.get("result", {}).get("value")
            time.sleep(0.3)
            shot = pipe.call("Page.captureScreenshot", {"format": "png"}, session=s)
            run.screenshot = base64.b64decode(shot["data"])
            pipe.send("Browser.close")
        finally:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for ev in pipe.events:
            method, p = ev.get("method"), ev.get("params", {})
            if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                run.errors.append("console: " + " ".join(str(a.get("value")) for a in p.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                run.errors.append(f"exception: {d.get('text')} {d.get('exception', {}).get('description', '')}")
            elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                run.errors.append("log: " + p["entry"].get("text", ""))
            elif method == "Network.requestWillBeSent":
                run.requests.append(p.get("request", {}).get("url", ""))
        return run
