"""The build runner every builder uses: shards, progress, resume, atomic writes, manifest, signature.

Layout of a build directory::

    OUT/build.json               manifest (config, signature, versions, models, counts, status)
    OUT/data/part-S-E.parquet    records of items S..E-1 (the final output)
    OUT/work/part-S-E.parquet    per-item records of a finalizing builder (final output in data/)

Each shard covers a fixed range of item indices and is written atomically (temp + rename; :mod:`.build_shards`), so a
build killed at any point (even SIGKILL) resumes by skipping the ranges whose shard exists. Per-item
randomness is seeded from (seed, the item's content identity) where the builder names it (``item_key``), else from
(seed, item index), so a resumed build equals an uninterrupted one.

A resume never mixes inputs: the signature carries a content hash of the input items (``input:``), so a
changed or edited input file is refused (``--overwrite`` starts over). One process at a time builds into
a directory: ``OUT/.lock`` is held (flock) for the whole run and a second run is refused while it is.

API usage (paid backends) is journalled in ``OUT/usage.jsonl`` the moment it is recorded (each request before it
is sent, then one JSON line per answer, retry, failure or cached lookup; append-only, so a run that fails, is
killed or crashes is in it too: :mod:`mtgauntlet.core.paid_run`, which also drains the requests in flight on the
first SIGTERM/SIGINT) and
written to ``build.json`` ``usage`` per spec (requests, input/output tokens, retries, failures, cached answers,
invalid usage, ``cost_usd`` with a ``#price``) as the sum of the whole journal: every run of the build. Whatever
ends a run (success, a spent budget, Ctrl-C, an error), ``build.json`` gets the usage so far; a kill leaves it to
the next run, which sums the journal. A spent budget (``--max-cost`` / ``--max-requests``) stops the build between
requests: the shard in progress is not written, ``build.json`` keeps the usage so far and ``stopped``, and the same
command run again resumes it (the answers already received come from the output cache, each stored as it
arrived). Batch API ids are kept in ``OUT/batches/``.
"""

from __future__ import annotations

import json
import logging
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mtgauntlet import __version__
from mtgauntlet.atomic import write_json_atomic
from mtgauntlet.builders.base import Builder, Item, overrides
from mtgauntlet.builders.keyed import seed_list
from mtgauntlet.core import usage, usage_journal
from mtgauntlet.core.builds import (
    MANIFEST,
    build_lock,
    discard_build,
    failed_fields,
    input_digest,
    item_rng,
    record_usage,
    resumed,
)
from mtgauntlet.core.paid_run import paid_run
from mtgauntlet.core.progress import OnDemandProgress, Progress
from mtgauntlet.errors import BuildStateError, GauntletError
from mtgauntlet.models import openai_batch
from mtgauntlet.models.runtime import signature_spec
from mtgauntlet.runner.build_shards import DoneShards, existing_shards, failure_totals, shard_name, write_shard
from mtgauntlet.runner.build_summary import BuildSummary, EmptyBuild
from mtgauntlet.schema import get_kind, record_id, to_table, utcnow
from mtgauntlet.shards import Shard, map_here
from mtgauntlet.signature import make_signature
from mtgauntlet.versions import package_versions

log = logging.getLogger(__name__)


RUNNER_KEYS = ("builder", "input", "n", "seed")  # signature keys the runner sets; a builder may not reuse them


