"""``openai:...#batch=1``: a list of chat requests through the OpenAI Batch API, resumable without paying twice.

The requests become a JSONL input file (one line per request, ``custom_id`` = its position) uploaded to
``/v1/files`` (purpose ``batch``); a batch is created at ``/v1/batches`` and polled every ``#poll=`` seconds until
it ends; the output file (and the error file, if any) is downloaded and each line matched back to its request. The
replies are the synchronous path's: the same request bodies, the same answer parsing and usage accounting, replies
in input order, failed lines raised as errors after the others are cached.

The batch id is kept in a state directory (``OUT/batches/`` of a build, else ``openai-batches/`` beside the output
cache) under the sha256 of the input file, written as soon as the batch exists: a killed build that is run again
sends the same requests, finds the id and waits for that batch instead of creating (and paying for) a new one. A
batch that failed, expired or was cancelled is created anew.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Iterator

from mtgauntlet.atomic import write_json_atomic
from mtgauntlet.models.usage import LEDGER

ENDPOINT = "/v1/chat/completions"
DONE = {"completed", "failed", "expired", "cancelled"}
_STATE_DIR: list[Path] = []  # innermost state_dir() scope last


@contextlib.contextmanager
def state_dir(path: str | Path) -> Iterator[None]:
    """Keep the batch ids of the requests sent inside under ``path`` (a build sets ``OUT/batches``)."""
    _STATE_DIR.append(Path(path))
    try:
        yield
    finally:
        _STATE_DIR.pop()


def _state_path(digest: str) -> Path:
    if _STATE_DIR:
        base = _STATE_DIR[-1]
    else:
        from mtgauntlet.models.cache import cache_path

        cached = cache_path()
        base = (cached.parent if cached else Path(os.environ.get("TMPDIR", "/tmp"))) / "openai-batches"
    return base / f"{digest[:40]}.json"


def input_file(bodies: list[dict]) -> bytes:
    # the bodies exactly as the synchronous path sends them (same key order): the same request, the same answer
    lines = [json.dumps({"custom_id": str(i), "method": "POST", "url": ENDPOINT, "body": b}, ensure_ascii=False)
             for i, b in enumerate(bodies)]
    return ("\n".join(lines) + "\n").encode("utf-8")


async def _create(backend, data: bytes, n: int, state: Path) -> str:
    for _ in range(n):  # every request of a new batch passes the budget before anything is uploaded
        LEDGER.reserve()
    uploaded = await backend._request("POST", "/files", data={"purpose": "batch"},
                                      files={"file": ("requests.jsonl", data, "application/jsonl")})
    batch = await backend._request("POST", "/batches", content=json.dumps(
        {"input_file_id": uploaded["id"], "endpoint": ENDPOINT, "completion_window": "24h"}).encode("utf-8"))
    state.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(state, {"batch_id": batch["id"], "input_file_id": uploaded["id"], "requests": n,
                              "base_url": backend.base_url})
    return batch["id"]


async def _lines(backend, file_id: str | None) -> dict[str, dict]:
    if not file_id:
        return {}
    raw = await backend._request("GET", f"/files/{file_id}/content", raw=True)
    out = {}
    for line in raw.decode("utf-8").splitlines():
        if line.strip():
            obj = json.loads(line)
            out[str(obj.get("custom_id"))] = obj
    return out


async def run_batch(backend, bodies: list[dict], schema=None) -> list[Any]:
    """Replies (or exceptions) of ``bodies``, in order, through one batch (an earlier one for the same requests,
    when its id was kept)."""
    from mtgauntlet.models.openai_compat import OpenAIError

    data = input_file(bodies)
    state = _state_path(hashlib.sha256(backend.base_url.encode() + b"\n" + data).hexdigest())
    batch_id = None
    if state.is_file():
        batch_id = json.loads(state.read_text(encoding="utf-8")).get("batch_id")
    while True:
        if batch_id is None:
            batch_id = await _create(backend, data, len(bodies), state)
        batch = await backend._request("GET", f"/batches/{batch_id}")
        if batch.get("status") in DONE:
            break
        await asyncio.sleep(backend.poll)
    if batch["status"] != "completed":
        state.unlink(missing_ok=True)  # nothing to resume: the next run creates a new batch
        raise OpenAIError(f"{backend.base_url}: batch {batch_id} ended {batch['status']}: "
                          f"{str(batch.get('errors'))[:200]}")
    lines = {**await _lines(backend, batch.get("error_file_id")), **await _lines(backend, batch.get("output_file_id"))}
    out: list[Any] = []
    for i in range(len(bodies)):
        line = lines.get(str(i)) or {}
        response = line.get("response") or {}
        if response.get("status_code") == 200:
            try:
                out.append(backend.answer_of(response.get("body"), schema))
            except OpenAIError as exc:
                out.append(exc)
            continue
        LEDGER.add(backend.usage_key, failures=1)
        why = line.get("error") or (response.get("body") or {}).get("error") or "no answer in the output file"
        out.append(OpenAIError(f"{backend.base_url}: batch {batch_id} request {i}: {str(why)[:200]}"))
    return out
