"""What other layers use of a build without running one (the runner, :mod:`mtgauntlet.runner.build_runner`, runs
builds): the manifest's name, the directory lock, the digest of the input items in the signature, per-item
randomness and the API usage written to the manifest."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mtgauntlet.core import usage_journal, usage_report
from mtgauntlet.errors import BuildStateError

MANIFEST = "build.json"


@contextlib.contextmanager
def build_lock(out_dir: Path):
    """Hold ``OUT/.lock`` for the duration of a build; refuse when another process holds it."""
    import fcntl

    out_dir.mkdir(parents=True, exist_ok=True)
    fh = open(out_dir / ".lock", "a+")
    try:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            raise BuildStateError(
                f"{out_dir} is being built by {holder}; wait for it to finish or use another --out"
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        yield
    finally:
        fh.close()


def discard_build(out_dir: Path) -> None:
    """Remove a build's shards and manifest (what ``--overwrite`` discards); call with its lock held."""
    for sub in ("data", "work"):
        for p in (out_dir / sub).glob("part-*.parquet"):
            p.unlink()
    (out_dir / MANIFEST).unlink(missing_ok=True)
    (out_dir / usage_journal.JOURNAL).unlink(missing_ok=True)


def record_usage(manifest: dict[str, Any], before: dict, journal: Path | None = None, **fields: Any) -> dict[str, Any]:
    """``manifest`` with its API usage, its ``stopped`` note removed, and ``fields`` set. The usage: the sum of
    ``journal`` (a build's `usage_journal.journal`: all its runs) when given, else the usage since ``before`` (a ledger
    snapshot) added to the usage of earlier runs."""
    if journal is not None:
        spent = usage_report.report(usage_journal.journal_totals(journal))
    else:
        spent = usage_report.report(usage_report.since(before), manifest.get("usage"))
    manifest.pop("stopped", None)
    if spent:
        manifest["usage"] = spent
    manifest.update(fields)
    return manifest


def failed_fields(exc: BaseException) -> dict[str, str]:
    """build.json's record of a run that failed: ``status: failed`` and the error (credentials masked); a resume
    sets the status back (:func:`resumed`)."""
    from mtgauntlet.core.spec_public import redact_secrets

    return {"status": "failed", "error": redact_secrets(f"{type(exc).__name__}: {exc}")[:2000]}


def resumed(manifest: dict[str, Any]) -> dict[str, Any]:
    """A manifest taken up again: a failed run's status and error give way to ``in_progress``."""
    if manifest.get("status") == "failed":
        manifest["status"] = "in_progress"
        manifest.pop("error", None)
    return manifest


def input_digest(items: Sequence[Any]) -> str:
    """sha256 of the input items' content (order included, file line numbers excluded)."""
    h = hashlib.sha256()
    for it in items:
        data = {k: v for k, v in it.data.items() if k != "_line"}
        h.update(json.dumps(data, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
        h.update(b"\n")
    return h.hexdigest()


def item_rng(seed: int, index: int) -> random.Random:
    """Deterministic per-item RNG, independent of how the build was split across runs."""
    digest = hashlib.sha256(f"{seed}:{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
