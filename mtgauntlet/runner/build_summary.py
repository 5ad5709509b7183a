"""What a build run made (`BuildSummary`) and the error of a build that made nothing (`EmptyBuild`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mtgauntlet.errors import GauntletError


@dataclass
class BuildSummary:
    out_dir: Path
    signature: str
    produced: int
    items: int
    rejected: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    resumed_shards: int = 0
    seconds: float = 0.0
    failures: dict[str, int] = field(default_factory=dict)  # summed per-record failure counters (MT-breaker)
    usage: dict[str, dict] = field(default_factory=dict)  # API usage per spec (build.json usage)


class EmptyBuild(GauntletError):
    """A build that produced no record: an error that says why (the reasons items were rejected or skipped)."""

    def __init__(self, summary: BuildSummary, hint: str = ""):
        self.summary = summary
        why = {**summary.rejected, **summary.skipped}
        reasons = ", ".join(f"{k}={v}" for k, v in sorted(why.items(), key=lambda kv: -kv[1])) or "no reason recorded"
        super().__init__(
            f"{summary.out_dir}: the build produced no record from {summary.items} item(s) ({reasons})"
            + (f"; {hint}" if hint else "")
        )
