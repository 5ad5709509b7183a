"""A bandit search's pull log (``OUT/pulls/part-*.parquet``, record kind ``bandit_pull``), its state on disk: its
``run_id``, reading it back, replaying it into the bandit state, and writing one step's pulls as a part beside the
LLM sampler's counters."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mtgauntlet.atomic import atomic_path, write_json_atomic
from mtgauntlet.builders.bandit.algorithms import BanditState
from mtgauntlet.builders.bandit.topics import Topic
from mtgauntlet.schema import to_table


def search_run_id(signature: str) -> str:
    """The pull log's ``run_id``: sha256 of the whole build signature (16 hex digits); equal ids = same search."""
    return hashlib.sha256(signature.encode("utf-8")).hexdigest()[:16]


def load_log(out: Path) -> list[dict[str, Any]]:
    files = sorted((out / "pulls").glob("part-*.parquet"))
    if not files:
        return []
    rows = pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()
    return sorted(rows, key=lambda r: r["step"])


def replay(topics: Sequence[Topic], log: list[dict[str, Any]]) -> tuple[BanditState, set[str], int]:
    """The bandit state over ``topics``, used text ids and spent budget (every sampled pull, failed ones included)
    from the log."""
    index = {t.name: i for i, t in enumerate(topics)}
    state = BanditState(len(topics))
    used, spent = set(), 0
    for r in log:
        if r["phase"] == "exhausted":
            state.exhausted.add(index[r["topic"]])
            continue
        spent += 1
        used.add(r["source_id"])
        if r["difficulty"] is not None:
            state.update(index[r["topic"]], r["difficulty"])
    return state, used, spent


def flush(
    out: Path, rows: list[dict[str, Any]], sampler_counts: Counter | None = None, sampler_state: dict | None = None
) -> None:
    """The pulls of one step as a log part; what the sampler counted meanwhile, and its state after the step (the
    LLM sampler's snippets not drawn yet), beside it, written first, so a resumed search sums the counts of exactly
    the parts it finds and takes the state of the last one."""
    if not rows:
        return
    part = out / "pulls" / f"part-{rows[0]['step']:08d}.parquet"
    if sampler_counts:
        write_json_atomic(part.with_suffix(".sampler.json"), dict(sampler_counts))
    if sampler_state is not None:
        write_json_atomic(part.with_suffix(".state.json"), sampler_state)
    with atomic_path(part) as tmp:
        pq.write_table(to_table("bandit_pull", rows), tmp)


def logged_sampler_counts(out: Path) -> Counter:
    total: Counter = Counter()
    for part in sorted((out / "pulls").glob("part-*.parquet")):
        counts = part.with_suffix(".sampler.json")
        if counts.exists():
            total.update(json.loads(counts.read_text(encoding="utf-8")))
    return total


def logged_sampler_state(out: Path) -> dict[str, Any] | None:
    """The sampler's state after the last step of the log (None: no part, or a sampler without state)."""
    parts = sorted((out / "pulls").glob("part-*.parquet"))
    state = parts[-1].with_suffix(".state.json") if parts else None
    return json.loads(state.read_text(encoding="utf-8")) if state is not None and state.exists() else None
