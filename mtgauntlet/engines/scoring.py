"""What both engines share: the scoring task, the scorer that runs it on one shard, and the work directory.

A corpus of N rows is cut into fixed ranges of ``shard_size`` rows. Each finished range is a Parquet
file ``WORK/scores/part-<start>-<end>.parquet`` (one float64 column ``score``), written atomically, so
an interrupted run resumes by skipping the ranges whose file exists. ``WORK/work.json`` names the task
and a digest of the input; a work directory left by another task or input is discarded. Both engines
score a range with the same :class:`ShardScorer` on the same rows, so their outputs are equal.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mtgauntlet.atomic import atomic_path, write_json_atomic
from mtgauntlet.errors import GauntletError
from mtgauntlet.models.runtime import signature_spec

log = logging.getLogger(__name__)
ROLES = {"difficulty": ("src",), "qe": ("src", "tgt", "lp")}
WORK_FORMAT = 2  # 2: score shards carry QE ensemble components
ShardCallback = Callable[[int, int], None]  # called with (start, end) of each finished range


@dataclass(frozen=True)
class ScoreTask:
    """Score ``columns`` of every row with the ``role`` backend ``spec`` (difficulty: src; qe: src, tgt, lp)."""

    role: str
    spec: str
    src_lang: str | None = None
    tgt_lang: str | None = None
    shard_size: int = 10_000

    def __post_init__(self):
        if self.role not in ROLES:
            raise GauntletError(f"cannot score with role {self.role!r}; roles: {', '.join(ROLES)}")
        if self.shard_size < 1:
            raise GauntletError("--shard-size must be >= 1")

    @property
    def columns(self) -> tuple[str, ...]:
        return ROLES[self.role]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def placement_options(role: str, spec: str) -> dict[str, str]:
    """The ``#device/dtype/batch`` options written in a spec (without loading the backend)."""
    from mtgauntlet.core.cache import parse_options
    from mtgauntlet.models.registry import parse_spec
    from mtgauntlet.models.runtime import RUNTIME_OPTIONS

    opts = parse_options(parse_spec(spec).arg)[1]
    return {k: v for k, v in opts.items() if k in RUNTIME_OPTIONS}


def is_neural(role: str, spec: str) -> bool:
    """Whether the backend runs a torch model (and so has a device, a dtype and a batch size)."""
    from mtgauntlet.models.registry import resolve_class

    return bool(getattr(resolve_class(role, spec)[0], "neural", False))


CHUNK = 1024  # rows asked of a backend at once inside a shard (progress moves per chunk)


class ShardScorer:
    """Loads the backend once (per process or Ray actor) and scores the rows of one range.

    :meth:`score` returns a (rows, 1 + k) float array: the score, then, for a QE ensemble of k > 1 specs
    (``--qe A,B``), each component's 0-100 score. A failed score is NaN, never a number."""

    def __init__(self, task: ScoreTask):
        from mtgauntlet.models import registry
        from mtgauntlet.models.qe_ensemble import load_qe

        self.task = task
        # a QEEnsemble for role "qe", else the role's backend (a DifficultyEstimator): _score asks by role
        self.backend: Any = load_qe(task.spec) if task.role == "qe" else registry.load(task.role, task.spec)

    @property
    def width(self) -> int:
        specs = getattr(self.backend, "specs", [])
        return 1 + (len(specs) if len(specs) > 1 else 0)

    def score(self, columns: dict[str, Sequence]) -> np.ndarray:
        """Scores of a shard's rows, asked in chunks of ``CHUNK`` rows so that the progress display moves inside a
        shard (every backend scores a row as it would alone, so chunking changes no score)."""
        from mtgauntlet.core.progress import step

        n = len(columns["src"])
        out = np.full((n, self.width), np.nan)
        for start in range(0, n, CHUNK):
            end = min(start + CHUNK, n)
            out[start:end] = self._score({k: list(v[start:end]) for k, v in columns.items()})
            step(end, n)
        return out

    def _score(self, columns: dict[str, Sequence]) -> np.ndarray:
        t = self.task
        n = len(columns["src"])
        out = np.full((n, self.width), np.nan)
        if t.role == "difficulty":
            values = self.backend.difficulty(list(columns["src"]), src_lang=t.src_lang, tgt_lang=t.tgt_lang)
            out[:, 0] = [np.nan if v is None else v for v in values]
            return out
        from mtgauntlet.corpora.langs import split_lp

        lps = list(columns["lp"])
        for lp in dict.fromkeys(lps):  # each language pair in order of first appearance
            idx = [i for i, x in enumerate(lps) if x == lp]
            s, g = split_lp(str(lp))
            comps = self.backend.score_components(
                [columns["src"][i] for i in idx], [columns["tgt"][i] or "" for i in idx], s, g
            )
            for i, c in zip(idx, comps):
                combined = self.backend.combine(c)
                out[i, 0] = np.nan if combined is None else combined
                if self.width > 1:
                    out[i, 1:] = [np.nan if v is None else v for v in c]
        return out


