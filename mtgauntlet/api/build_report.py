"""The lines ``gauntlet build`` prints of a finished build (the runner's summary) or a bandit search."""

from __future__ import annotations

from pathlib import Path


def describe_run(summary) -> str:
    """A runner's summary as ``gauntlet build`` prints it: records, rejected and skipped items, resumed shards,
    signature, API usage, failure counts."""
    from mtgauntlet.core.usage_report import summary_line as usage_line

    parts = [f"{summary.produced} records from {summary.items} items -> {Path(summary.out_dir) / 'data'}"]
    if summary.rejected:
        parts.append("rejected: " + ", ".join(f"{k}={v}" for k, v in sorted(summary.rejected.items())))
    if summary.skipped:
        parts.append("skipped: " + ", ".join(f"{k}={v}" for k, v in sorted(summary.skipped.items())))
    if summary.resumed_shards:
        parts.append(f"resumed {summary.resumed_shards} finished shard(s)")
    parts.append(f"signature: {summary.signature}")
    if usage_line(getattr(summary, "usage", {})):
        parts.append(usage_line(summary.usage))
    if summary.failures:
        parts.append("failures: " + ", ".join(f"{k}={v}" for k, v in summary.failures.items()))
    return "\n".join(parts)


def describe_search(build) -> str:
    """A bandit search (a `Build`) as ``gauntlet build bandit`` prints it: pulls, failures, the top topics, the
    signature."""
    from mtgauntlet.corpora.options import skipped_counts_note

    m, c = build.summary, build.summary["counts"]
    lines = [
        f"{c['pulls']} pulls over {m['config']['n_topics']} topics ({c['scored_pulls']} scored; failed: "
        f"mt={c['mt_failures']}, qe={c['qe_failures']}); top-{m['config']['k']}:"
    ]
    lines += [f"  {t['mean_difficulty']:6.2f}  ({t['pulls']} pulls)  {t['topic']}" for t in m["top_topics"]]
    lines.append(f"signature: {m['signature']}" + skipped_counts_note(build.skipped))
    return "\n".join(lines)
