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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mtgauntlet.atomic import write_json_atomic
from mtgauntlet.core.usage import LEDGER, BudgetSpent, RunStopped
from mtgauntlet.models.openai_errors import OpenAIError

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
        from mtgauntlet.core.cache import cache_path

        cached = cache_path()
        base = (cached.parent if cached else Path(os.environ.get("TMPDIR", "/tmp"))) / "openai-batches"
    return base / f"{key}.json"


def input_file(bodies: list[dict]) -> bytes:
    # the bodies exactly as the synchronous path sends them (same key order): the same request, the same answer
    lines = [
        json.dumps({"custom_id": str(i), "method": "POST", "url": ENDPOINT, "body": b}, ensure_ascii=False)
        for i, b in enumerate(bodies)
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


async def _create(backend, data: bytes, n: int, state: Path, key: str) -> str:
    state.parent.mkdir(parents=True, exist_ok=True)
    kept = {"key": key, "requests": n, "base_url": backend.base_url}
    write_json_atomic(state, {**kept, "batch_id": None})  # the intent, before the batch can exist
    uploaded = await backend._request(
        "POST", "/files", data={"purpose": "batch"}, files={"file": ("requests.jsonl", data, "application/jsonl")}
    )
    batch = await backend._request(
        "POST",
        "/batches",
        content=json.dumps(
            {
                "input_file_id": uploaded["id"],
                "endpoint": ENDPOINT,
                "completion_window": "24h",
                "metadata": {METADATA_KEY: key},
            }
        ).encode("utf-8"),
    )
    write_json_atomic(state, {**kept, "batch_id": batch["id"], "input_file_id": uploaded["id"]})
    return batch["id"]


async def _find(backend, key: str) -> str | None:
    """The id of a batch created with ``key`` in its metadata that did not fail (None: there is none)."""

    after = None
    for _ in range(LIST_PAGES):
        query = "?limit=100" + (f"&after={after}" if after else "")
        try:
            page = await backend._request("GET", f"/batches{query}")
        except OpenAIError as exc:  # a server that cannot list batches: nothing to adopt
            log.warning(
                "%s: cannot list batches to find an unsaved one (%s); creating a new batch",
                backend.base_url,
                str(exc)[:200],
            )
            return None
        data = (page.get("data") or []) if isinstance(page, dict) else []
        for batch in data:
            if (batch.get("metadata") or {}).get(METADATA_KEY) == key and batch.get("status") not in DEAD:
                return batch["id"]
        if not data or not page.get("has_more"):
            return None
        after = data[-1]["id"]
    return None


def _parse_lines(raw: bytes) -> tuple[dict[str, list[dict]], int]:
    """Result lines by ``custom_id`` (all of them: a duplicate is kept to be reported), and how many lines were
    not a JSON object with a ``custom_id``."""
    out: dict[str, list[dict]] = {}
    bad = 0
    for text in raw.decode("utf-8", "replace").splitlines():
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except ValueError:
            obj = None
        if not isinstance(obj, dict) or obj.get("custom_id") is None:
            bad += 1
            continue
        out.setdefault(str(obj["custom_id"]), []).append(obj)
    return out, bad


def _body(line: dict) -> dict | None:
    """The answer body of a result line answered 200, else None."""
    response = line.get("response")
    if isinstance(response, dict) and response.get("status_code") == 200 and isinstance(response.get("body"), dict):
        return response["body"]
    return None


async def _get(backend, path: str, batch_id: str, state: Path, raw: bool = False) -> Any:
    """A GET about a batch; HTTP 404 (the server purged the batch or its files) clears the kept state."""

    try:
        return await backend._request("GET", path, raw=raw)
    except OpenAIError as exc:
        if exc.status != 404:
            raise
        state.unlink(missing_ok=True)
        raise OpenAIError(
            f"{backend.base_url}: batch {batch_id} is no longer on the server (HTTP 404 at {path}: "
            "purged or deleted); its saved state was cleared: run the same command again to send "
            "these requests in a new batch"
        ) from None


async def _reserve(backend, bodies: list[dict]) -> tuple[int, BudgetSpent | None]:
    """(how many of ``bodies``, from the first, are reserved in the budget, why none was when none was). Waits
    while none fits only because of requests in flight; stops at the first that does not fit beside the others."""
    while True:
        fit = 0
        for body in bodies:
            try:
                if not LEDGER.try_reserve(backend.usage_key, backend.cost_bound(body)):
                    break
            except BudgetSpent as exc:
                return fit, (exc if not fit else None)
            except BaseException:  # a graceful stop: the ones reserved were never sent
                for unsent in bodies[:fit]:
                    LEDGER.settle(backend.usage_key, backend.cost_bound(unsent))
                raise
            fit += 1
        if fit:
            return fit, None
        await asyncio.sleep(0.05)


def batch_key(backend, bodies: list[dict]) -> str:
    return hashlib.sha256(backend.base_url.encode() + b"\n" + input_file(bodies)).hexdigest()[:40]


async def run_batch(backend, bodies: list[dict], schema=None, keep=lambda i, answer: None) -> list[Any]:
    """Replies (or exceptions) of ``bodies``, in order, through one batch (an earlier one for the same requests,
    when its id was kept), or through several when the budget lets only some leave at once (each waits for the one
    before); ``keep(i, answer)`` is called with each answer before the batch's state is cleared."""
    if _state_path(batch_key(backend, bodies)).is_file():  # sent by an earlier run (and paid): resumed as it is
        return await _run(backend, bodies, schema, keep, held=False)
    out: list[Any] = []
    while len(out) < len(bodies):
        rest = bodies[len(out) :]
        fit, stop = await _reserve(backend, rest)
        if stop is not None:
            if not out:
                raise stop
            return out + [stop] * len(rest)
        start = len(out)
        out += await _run(
            backend, rest[:fit], schema, lambda i, answer, start=start: keep(start + i, answer), held=True
        )
    return out


async def _run(backend, bodies: list[dict], schema, keep, held: bool) -> list[Any]:
    """The batch of ``bodies`` (``held``: each reserved in the budget by this run, to be settled or abandoned
    here; else sent and journalled by an earlier run)."""
    ended: set[int] = set()
    try:
        return await _run_held(backend, bodies, schema, keep, held, ended)
    finally:
        if held:  # requests at the provider that never came back (a kill, a stop, a failed batch): unanswered
            for i, body in enumerate(bodies):
                if i not in ended:
                    LEDGER.abandon(backend.cost_bound(body))


async def _run_held(backend, bodies: list[dict], schema, keep, held: bool, ended: set[int]) -> list[Any]:

    data = input_file(bodies)
    key = batch_key(backend, bodies)
    state = _state_path(key)
    batch_id = None
    if state.is_file():
        batch_id = json.loads(state.read_text(encoding="utf-8")).get("batch_id")
        if batch_id is None:  # a run was killed between asking for a batch and saving its id
            batch_id = await _find(backend, key)
    while True:
        if batch_id is None:
            batch_id = await _create(backend, data, len(bodies), state, key)
        batch = await _get(backend, f"/batches/{batch_id}", batch_id, state)
        if batch.get("status") in DONE:
            break
        if LEDGER.draining:  # a graceful stop: the batch runs on at the provider; the next run waits for it
            raise RunStopped(f"stopping ({LEDGER.draining}): batch {batch_id} is kept to be resumed")
        await asyncio.sleep(backend.poll)
    if batch["status"] != "completed":
        state.unlink(missing_ok=True)  # nothing to resume: the next run creates a new batch
        raise OpenAIError(
            f"{backend.base_url}: batch {batch_id} ended {batch['status']}: {str(batch.get('errors'))[:200]}"
        )
    lines: dict[str, list[dict]] = {}
    bad = 0
    for file_id in (batch.get("error_file_id"), batch.get("output_file_id")):
        if file_id:
            found, n = _parse_lines(await _get(backend, f"/files/{file_id}/content", batch_id, state, raw=True))
            bad += n
            for cid, got in found.items():
                lines.setdefault(cid, []).extend(got)
    if bad:
        log.warning(
            "%s: batch %s: %d result line(s) are not JSON objects with a custom_id; their requests get "
            "no answer and are sent again by the next run",
            backend.base_url,
            batch_id,
            bad,
        )
    out = []
    for i, body in enumerate(bodies):
        out.append(_result(backend, batch_id, i, lines.get(str(i), []), schema, backend.cost_bound(body), held))
        if lines.get(str(i)):
            ended.add(i)
    for i, answer in enumerate(out):
        if not isinstance(answer, BaseException):
            keep(i, answer)
    if any(isinstance(r, BaseException) for r in out):
        state.unlink(missing_ok=True)  # the next run sends the requests without an answer again
    return out


def _result(backend, batch_id: str, i: int, lines: list[dict], schema, bound: float, held: bool) -> Any:
    """The reply of request ``i`` (or its error) from its result lines, settled in the ledger with the usage of one
    line: a request billed once is counted once, however many lines repeat it. A request without a line stays
    unanswered (`run_batch`). Lines that repeat one ``custom_id`` with different answers are an error."""
    if not lines:
        LEDGER.add(backend.usage_key, failures=1)
        return OpenAIError(f"{backend.base_url}: batch {batch_id} request {i}: no answer in the output file")
    bodies = [b for b in (_body(line) for line in lines) if b is not None]
    if bodies:
        answer, counts = backend.parse_answer(bodies[0], schema)
    else:
        answer, counts = None, {"failures": 1}
    if len({json.dumps(b, sort_keys=True) for b in bodies}) > 1 or (bodies and len(bodies) < len(lines)):
        counts["failures"] = 1
        answer = OpenAIError(
            f"{backend.base_url}: batch {batch_id}: custom_id {str(i)!r} appears {len(lines)} times in "
            "its results with different answers; neither answer is used"
        )
    LEDGER.settle(backend.usage_key, bound, held, **counts)
    if answer is not None:
        return answer
    response = lines[0].get("response")
    body = response.get("body") if isinstance(response, dict) else None
    body = body if isinstance(body, dict) else {}
    why = lines[0].get("error") or body.get("error") or "no answer in the output file"
    return OpenAIError(f"{backend.base_url}: batch {batch_id} request {i}: {str(why)[:200]}")
