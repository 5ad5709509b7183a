"""Attach validation reports to a release only when they describe the released builds.

``gauntlet validate`` stores, per record kind, the signatures of the builds it validated and the
record count. A report is accepted when, for every kind it covers, the release holds that kind with
exactly those build signatures and that many records (before duplicates are dropped); a kind no
report covers is "not validated", and the card says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from mtgauntlet.errors import GauntletError

SUMMARY_METRICS = ("n", "chrf_diversity", "embedding_diversity", "unique_words", "text.words_mean", "text.outlier_rate",
                   "lm_naturalness_mean", "smaug.nli.bad_contradicts_ref_rate")


def _kind_summary(report: dict[str, Any], kind: str, entry: dict[str, Any], source: str) -> dict[str, Any]:
    rules = [r for r in report.get("rules", []) if r.get("kind") == kind]
    failed = [r["metric"] for r in rules if r.get("status") == "fail"]
    gx = entry.get("great_expectations")
    if gx and not gx.get("success"):
        failed.append("great_expectations")
    metrics = entry.get("metrics") or {}
    return {
        "report": "/".join(Path(source).parts[-2:]), "passed": not failed and not entry.get("problems"), "failed_rules": failed,
        "problems": list(entry.get("problems") or []),
        "not_checked": [r["metric"] for r in rules if r.get("status") == "not_checked"]
                       + sorted((entry.get("info") or {}).keys()),
        "rules": [{k: r.get(k) for k in ("metric", "threshold", "value", "status")} for r in rules],
        "metrics": {k: metrics[k] for k in SUMMARY_METRICS if k in metrics},
        "signatures": list(entry.get("signatures") or []),
    }


def match_reports(reports: Sequence[tuple[str, dict[str, Any]]], signatures: dict[str, list[str]],
                  rows: dict[str, int]) -> dict[str, dict[str, Any]]:
    """Per-kind validation summaries from (source, report) pairs; GauntletError when one does not match."""
    out: dict[str, dict[str, Any]] = {}
    for source, report in reports:
        kinds = report.get("kinds") if isinstance(report, dict) else None
        if not isinstance(kinds, dict) or not kinds:
            raise GauntletError(f"{source}: not a validation report (no 'kinds'); write one with "
                                "`gauntlet validate PATH --report DIR`")
        for kind, entry in kinds.items():
            if kind not in signatures:
                raise GauntletError(f"{source}: validates {kind} records, which this release does not hold: the "
                                    "report describes other data")
            got = sorted(entry.get("signatures") or [])
            if not got:
                raise GauntletError(f"{source}: the report names no build signature for {kind} (written by an "
                                    "older mtgauntlet?); run `gauntlet validate` again on the builds")
            want = sorted(signatures[kind])
            if got != want:
                raise GauntletError(f"{source}: the {kind} report validated other builds:\n  report:  "
                                    + "\n           ".join(got) + "\n  release: " + "\n           ".join(want))
            n = (entry.get("metrics") or {}).get("n")
            if n != rows[kind]:
                raise GauntletError(f"{source}: the report validated {n} {kind} records, the builds hold {rows[kind]}")
            if kind in out:
                raise GauntletError(f"{source}: {kind} is also validated by another report ({out[kind]['report']}); "
                                    "give one report per kind")
            out[kind] = _kind_summary(report, kind, entry, source)
    return out
