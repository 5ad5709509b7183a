"""The bandit topic search on real texts: each pull samples a text for a topic, translates it with the
target model(s), scores it with QE (``--qe A,B``: averaged per text on 0-100); difficulty = 100 - mean QE
(artificial crowd); cost 1 per pull. An ``llm-as-qe:`` component asks with the bandit paper's QE prompt (its
Appendix E: "0 to 100", "max 10 sentences"), not MT-breaker's. A pull whose translation or score failed costs its
budget unit, no reward: logged (phase ``failed``), counted (``mt_failures``, ``qe_failures``), no topic updated.

The pull log (``OUT/pulls/*.parquet``, record kind ``bandit_pull``) is the state: an interrupted search
resumes by replaying it, and every decision uses an RNG seeded by (seed, pull index), so a resumed search
equals an uninterrupted one. At the end, ``OUT/data/`` holds ``topic_text`` records for the top-k topics."""

from __future__ import annotations

import json
import math
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mtgauntlet import __version__
from mtgauntlet.atomic import atomic_path, write_json_atomic
from mtgauntlet.builders.bandit.algorithms import ALGORITHMS, BanditState, choose
from mtgauntlet.builders.bandit.pull_log import (
    flush,
    load_log,
    logged_sampler_counts,
    logged_sampler_state,
    replay,
    search_run_id,
)
from mtgauntlet.builders.bandit.sampler import row_source_id
from mtgauntlet.builders.bandit.snippets import sampler_signature, url_note
from mtgauntlet.builders.bandit.topics import Topic, neighbours
from mtgauntlet.core import usage, usage_journal
from mtgauntlet.core.builds import failed_fields, item_rng, record_usage, resumed
from mtgauntlet.core.progress import Progress
from mtgauntlet.errors import BuildStateError, GauntletError
from mtgauntlet.models.runtime import signature_spec
from mtgauntlet.schema import record_id, to_table, utcnow
from mtgauntlet.signature import make_signature
from mtgauntlet.versions import package_versions

VERSION = "8"  # 2: failed pulls carry no difficulty; QE ensembles; UCB bonus on the 0-100 scale
# 3: the LLM sampler asks for a step's b texts at once (all seeds drawn first); corpus-sampled searches are unchanged
# 4: the pull log's run_id hashes the whole signature (it was the 12 characters before the seed: searches that
#    differed elsewhere collided, and a release of two of them dropped one log as duplicates)
# 5: the corpus sampler draws a topic's text by a keyed hash of (seed, topic, source id, text), not by position
# 6: llm-as-qe asks with the bandit paper's Appendix E QE prompt; the LLM sampler retries unparseable answers
# 7: the LLM sampler keeps only snippets of --min-words..--max-words (20-40, the paper's), retrying, then counting
# 8: the LLM sampler keeps every usable snippet of an answer (a topic's pool) with its URL; several target languages


