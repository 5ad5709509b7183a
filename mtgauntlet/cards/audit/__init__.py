"""``gauntlet audit``: one self-contained HTML page per build or release, optionally diffed against another.

Sections: overview, validation (``gauntlet validate``'s own numbers, with the records behind them), data
quality (MT-breaker Table 2 measures), examples with their edits as diffs, method plots, and a version diff.
Styles, inline-SVG plots and a small filter script are embedded; the page loads nothing from the network.

Modules: ``source`` (what a path holds), ``collect`` / ``quality`` / ``flags`` / ``methods`` / ``diff``
(numbers), ``page`` / ``sections`` / ``examples`` / ``methods_section`` / ``diff_section`` (HTML),
``svg`` (charts), ``textdiff`` (edits), ``markup`` / ``assets`` (HTML helpers, CSS and script).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mtgauntlet.validators.rules import Rules

if TYPE_CHECKING:
    from mtgauntlet.cards.audit.collect import AuditOptions


def audit_data(
    path: str | Path,
    against: str | Path | None,
    opts: AuditOptions,
    progress: bool | None,
    metric_results: Sequence[str | Path],
):
    """(source, data, diff data or None, old source or None): every number of the page, before rendering.
    ``opts``: the rules, examples and seed of :func:`write_audit`; ``metric_results``: ``gauntlet evaluate metric --json`` outputs, shown as metric sensitivity per phenomenon."""
    from mtgauntlet.cards.audit.collect import collect
    from mtgauntlet.cards.audit.diff import metric_diff, record_diff
    from mtgauntlet.cards.audit.sensitivity import load_metric_results
    from mtgauntlet.cards.audit.source import open_source
    from mtgauntlet.core.progress import Progress

    src = open_source(path)
    sensitivity = load_metric_results(metric_results)
    old = open_source(against) if against is not None else None
    steps = len(src.tables) + 2 + ((len(old.tables) + 3) if old is not None else 0)
    bar = Progress(sys.stderr.isatty() if progress is None else progress, steps, 0, "audit", every=10.0)
    try:
        data = collect(src, opts, step=lambda _: bar.advance())
        data["sensitivity"] = sensitivity
        diff_data = None
        if old is not None:
            old_data = collect(old, opts, step=lambda _: bar.advance())
            diff_data = {
                "records": record_diff(_with_pulls(src), _with_pulls(old)),
                "metrics": metric_diff(data, old_data),
            }
            bar.advance()
    finally:
        bar.close()
    return src, data, diff_data, old


def _with_pulls(src):
    """The records to diff: the bandit pull log too where a build keeps it beside its records (pulls/)."""
    if src.pulls is None or "bandit_pull" in src.tables:
        return src.tables
    return {**src.tables, "bandit_pull": src.pulls}


def write_audit(
    path: str | Path,
    out: str | Path,
    against: str | Path | None = None,
    *,
    rules: Rules | None = None,
    examples: int = 5,
    seed: int = 13,
    progress: bool | None = None,
    location: str | None = None,
    metric_results: Sequence[str | Path] = (),
) -> Path:
    """Audit a build or release directory (``path``) into one HTML file ``out`` (written atomically).

    ``against``: an older build/release to diff with. ``metric_results``: ``evaluate metric --json`` outputs. ``rules``: validation rules (default: ``gauntlet
    validate``'s). ``location``: the path the page names (e.g. a release's final directory while it is still
    being written in a temporary one). Returns ``out``. ``gauntlet release`` can call this to put
    ``report.html`` into a release (after its manifest.json and README.md are written, which the page reads).
    """
    from mtgauntlet.atomic import write_text_atomic
    from mtgauntlet.cards.audit.collect import AuditOptions
    from mtgauntlet.cards.audit.page import render

    opts = AuditOptions(rules=rules, examples=examples, seed=seed)
    src, data, diff_data, old = audit_data(path, against, opts, progress, metric_results)
    src.location = location
    old_label: Any = None
    if old is not None:
        old_label = f"{old.name} {old.version}" if old.version else f"{old.name} ({old.where()})"
    path = write_text_atomic(out, render(src, data, diff_data, old_label))
    umask = os.umask(0)
    os.umask(umask)
    path.chmod(0o666 & ~umask)  # a page to share: readable like any file the user writes (mkstemp made it 0600)
    return path