def input_digest(task: ScoreTask, columns: dict[str, Sequence]) -> str:
    h = hashlib.sha256()
    for name in task.columns:
        for value in columns[name]:
            h.update(b"\x00" if value is None else str(value).encode("utf-8") + b"\x01")
        h.update(b"\x02")
    return h.hexdigest()


class WorkDir:
    """Score shards of one task over one input; see the module docstring."""

    def __init__(self, root: str | Path, task: ScoreTask, columns: dict[str, Sequence]):
        self.root, self.task = Path(root), task
        missing = [c for c in task.columns if c not in columns]
        if missing:
            raise GauntletError(f"scoring with {task.role} needs the column(s) {', '.join(missing)}")
        self.n = len(columns[task.columns[0]])
        self.ranges = [(s, min(s + task.shard_size, self.n)) for s in range(0, self.n, task.shard_size)]
        # the spec as a signature names it: a changed #price or rate limit keeps the finished shards
        self.identity = {
            "format": WORK_FORMAT,
            "task": {**task.to_dict(), "spec": signature_spec(task.spec)},
            "rows": self.n,
            "input_sha256": input_digest(task, columns),
        }
        self._open()

    def _open(self) -> None:
        meta = self.root / "work.json"
        if meta.exists():
            try:
                found = json.loads(meta.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                found = None
            if found == self.identity:
                return
            log.warning("%s holds scores of another task or input; discarding them", self.root)
            for sub in ("scores", "input"):
                shutil.rmtree(self.root / sub, ignore_errors=True)
        write_json_atomic(meta, self.identity)

    @staticmethod
    def shard_name(start: int, end: int) -> str:
        return f"part-{start:010d}-{end:010d}.parquet"

    def score_path(self, start: int, end: int) -> Path:
        return self.root / "scores" / self.shard_name(start, end)

    def input_path(self, start: int, end: int) -> Path:
        return self.root / "input" / self.shard_name(start, end)

    def todo(self) -> list[tuple[int, int]]:
        return [r for r in self.ranges if not self.score_path(*r).exists()]

    def write_scores(self, start: int, end: int, scores: np.ndarray) -> None:
        write_score_shard(self.score_path(start, end), scores, end - start)

    def read_scores(self) -> np.ndarray:
        """(rows, 1 + k) scores in input order (see :class:`ShardScorer`)."""
        import pyarrow.parquet as pq

        parts = []
        for s, e in self.ranges:
            t = pq.read_table(self.score_path(s, e))
            parts.append(np.column_stack([t.column(c).to_numpy(zero_copy_only=False) for c in t.column_names]))
        return np.concatenate(parts) if parts else np.zeros((0, 1))

    def remove_inputs(self) -> None:
        shutil.rmtree(self.root / "input", ignore_errors=True)


def write_score_shard(path: Path, scores: np.ndarray, rows: int) -> None:
    """Column ``score``, then ``component_1`` .. ``component_k`` for a QE ensemble."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1:
        scores = scores[:, None]
    if len(scores) != rows:
        raise RuntimeError(f"{path.name}: {len(scores)} scores for {rows} rows")
    names = ["score"] + [f"component_{i}" for i in range(1, scores.shape[1])]
    with atomic_path(path) as tmp:
        pq.write_table(pa.table({n: scores[:, i] for i, n in enumerate(names)}), tmp)
