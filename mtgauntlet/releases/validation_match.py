"""Attach validation reports to a release only when they describe the released builds.

``gauntlet validate`` stores, per record kind, the signatures of the builds it validated and the
record count. A report is accepted when, for every kind it covers, the release holds that kind with
exactly those build signatures and that many records (before duplicates are dropped); a kind no
report covers is "not validated", and the card says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError

SUMMARY_METRICS = (
    "n",
    "chrf_diversity",
    "embedding_diversity",
    "unique_words",
    "text.words_mean",
    "text.outlier_rate",
    "lm_naturalness_mean",
    "smaug.nli.bad_contradicts_ref_rate",
)


def _kind_summary(report: dict[str, Any], kind: str, entry: dict[str, Any], source: str) -> dict[str, Any]:
    rules = [r for r in report.get("rules", []) if r.get("kind") == kind]
    failed = [r["metric"] for r in rules if r.get("status") == "fail"]
    gx = entry.get("great_expectations")
    if gx and not gx.get("success"):
        failed.append("great_expectations")
    metrics = entry.get("metrics") or {}
    return {
        "report": "/".join(Path(source).parts[-2:]),
        "passed": not failed and not entry.get("problems"),
        "failed_rules": failed,
        "problems": list(entry.get("problems") or []),
        "not_checked": [r["metric"] for r in rules if r.get("status") == "not_checked"]
        + sorted((entry.get("info") or {}).keys()),
        "rules": [{k: r.get(k) for k in ("metric", "threshold", "value", "status")} for r in rules],
        "metrics": {k: metrics[k] for k in SUMMARY_METRICS if k in metrics},
        "signatures": list(entry.get("signatures") or []),
    }


def match_reports(
    reports: Sequence[tuple[str, dict[str, Any]]], rows: dict[str, dict[str, int]]
) -> dict[str, dict[str, Any]]:
    """Per-kind validation from (source, report) pairs; ``rows``: kind -> build signature -> records.

    Each report's entry for a kind must name released builds of that kind (no build validated twice) and
    their exact record count. Per kind: ``reports`` (one summary per report), ``not_validated`` (the
    signatures of released builds no report covers), ``passed`` (every report passed and none is missing).
    """
    out: dict[str, dict[str, Any]] = {}
    for source, report in reports:
        kinds = report.get("kinds") if isinstance(report, dict) else None
        if not isinstance(kinds, dict) or not kinds:
            raise GauntletError(
                f"{source}: not a validation report (no 'kinds'); write one with `gauntlet validate PATH --report DIR`"
            )
        for kind, entry in kinds.items():
            if kind not in rows:
                raise GauntletError(
                    f"{source}: validates {kind} records, which this release does not hold: the "
                    "report describes other data"
                )
            got = sorted(entry.get("signatures") or []) if isinstance(entry, dict) else []
            if not got:
                raise GauntletError(
                    f"{source}: the report names no build signature for {kind} (written by an "
                    "older mtgauntlet?); run `gauntlet validate` again on the builds"
                )
            other = [s for s in got if s not in rows[kind]]
            if other:
                raise GauntletError(
                    f"{source}: the {kind} report validated other builds:\n  report:  "
                    + "\n           ".join(other)
                    + "\n  release: "
                    + "\n           ".join(sorted(rows[kind]))
                )
            n, want = (entry.get("metrics") or {}).get("n"), sum(rows[kind][s] for s in got)
            if n != want:
                raise GauntletError(f"{source}: the report validated {n} {kind} records, those builds hold {want}")
            done = out.setdefault(kind, {"reports": []})
            if any(s in r["signatures"] for r in done["reports"] for s in got):
                raise GauntletError(
                    f"{source}: {kind} builds already validated by another report; give each build's report once"
                )
            done["reports"].append(_kind_summary(report, kind, entry, source))
    for kind, v in out.items():
        covered = {s for r in v["reports"] for s in r["signatures"]}
        v["not_validated"] = sorted(set(rows[kind]) - covered)
        v["passed"] = all(r["passed"] for r in v["reports"]) and not v["not_validated"]
    return out