class BuildRunner:
    def __init__(
        self,
        builder: Builder,
        out_dir: str | Path,
        *,
        seed: int = 13,
        shard_size: int = 100,
        progress: bool | None = None,
        overwrite: bool = False,
        engine: Any = None,
    ):
        """``engine``: what runs the shards (``map_shards``, see :mod:`mtgauntlet.shards`); ``None``: this
        process. A ``stateful`` builder's items depend on the items before them: it runs here only."""
        if shard_size < 1:
            raise ValueError("shard_size must be >= 1")
        if engine is not None and not engine.runs_here and builder.stateful:
            raise GauntletError(
                f"--engine {engine.name}: the {builder.name} builder carries state from item to item "
                "and runs in this process only (see docs/scaling.md)"
            )
        self.engine = engine
        self.builder = builder
        self.out_dir = Path(out_dir)
        self.seed = seed
        self.shard_size = shard_size
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.overwrite = overwrite
        self.kind = get_kind(builder.kind)
        self.finalizing = builder.finalizing

    # -- signature and manifest -------------------------------------------------------------------
    def signature(self, n_items: int, digest: str | None = None) -> str:
        own = self.builder.signature_fields()
        clash = sorted(set(own) & set(RUNNER_KEYS))
        if clash:
            raise ValueError(f"builder {self.builder.name!r} reuses the runner's signature key(s) {clash}")
        own = {k: signature_spec(v) for k, v in own.items()}  # a spec's price, rate limits, ... change no record
        fields = {"builder": self.builder.name, **own, "n": n_items, "seed": self.seed}
        if digest is not None:
            fields["input"] = digest[:12]
        return make_signature(fields, version=f"{__version__}+{self.builder.name}.{self.builder.version}")

    def _runtime(self) -> dict[str, Any]:
        """``{"runtime": {role: {spec: info}}}`` where the builder reports where its models run (device, dtype,
        batch, truncation counts; an API's concurrency), else nothing."""
        info = self.builder.runtime_info()
        return {"runtime": info} if info else {}

    def _manifest_path(self) -> Path:
        return self.out_dir / MANIFEST

    def _shard_dir(self) -> Path:
        return self.out_dir / ("work" if self.finalizing else "data")

    def _load_or_start_manifest(self, signature: str, n_items: int, digest: str, items=()) -> dict[str, Any]:
        path = self._manifest_path()
        if path.exists():
            try:
                manifest = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                if not self.overwrite:
                    raise BuildStateError(
                        f"{path}: unreadable build manifest ({exc}); --overwrite starts over"
                    ) from None
                manifest = {}
            same = manifest.get("signature") == signature and manifest.get("shard_size") == self.shard_size
            if not same:
                if not self.overwrite:
                    raise BuildStateError(self._mismatch(path, manifest, signature, digest))
                self._discard()
            else:
                return resumed(manifest)
        manifest = {
            "builder": self.builder.name,
            "builder_version": self.builder.version,
            "kind": self.kind.name,
            "signature": signature,
            "seed": self.seed,
            "n_items": n_items,
            "shard_size": self.shard_size,
            "input_sha256": digest,
            **seed_list(self.builder, items),
            "config": self.builder.config(),
            "models": self.builder.model_specs(),
            **self._runtime(),
            "versions": package_versions(),
            "created_at": utcnow().isoformat(),
            "status": "in_progress",
        }
        write_json_atomic(path, manifest)
        return manifest

    def _mismatch(self, path: Path, manifest: dict[str, Any], signature: str, digest: str) -> str:
        old = manifest.get("input_sha256")
        if old and old != digest and manifest.get("builder") == self.builder.name:
            return (
                f"{self.out_dir} holds a build of different input data (input sha256 {old[:12]}, this input "
                f"{digest[:12]}): a resume never mixes inputs; use another --out, or --overwrite to start over"
            )
        return (
            f"{path} holds a different build: found {manifest.get('signature')} (shard_size "
            f"{manifest.get('shard_size')}), requested {signature} (shard_size {self.shard_size}); "
            "use another --out directory, or --overwrite to discard it"
        )

    def _discard(self) -> None:
        discard_build(self.out_dir)

    def _item_rng(self, item: Item) -> random.Random:
        """The item's RNG: keyed by what the item is (``builder.item_key``: source id, text), so that a record
        does not change when other rows are added, removed or edited; by its position for other builders."""
        key = self.builder.item_key(item)
        if key is not None:
            from mtgauntlet.builders.keyed import keyed_rng

            return keyed_rng(self.seed, *key)
        return item_rng(self.seed, item.index)

    # -- main loop --------------------------------------------------------------------------------
    def run(self, items: Sequence[Item], input_skipped: dict[str, int] | None = None) -> BuildSummary:
        """Build (or resume) over ``items``; ``input_skipped`` are the reader's skipped rows by reason,
        counted in the manifest with the builder's own skips."""
        with build_lock(self.out_dir), openai_batch.state_dir(self.out_dir / "batches"):
            return self._run(items, dict(input_skipped or {}))

    def _record_usage(self, manifest: dict[str, Any], before: dict, **fields: Any) -> dict[str, Any]:
        return record_usage(manifest, before, self.out_dir / usage_journal.JOURNAL, **fields)

    def _run(self, items: Sequence[Item], input_skipped: dict[str, int]) -> BuildSummary:
        t0 = time.perf_counter()
        before = usage.LEDGER.snapshot()
        n = len(items)
        digest = input_digest(items)
        signature = self.signature(n, digest)
        self.builder.load_backends()  # fail on a bad model spec before anything is written
        manifest = self._load_or_start_manifest(signature, n, digest, items)
        with paid_run(self.out_dir, carried=manifest.get("usage")):  # journal beside the build, drain on signals
            return self._run_journalled(items, input_skipped, manifest, signature, before, t0)

    def _run_journalled(
        self,
        items: Sequence[Item],
        input_skipped: dict[str, int],
        manifest: dict[str, Any],
        signature: str,
        before: dict,
        t0: float,
    ) -> BuildSummary:
        n = len(items)
        created_at = manifest["created_at"]
        import datetime as dt

        created = dt.datetime.fromisoformat(created_at)
        existing = existing_shards(self._shard_dir())
        done = DoneShards.read(existing)
        seen_ids, totals = done.ids, Counter(produced=done.produced)
        rejected, skipped = done.rejected, Counter(input_skipped)
        skipped.update(done.skipped)
        resumed = len(existing)
        ranges = [(s, min(s + self.shard_size, n)) for s in range(0, n, self.shard_size)]
        todo = [r for r in ranges if r not in existing]
        if resumed and todo:
            log.info("resuming %s: %d shard(s) done, %d to go", self.out_dir, resumed, len(todo))
        if resumed and todo and self.builder.stateful:  # sequential builders rebuild their state
            self.builder.restore(pa.concat_tables([pq.read_table(p) for p in existing.values()]).to_pylist())
        progress = None
        try:
            if todo and overrides(self.builder, "prepare") and (self.engine is None or self.engine.runs_here):
                self._prepare(items)
            progress = Progress(
                self.progress, total=n, done=n - sum(e - s for s, e in todo), label=f"build {self.builder.name}"
            )
            shards = (Shard(s, e, items[s:e], [self._item_rng(it) for it in items[s:e]]) for s, e in todo)
            mapped = (
                map_here(self.builder, shards, progress)
                if self.engine is None
                else self.engine.map_shards(
                    self.builder, items if overrides(self.builder, "prepare") else None, shards, progress
                )
            )
            for shard, results in mapped:  # in shard order, whichever engine made them
                s, e = shard.start, shard.end
                shard_records: list[dict] = []
                shard_counts: dict[str, Counter[str]] = {"rejected": Counter(), "skipped": Counter()}
                for item, result in zip(shard.items, results):
                    shard_counts["rejected"].update(result.rejected)
                    shard_counts["skipped"].update(result.skipped)
                    for rec in result.records:
                        rec = self._complete(rec, item, created)
                        if rec["id"] in seen_ids:
                            shard_counts["rejected"]["duplicate"] += 1
                            continue
                        seen_ids.add(rec["id"])
                        shard_records.append(rec)
                    progress.advance()
                write_shard(
                    self._shard_dir() / shard_name(s, e),
                    self.kind,
                    shard_records,
                    {k: dict(v) for k, v in shard_counts.items()},
                    signature,
                )
                totals["produced"] += len(shard_records)
                rejected.update(shard_counts["rejected"])
                skipped.update(shard_counts["skipped"])
        except KeyboardInterrupt:
            if progress is not None:
                progress.close()
            write_json_atomic(self._manifest_path(), self._record_usage(manifest, before))
            log.warning("interrupted: finished shards are kept; run the same command again to resume")
            raise
        except usage.BudgetSpent as exc:
            if progress is not None:
                progress.close()
            write_json_atomic(self._manifest_path(), self._record_usage(manifest, before, stopped=str(exc)))
            raise
        except Exception as exc:  # a failed run: what it paid is in build.json all the same, with the error
            if progress is not None:
                progress.close()
            write_json_atomic(self._manifest_path(), self._record_usage(manifest, before, **failed_fields(exc)))
            raise
        progress.close()
        produced = totals["produced"]
        if self.finalizing:
            produced = self._finalize(signature, created)
        counts: dict[str, Any] = {
            "items": n,
            "produced": produced,
            "rejected": dict(rejected),
            "skipped": dict(skipped),
        }
        failures = self._failure_totals()
        if failures is not None:
            counts["failures"] = failures
        self._record_usage(
            manifest,
            before,
            status="complete" if produced else "empty",
            finished_at=utcnow().isoformat(),
            produced=produced,
            counts=counts,
            **self._runtime(),
        )
        write_json_atomic(self._manifest_path(), manifest)
        summary = BuildSummary(
            self.out_dir,
            signature,
            produced,
            n,
            dict(rejected),
            dict(skipped),
            resumed,
            time.perf_counter() - t0,
            failures or {},
            manifest.get("usage", {}),
        )
        if not produced:
            raise EmptyBuild(summary, self.builder.empty_hint)
        return summary

    def _failure_totals(self) -> dict[str, int] | None:
        """Sums of the builder's per-record failure counters (``failure_columns``) over the final records."""
        return failure_totals(self.out_dir / "data", self.kind, tuple(self.builder.failure_columns))

    def _prepare(self, items: Sequence[Item]) -> None:
        """Corpus-level state (pools, indexes; deterministic, so safe on resume), with its own progress display
        (shown once the builder advances it: a prepare with nothing to do shows nothing)."""
        progress = OnDemandProgress(
            lambda: Progress(self.progress, total=len(items), done=0, label=f"prepare {self.builder.name}", every=10.0)
        )
        try:
            self.builder.prepare(items, progress=progress)
        finally:
            progress.close()

    def _finalize(self, signature: str, created) -> int:
        table = (
            pq.read_table(sorted(self._shard_dir().glob("part-*.parquet")))
            if any(self._shard_dir().glob("part-*.parquet"))
            else to_table(self.kind, [])
        )
        final = self.builder.finalize(table.to_pylist())
        out = self.out_dir / "data" / "part-final.parquet"
        write_shard(out, self.kind, final, {}, signature)
        return len(final)

    def _complete(self, rec: dict, item: Item, created) -> dict:
        rec = dict(rec)
        if "builder" in self.kind.column_names:
            rec.setdefault("builder", self.builder.name)
            rec.setdefault("builder_version", self.builder.version)
            rec.setdefault("created_at", created)
            for key in ("src_lang", "tgt_lang", "source_dataset", "source_id"):
                if rec.get(key) is None and item.data.get(key) is not None:
                    rec[key] = item.data[key]
        rec.setdefault("id", record_id(self.kind, rec, builder=self.builder.name))
        return rec
