"""Run the validators on a record set (build dir, release dir or Parquet files) and write a report."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from mtgauntlet.atomic import write_json_atomic, write_text_atomic
from mtgauntlet.records import load_records_by_kind, signatures_by_kind
from mtgauntlet.schema import get_kind
from mtgauntlet.validators.registry import MAIN_TEXT, RecordSet, reported, rules_for
from mtgauntlet.validators.rules import Rules

__all__ = ["MAIN_TEXT", "kind_metrics", "load_tables", "summary_text", "validate"]


def load_tables(path: str | Path) -> dict[str, pa.Table]:
    return load_records_by_kind(path)


def kind_metrics(
    kind_name: str, table: pa.Table, rules: Rules, engine: Any = None, only: Sequence[str] | None = None
) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """The metrics, problems and notes of one kind's records: every registered rule that measures the kind
    (``only``: these rules), in registry order. The per-record checks (NLI, grammar, LM naturalness) run first on
    ``engine`` (``None``: this process; see :mod:`mtgauntlet.validators.record_engine`)."""
    from mtgauntlet.validators.record_engine import RecordChecks, record_results

    measuring = rules_for(kind_name, only)
    records = RecordSet(kind_name, table, rules.options, tuple(t.metric for t in rules.thresholds))
    opts = rules.options
    asked = {r.record_check for r in measuring if r.record_check and r.switched_on(opts, records.thresholded)}
    records.per_record = record_results(
        RecordChecks(
            kind_name=kind_name,
            text_col=records.text_col,
            grammar="grammar" in asked,
            nli=opts.nli if "nli" in asked else None,
            lm="lm" in asked and bool(records.texts),
        ),
        records.rows,
        engine,
    )
    metrics: dict[str, Any] = {}
    for r in measuring:
        metrics.update(r.measure(records))
    return metrics, records.problems, records.info


def validate(
    path: str | Path, rules: Rules | None = None, report_dir: str | Path | None = None, engine: Any = None
) -> dict[str, Any]:
    """The report of the record set at ``path``; the per-record checks run on ``engine`` (``None``: this process),
    with the same report on every engine."""
    rules = rules or Rules.default()
    tables = load_tables(path)
    report: dict[str, Any] = {
        "path": str(path),
        "kinds": {},
        "rules": [],
        "passed": True,
        "failed_rules": [],
        "not_checked": [],
    }
    signatures = signatures_by_kind(path)  # a release accepts this report only for these builds
    gx_docs = None
    if rules.options.gx and report_dir is not None:
        from mtgauntlet.validators.gx import DataDocs

        gx_docs = DataDocs(Path(report_dir) / "gx-docs")  # one site: every kind's suite and results
    for kind_name, table in sorted(tables.items()):
        metrics, problems, info = kind_metrics(kind_name, table, rules, engine)
        entry: dict[str, Any] = {
            "metrics": metrics,
            "problems": problems,
            "info": info,
            "signatures": signatures.get(kind_name, []),
        }
        if gx_docs is not None:
            entry["great_expectations"] = gx_docs.run_suite(table.to_pandas(), get_kind(kind_name))
        report["kinds"][kind_name] = entry
        for th in rules.thresholds:
            status = th.evaluate(metrics.get(th.metric))
            if (
                th.metric not in metrics
                and status == "not_checked"
                and not reported(th.metric, kind_name, rules.options, [t.metric for t in rules.thresholds])
            ):
                continue
            report["rules"].append(
                {
                    "kind": kind_name,
                    "metric": th.metric,
                    "threshold": th.describe(),
                    "value": metrics.get(th.metric),
                    "status": status,
                }
            )
            if status == "fail":
                report["passed"] = False
                report["failed_rules"].append(f"{kind_name}:{th.metric}")
            elif status == "not_checked":
                report["not_checked"].append(f"{kind_name}:{th.metric}")
        if entry.get("great_expectations") and not entry["great_expectations"]["success"]:
            report["passed"] = False
            report["failed_rules"].append(f"{kind_name}:great_expectations")
    first = next(iter(report["kinds"].values()))["metrics"]
    report["summary"] = {
        k: first[k]
        for k in (
            "n",
            "chrf_diversity",
            "embedding_diversity",
            "unique_words",
            "lm_naturalness_mean",
            "smaug.nli.bad_contradicts_ref_rate",
        )
        if k in first
    }
    if report_dir is not None:
        write_json_atomic(Path(report_dir) / "report.json", report)
        write_text_atomic(Path(report_dir) / "report.txt", summary_text(report))
    return report


def summary_text(report: dict[str, Any]) -> str:
    lines = [f"validation of {report['path']}: {'PASSED' if report['passed'] else 'FAILED'}"]
    for kind, entry in report["kinds"].items():
        m = entry["metrics"]
        lines.append(f"  {kind}: {m.get('n')} records")
        for p in entry["problems"]:
            lines.append(f"    problem: {p}")
        for k, why in entry["info"].items():
            lines.append(f"    {k}: {why}")
    for r in report["rules"]:
        v = r["value"]
        vs = f"{v:.4g}" if isinstance(v, float) else str(v)
        lines.append(f"  [{r['status'].upper():^11}] {r['kind']}:{r['metric']} = {vs} (want {r['threshold']})")
    return "\n".join(lines) + "\n"