class BanditSearch:
    name = "bandit"

    def __init__(
        self,
        topics: Sequence[Topic],
        sampler,
        *,
        mt: Sequence[str],
        qe,
        algorithm: str,
        budget: int,
        k: int = 10,
        cap: float = math.inf,
        epsilon: float = 0.7,
        batch: int = 1,
        seed: int = 13,
        src_lang: str = "en",
        tgt_lang: str | Sequence[str] = "es",
        source: str = "",
        input_sha256: str | None = None,
    ):
        if algorithm not in ALGORITHMS:
            raise GauntletError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
        if budget < 1 or batch < 1 or k < 1:
            raise GauntletError("--budget, --batch and --k must be >= 1")
        self.topics, self.sampler = list(topics), sampler
        from mtgauntlet.models.qe_ensemble import split_specs

        self.mt_specs, self.qe_specs = list(mt), split_specs(qe) or ["qe"]
        self.algorithm, self.budget, self.k, self.cap, self.epsilon, self.batch = (
            algorithm,
            budget,
            k,
            cap,
            epsilon,
            batch,
        )
        self.tgt_langs = [tgt_lang] if isinstance(tgt_lang, str) else list(tgt_lang)
        if not self.tgt_langs or len(set(self.tgt_langs)) != len(self.tgt_langs):
            raise GauntletError(f"--tgt-lang: {', '.join(self.tgt_langs) or 'none'}: name each language once")
        self.seed, self.src_lang, self.source = seed, src_lang, source
        # one target language: the records' tgt_lang; several: the records are for no single pair
        self.tgt_lang: str | None = self.tgt_langs[0] if len(self.tgt_langs) == 1 else None
        self.input_sha256 = input_sha256  # content of the corpus and topics: a resume never mixes inputs
        self.neigh = neighbours(self.topics) if algorithm == "contextual" else None
        self._scorer = None

    def signature(self) -> str:
        return make_signature(
            {
                "builder": "bandit",
                "src": self.src_lang,
                "tgt": "+".join(self.tgt_langs),
                "algorithm": self.algorithm,
                "budget": self.budget,
                "k": self.k,
                "cap": "inf" if self.cap == math.inf else int(self.cap),
                "epsilon": self.epsilon,
                "batch": self.batch,
                "topics": len(self.topics),
                "source": self.source,
                "mt": signature_spec(self.mt_specs),
                "qe": signature_spec(self.qe_specs),
                "seed": self.seed,
                **({"input": self.input_sha256[:12]} if self.input_sha256 else {}),
                **({"words": band} if (band := getattr(self._text_sampler, "word_band", None)) else {}),
                **sampler_signature(self._text_sampler),
            },
            version=f"{__version__}+bandit.{VERSION}",
        )

    @property
    def scorer(self):
        """The artificial crowd: every ``--mt`` model into every target language, QE-scored (:mod:`.crowd`)."""
        if self._scorer is None:
            from mtgauntlet.builders.bandit.crowd import CrowdScorer, with_bandit_qe_prompt
            from mtgauntlet.builders.breaker_scoring import Scorer

            self._scorer = CrowdScorer(
                [
                    with_bandit_qe_prompt(Scorer(self.mt_specs, self.qe_specs, self.src_lang, lang))
                    for lang in self.tgt_langs
                ]
            )
        return self._scorer

    def _flags(self) -> dict[str, Any]:
        """The sampler's departures from the paper (``config.flags``: the card states them)."""
        flags = getattr(self._text_sampler, "flags", None)
        return {"flags": dict(flags)} if flags else {}

    @property
    def _text_sampler(self):
        """The sampler itself (the API wraps the LLM sampler in an index-based adapter)."""
        return getattr(self.sampler, "sampler", self.sampler)

    def _runtime(self) -> dict[str, Any]:
        """``{"runtime": {role: {spec: info}}}`` for the manifest: where the models run (device, dtype, batch;
        an API's concurrency)."""
        from mtgauntlet.builders.runtime_info import roles_runtime

        info = roles_runtime({"sampler": getattr(self._text_sampler, "llm", None), **self.scorer.roles()})
        return {"runtime": info} if info else {}

    def run(self, out_dir: str | Path, progress: bool | None = None, overwrite: bool = False) -> dict[str, Any]:
        """Search until the budget is spent; ``progress``: a bar (True), plain lines on stderr (False), or a bar
        only on a terminal (None), as every build. One process at a time searches into a directory."""
        from mtgauntlet.core.builds import build_lock

        with build_lock(Path(out_dir)):
            return self._run(Path(out_dir), progress, overwrite)

    def _journal(self, out: Path, m: dict[str, Any]):
        """The paid-run scope of the search: its usage journal (``OUT/usage.jsonl``: every run, however it ended) and
        the graceful stop on signals (:mod:`mtgauntlet.core.paid_run`)."""
        from mtgauntlet.core.paid_run import paid_run

        return paid_run(out, carried=m.get("usage"))

    def _run(self, out: Path, progress: bool | None, overwrite: bool) -> dict[str, Any]:
        sig = self.signature()
        mpath = out / "build.json"
        if mpath.exists():
            m = json.loads(mpath.read_text())
            if m.get("signature") != sig:
                if not overwrite:
                    raise BuildStateError(
                        f"{mpath} holds a different search:\n  found:     {m.get('signature')}\n"
                        f"  requested: {sig}\nuse another --out or --overwrite"
                    )
                for p in [
                    *(out / "pulls").glob("*.parquet"),
                    *(out / "pulls").glob("*.sampler.json"),
                    *(out / "pulls").glob("*.state.json"),
                    *(out / "data").glob("*.parquet"),
                    out / usage_journal.JOURNAL,
                ]:
                    p.unlink(missing_ok=True)
                m = None
        else:
            m = None
        if m is not None:
            m = resumed(m)
        if m is None:
            m = {
                "builder": "bandit",
                "builder_version": VERSION,
                "kind": "topic_text",
                "signature": sig,
                "seed": self.seed,
                "input_sha256": self.input_sha256,
                "config": {
                    "algorithm": self.algorithm,
                    "budget": self.budget,
                    "k": self.k,
                    "cap": None if self.cap == math.inf else self.cap,
                    "epsilon": self.epsilon,
                    "batch": self.batch,
                    "n_topics": len(self.topics),
                    "source_datasets": [self.source],
                    "tgt_langs": self.tgt_langs,
                    **self._flags(),
                },
                "models": {
                    "mt": ",".join(signature_spec(self.mt_specs)),
                    "qe": ",".join(signature_spec(self.qe_specs)),
                },
                **self._runtime(),
                "versions": package_versions(),
                "created_at": utcnow().isoformat(),
                "status": "in_progress",
            }
            write_json_atomic(mpath, m)
        with self._journal(out, m):
            return self._search(out, m, mpath, sig, progress)

    def _search(self, out: Path, m: dict[str, Any], mpath: Path, sig: str, progress: bool | None) -> dict[str, Any]:
        before = usage.LEDGER.snapshot()
        log = load_log(out)
        state, used, spent = replay(self.topics, log)
        saved = logged_sampler_state(out)
        if saved is not None and hasattr(self._text_sampler, "restore"):
            self._text_sampler.restore(saved)  # the snippets its answers left undrawn
        run_id = search_run_id(sig)
        t0 = time.perf_counter()
        step = len(log)
        bar = Progress(
            sys.stderr.isatty() if progress is None else progress,
            total=self.budget,
            done=spent,
            label="build bandit (pulls)",
        )
        try:
            while spent < self.budget:
                rng = item_rng(self.seed, step)
                picks = choose(
                    self.algorithm,
                    state,
                    rng,
                    cap=self.cap,
                    epsilon=self.epsilon,
                    b=min(self.batch, self.budget - spent),
                    neighbours=self.neigh,
                )
                if not picks:
                    break  # every topic capped or exhausted
                before_sampling = self._sampler_counts()
                rows = self._pull(picks, state, used, rng, run_id, step)
                flush(out, rows, self._sampler_counts() - before_sampling, self._sampler_state())
                step += len(rows)
                for r in rows:
                    if r["phase"] != "exhausted":
                        spent += 1
                        bar.advance()
        except usage.BudgetSpent as exc:  # the pull log is the state: the same command resumes at this step
            write_json_atomic(mpath, record_usage(m, before, out / usage_journal.JOURNAL, stopped=str(exc)))
            raise
        except KeyboardInterrupt:  # a graceful stop: what was paid is in build.json
            write_json_atomic(mpath, record_usage(m, before, out / usage_journal.JOURNAL))
            raise
        except Exception as exc:  # a failed search: what it paid, and the error, are in build.json
            write_json_atomic(mpath, record_usage(m, before, out / usage_journal.JOURNAL, **failed_fields(exc)))
            raise
        finally:
            bar.close()
        top = state.top_k(self.k)
        records = self._records(out, top)
        table = to_table("topic_text", records, signature=sig)
        with atomic_path(out / "data" / "part-final.parquet") as tmp:
            pq.write_table(table, tmp)
        failures = {"mt_failures": 0, "qe_failures": 0}
        for r in load_log(out):
            if r["phase"] == "failed":
                failures[f"{r['failure']}_failures"] += 1
        failures.update(logged_sampler_counts(out))  # the LLM sampler's, over every run of this search
        m.update(**self._runtime())
        if getattr(self._text_sampler, "llm", None) is not None:  # the card's provenance: how many texts have a URL
            m["config"].setdefault("flags", {})["snippet_urls"] = url_note(records)
        record_usage(
            m,
            before,
            out / usage_journal.JOURNAL,
            status="complete",
            finished_at=utcnow().isoformat(),
            counts={
                "pulls": spent,
                "scored_pulls": state.pulls,
                **failures,
                "topics_explored": sum(1 for c in state.counts if c),
                "exhausted": len(state.exhausted),
                "produced": len(records),
            },
            top_topics=[
                {"topic": self.topics[t].name, "mean_difficulty": state.mean(t), "pulls": state.counts[t]} for t in top
            ],
            seconds=time.perf_counter() - t0,
        )
        write_json_atomic(mpath, m)
        return m

    def _pull(
        self, picks: list[int], state: BanditState, used: set[str], rng, run_id: str, step: int
    ) -> list[dict[str, Any]]:
        """Sample a text for each picked topic, translate and score them; update the state; the log rows."""
        rows: list[dict[str, Any]] = []
        samples: list[tuple[int, dict[str, Any]]] = []
        drawn = (
            self.sampler.sample_many(picks, used, rng)
            if hasattr(self.sampler, "sample_many")
            else [self.sampler.sample(t, used, rng) for t in picks]
        )
        for t, s in zip(picks, drawn):
            if s is None:
                state.exhausted.add(t)
                rows.append(self._row(run_id, step + len(rows), t, None, None, "exhausted"))
                continue
            used.add(s["source_id"])
            samples.append((t, s))
        if samples:
            for (t, s), scored in zip(samples, self.scorer([s["text"] for _, s in samples])):
                if scored["qe_mean"] is None:
                    phase = "failed"
                else:
                    phase = "explore" if state.counts[t] == 0 else "exploit"
                    state.update(t, 100.0 - scored["qe_mean"])
                rows.append(self._row(run_id, step + len(rows), t, s, scored, phase))
        return rows

    def _row(self, run_id, step, t, s, scored, phase) -> dict[str, Any]:
        scored = scored or {}
        qe_mean = scored.get("qe_mean")
        return {
            "run_id": run_id,
            "step": step,
            "topic": self.topics[t].name,
            "text": s["text"] if s else None,
            "source_id": s["source_id"] if s else None,
            "translations": scored.get("translations"),
            "qe": scored.get("qe"),
            "qe_components": scored.get("qe_components"),
            "difficulty": None if qe_mean is None else 100.0 - qe_mean,
            "phase": phase,
            "failure": scored.get("failure"),
            "provenance_url": s.get("url") if s else None,
        }

    def _sampler_state(self) -> dict[str, Any] | None:
        state = getattr(self._text_sampler, "state", None)
        return state() if callable(state) else None

    def _sampler_counts(self) -> Counter:
        """The LLM sampler's counters so far (``sampler_failures``, ``sampler_retries``); empty for a corpus."""
        return Counter(getattr(self._text_sampler, "failures", None) or {})

    def _records(self, out: Path, top: list[int]) -> list[dict[str, Any]]:
        names = {self.topics[t].name: t for t in top}
        urls = {}
        for r in getattr(self.sampler, "rows", []):
            urls[row_source_id(r, None)] = (r.get("url") or r.get("URL"), r.get("source_dataset"))
        records = []
        for r in load_log(out):
            if r["topic"] in names and r["difficulty"] is not None:
                url, ds = urls.get(r["source_id"], (None, None))
                url = r.get("provenance_url") or url
                rec = {
                    "topic": r["topic"],
                    "topic_path": self.topics[names[r["topic"]]].path,
                    "text": r["text"],
                    "provenance_url": url,
                    "difficulty": r["difficulty"],
                    "qe_components": r.get("qe_components"),
                    "src_lang": self.src_lang,
                    "tgt_lang": self.tgt_lang,
                    "builder": "bandit",
                    "builder_version": VERSION,
                    "created_at": utcnow(),
                    "source_dataset": ds or self.source,
                    "source_id": r["source_id"],
                }
                rec["id"] = record_id("topic_text", rec)
                records.append(rec)
        return records
