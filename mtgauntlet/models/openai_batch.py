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

A build killed after asking for a batch but before saving its id would pay twice: so the state file is written
first, as an intent without an id, and every batch is created with ``metadata`` ``{"mtgauntlet_key": KEY}`` (the
request set's digest). A run that finds an intent without an id lists ``GET /v1/batches`` (newest first, up to
``LIST_PAGES`` pages) and waits for the batch carrying its key, when there is one that did not fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any, Iterator

from mtgauntlet.atomic import write_json_atomic
from mtgauntlet.models.usage import LEDGER

ENDPOINT = "/v1/chat/completions"
DONE = {"completed", "failed", "expired", "cancelled"}
DEAD = {"failed", "expired", "cancelled", "cancelling"}
METADATA_KEY = "mtgauntlet_key"
LIST_PAGES = 10  # of 100 batches each, newest first: the killed run's batch is among the latest
log = logging.getLogger(__name__)
_STATE_DIR: list[Path] = []  # innermost state_dir() scope last


@contextlib.contextmanager
def state_dir(path: str | Path) -> Iterator[None]:
    """Keep the batch ids of the requests sent inside under ``path`` (a build sets ``OUT/batches``)."""
    _STATE_DIR.append(Path(path))
    try:
        yield
    finally:
        _STATE_DIR.pop()


def _state_path(key: str) -> Path:
    if _STATE_DIR:
        base = _STATE_DIR[-1]
    else:
        from mtgauntlet.models.cache import cache_path

        cached = cache_path()
        base = (cached.parent if cached else Path(os.environ.get("TMPDIR", "/tmp"))) / "openai-batches"
    return base / f"{key}.json"


def input_file(bodies: list[dict]) -> bytes:
    # the bodies exactly as the synchronous path sends them (same key order): the same request, the same answer
    lines = [json.dumps({"custom_id": str(i), "method": "POST", "url": ENDPOINT, "body": b}, ensure_ascii=False)
             for i, b in enumerate(bodies)]
    return ("\n".join(lines) + "\n").encode("utf-8")


async def _create(backend, data: bytes, n: int, state: Path, key: str) -> str:
    for _ in range(n):  # every request of a new batch passes the budget before anything is uploaded
        LEDGER.reserve()
    state.parent.mkdir(parents=True, exist_ok=True)
    kept = {"key": key, "requests": n, "base_url": backend.base_url}
    write_json_atomic(state, {**kept, "batch_id": None})  # the intent, before the batch can exist
    uploaded = await backend._request("POST", "/files", data={"purpose": "batch"},
                                      files={"file": ("requests.jsonl", data, "application/jsonl")})
    batch = await backend._request("POST", "/batches", content=json.dumps(
        {"input_file_id": uploaded["id"], "endpoint": ENDPOINT, "completion_window": "24h",
         "metadata": {METADATA_KEY: key}}).encode("utf-8"))
    write_json_atomic(state, {**kept, "batch_id": batch["id"], "input_file_id": uploaded["id"]})
    return batch["id"]


async def _find(backend, key: str) -> str | None:
    """The id of a batch created with ``key`` in its metadata that did not fail (None: there is none)."""
    from mtgauntlet.models.openai_compat import OpenAIError

    after = None
    for _ in range(LIST_PAGES):
        query = "?limit=100" + (f"&after={after}" if after else "")
        try:
            page = await backend._request("GET", f"/batches{query}")
        except OpenAIError as exc:  # a server that cannot list batches: nothing to adopt
            log.warning("%s: cannot list batches to find an unsaved one (%s); creating a new batch",
                        backend.base_url, str(exc)[:200])
            return None
        data = (page.get("data") or []) if isinstance(page, dict) else []
        for batch in data:
            if (batch.get("metadata") or {}).get(METADATA_KEY) == key and batch.get("status") not in DEAD:
                return batch["id"]
        if not data or not page.get("has_more"):
            return None
        after = data[-1]["id"]
    return None


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
    key = hashlib.sha256(backend.base_url.encode() + b"\n" + data).hexdigest()[:40]
    state = _state_path(key)
    batch_id = None
    if state.is_file():
        batch_id = json.loads(state.read_text(encoding="utf-8")).get("batch_id")
        if batch_id is None:  # a run was killed between asking for a batch and saving its id
            batch_id = await _find(backend, key)
    while True:
        if batch_id is None:
            batch_id = await _create(backend, data, len(bodies), state, key)
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
