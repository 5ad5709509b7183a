"""Run the validators on a record set (build dir, release dir or Parquet files) and write a report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from mtgauntlet.atomic import write_json_atomic, write_text_atomic
from mtgauntlet.records import load_records_by_kind, signatures_by_kind
from mtgauntlet.schema import get_kind
from mtgauntlet.validators import checks
from mtgauntlet.validators.rules import Rules

MAIN_TEXT = {
    "smaug_pair": "bad",
    "breaker_text": "text",
    "topic_text": "text",
    "selected_text": "text",
    "judgment": "src",
}


def load_tables(path: str | Path) -> dict[str, pa.Table]:
    return load_records_by_kind(path)


def kind_metrics(
    kind_name: str, table: pa.Table, rules: Rules, engine: Any = None
) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """The metrics, problems and notes of one kind's records; the per-record checks (NLI, grammar, LM naturalness)
    run on ``engine`` (``None``: this process; see :mod:`mtgauntlet.validators.record_engine`)."""
    from mtgauntlet.validators.record_checks import schema_checks, smaug_nli_rates, smaug_record_metrics
    from mtgauntlet.validators.record_engine import RecordChecks, record_results

    kind = get_kind(kind_name)
    opts = rules.options
    metrics, problems = schema_checks(table, kind)
    info: dict[str, Any] = {}
    metrics["n"] = table.num_rows
    text_col = MAIN_TEXT.get(kind_name)
    texts = [t or "" for t in table.column(text_col).to_pylist()] if text_col in table.column_names else []
    if texts:
        metrics.update(checks.chrf_diversity(texts, word_order=opts.chrf_word_order, max_texts=opts.max_texts))
        metrics["embedding_diversity"] = checks.embedding_diversity(texts, _embedder(opts), opts.max_texts)
        metrics["unique_words"] = checks.unique_words(texts)
        metrics.update(checks.length_stats(texts, "text", opts.iqr_k))
    rows = table.to_pylist()
    per_record = record_results(
        RecordChecks(
            kind_name=kind_name,
            text_col=text_col,
            grammar=rules.grammar_on(),
            nli=opts.nli if kind_name == "smaug_pair" else None,
            lm=bool(opts.lm and texts),
        ),
        rows,
        engine,
    )
    for col in ("topic", "domain", "phenomenon"):
        if col in table.column_names:
            metrics[f"unique_{col}s"] = checks.unique_values(table.column(col).to_pylist())
    if kind_name == "smaug_pair":
        src, ref = table.column("src").to_pylist(), table.column("ref").to_pylist()
        metrics.update(checks.length_ratio_stats(src, ref, "src_ref"))
        metrics.update(checks.length_ratio_stats(ref, table.column("good").to_pylist(), "ref_good"))
        metrics.update(checks.length_ratio_stats(ref, table.column("bad").to_pylist(), "ref_bad"))
        metrics.update(smaug_record_metrics(rows))
        if opts.nli:
            if rows:
                metrics.update(
                    smaug_nli_rates(rows, [r["nli"][0] for r in per_record], [r["nli"][1] for r in per_record])
                )
        else:
            info["nli"] = "not checked: no NLI backend configured (options.nli, e.g. hf:roberta-large-mnli)"
    if opts.lm and texts:
        nat = [r["lm"] for r in per_record]
        metrics["lm_naturalness_mean"] = sum(nat) / len(nat)
        metrics["lm_naturalness_below_30_rate"] = sum(v < 30 for v in nat) / len(nat)
    elif not opts.lm:
        info["lm_naturalness"] = "not computed (options.lm: true runs the embedded LLM)"
    if rules.grammar_on():
        from mtgauntlet.validators.grammar import flagged_records

        flagged, grammar_metrics = flagged_records(kind_name, rows, [r.get("grammar") for r in per_record])
        metrics.update(grammar_metrics)
        info["grammar_flagged"] = f"{len(flagged)} text(s) with grammar errors" if grammar_metrics else "no checker"
    if opts.judge and texts:
        from mtgauntlet.models import registry
        from mtgauntlet.validators.fluency import judged_measures, llm_judge

        measures = judged_measures(llm_judge(texts, registry.load("llm", opts.judge)))
        metrics["judge_failures"] = measures["failures"]
        for key in ("grammaticality", "naturalness", "word_rarity", "syntax_complexity"):
            if measures[key] is not None:
                metrics[f"judge_{key}_mean"] = measures[key]
        metrics["judge_unique_topics"] = measures["unique_topics"] or 0
    return metrics, problems, info


def _embedder(opts):
    from mtgauntlet.models import registry

    return registry.load("embedder", opts.embedder) if opts.embedder else None


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
            if th.metric not in metrics and status == "not_checked" and not _relevant(th.metric, kind_name):
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


def _relevant(metric: str, kind: str) -> bool:
    if metric.startswith("smaug."):
        return kind == "smaug_pair"
    if metric.startswith("grammar."):
        return kind in ("smaug_pair", "breaker_text", "topic_text")  # the kinds with a side that should be fluent
    return not metric.startswith(("lm_", "judge_"))


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
