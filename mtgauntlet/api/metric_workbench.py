"""`evaluate_metric` (``gauntlet evaluate metric``): one set (``--set``: tau and d, nothing stored), or the whole
catalog (``--out RESULTS``): every pair set and every human-judgment set scored by every metric, the scores stored
and sealed in RESULTS with the leaderboard's statistics; and `leaderboard` (``gauntlet leaderboard``), the HTML page
of a results folder."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from mtgauntlet.api.catalog_options import LeaderboardOptions
from mtgauntlet.api.checks import at_least, listed, one_of
from mtgauntlet.api.session import public
from mtgauntlet.errors import UsageError
from mtgauntlet.options import takes

__all__ = ["evaluate_catalog", "run_catalog", "leaderboard"]

ENGINES = ("local", "ray")


def reference_based(spec: str) -> bool:
    """Whether ``spec`` is a registered metric that reads the reference."""
    from mtgauntlet.workbench.registry import METRICS, metric_class

    return spec in METRICS and metric_class(spec).needs_ref


def score_one_set(pairs: Any, spec: str) -> tuple[list[float], list[float]] | None:
    """(good scores, bad scores) of a registered metric over one set's pairs (``evaluate metric --set``), language
    pair by language pair; None for another spec (col:, QE: `mtgauntlet.evaluation.metric_robustness`)."""
    from mtgauntlet.errors import GauntletError
    from mtgauntlet.workbench.metrics import make_scorer
    from mtgauntlet.workbench.registry import METRICS

    if spec not in METRICS:
        return None
    scorer = make_scorer(spec)
    assert scorer.score is not None
    if scorer.needs_ref and any(not r for r in pairs.ref):
        raise GauntletError(f"{spec} needs references; some pairs have none")
    good, bad = [float("nan")] * len(pairs.good), [float("nan")] * len(pairs.bad)
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (s, t) in enumerate(zip(pairs.src_lang, pairs.tgt_lang)):
        groups.setdefault((s, t), []).append(i)
    for (sl, tl), idx in groups.items():
        src, ref = [pairs.src[i] for i in idx], [pairs.ref[i] for i in idx]
        for side, out in ((pairs.good, good), (pairs.bad, bad)):
            for i, x in zip(idx, scorer.score(src, [side[i] for i in idx], ref, sl, tl)):
                out[i] = float("nan") if x is None else float(x)
    return good, bad


P = ParamSpec("P")
R = TypeVar("R")


def metric_specs(values: str | Sequence[str]) -> list[str]:
    """``["chrf,bleu", "col:g,b", "llm-as-qe:openai:m@URL#price=1/2,json=1"]`` -> each metric spec whole: the one
    spec-list parser (:func:`mtgauntlet.models.qe_ensemble.split_specs`), where the registered metrics are names."""
    from mtgauntlet.models.qe_ensemble import split_specs
    from mtgauntlet.workbench.registry import names

    return split_specs(values, names())


def run_catalog(o: Any) -> dict[str, Any]:
    """`evaluate_metric` with ``out`` (or without ``set``): the whole catalog into the results folder ``o.out``
    (every parameter of `evaluate_catalog` is the option of that name)."""
    if o.set is not None:
        raise UsageError("--set scores one set and stores nothing; --out scores the catalog (--releases, --sets)")
    if o.out is None:
        raise UsageError("evaluate metric: give --set FILE (one set) or --out RESULTS (the whole catalog)")
    if o.lp or o.phenomena:
        raise UsageError("--lp/--phenomena filter one --set; over the catalog choose sets with --sets")
    from mtgauntlet.workbench.kernel_process import offered

    with offered(local_engine=o.engine == "local"):  # a command line's compiled metrics load in a second process
        return evaluate_catalog(**{name: getattr(o, name) for name in inspect.signature(evaluate_catalog).parameters})


def _is_file(spec: Any) -> bool:
    """A ``file:PATH`` metric (read from a JSON-lines file, :mod:`mtgauntlet.workbench.file_metric`)."""
    return isinstance(spec, str) and spec.startswith("file:")


def _metric_list(metric) -> list[Any]:
    values = metric if isinstance(metric, (list, tuple)) else [metric]
    out: list[Any] = []
    for v in values:
        out += [v] if callable(v) else metric_specs(v)
    if not out:
        raise UsageError("--metric: no metric given")
    return out


def _one_run_at_a_time(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` (keyword ``out``: a results folder) run holding the folder's lock: a second run into the same folder
    is refused at once, naming the pid of the first (:func:`mtgauntlet.workbench.store.results_lock`)."""

    @functools.wraps(fn)
    def locked(*args: P.args, **kwargs: P.kwargs) -> R:
        from mtgauntlet.workbench.store import results_lock

        with results_lock(Path(str(kwargs["out"]))):
            return fn(*args, **kwargs)

    return locked


@_one_run_at_a_time
def evaluate_catalog(
    *,
    releases: str | Path,
    sets: str | Sequence[str] | None,
    metric: Any,
    out: str | Path,
    engine: str = "local",
    gold: str | Sequence[str] | None = None,
    ci_resamples: int = 1000,
    sig_resamples: int = 1000,
    error_free_threshold: float | None = None,
    shard_size: int = 10_000,
    max_cost: float | None = None,
    max_requests: int | None = None,
) -> dict[str, Any]:
    """The catalog-wide evaluation behind `evaluate_metric` (see there)."""
    from mtgauntlet.core.paid_run import paid_run
    from mtgauntlet.core.progress import Progress, want_bar
    from mtgauntlet.core.usage import BudgetSpent
    from mtgauntlet.core.usage_journal import JOURNAL, journal_totals
    from mtgauntlet.core.usage_report import report
    from mtgauntlet.releases.catalog import open_catalog
    from mtgauntlet.releases.manifest import RELEASE_MANIFEST, read_manifest
    from mtgauntlet.schema import to_table
    from mtgauntlet.workbench.clusters import Scored, add_clusters
    from mtgauntlet.workbench.corpus import corpus_scorer
    from mtgauntlet.workbench.file_metric import file_scorer
    from mtgauntlet.workbench.leaderboard import set_stats
    from mtgauntlet.workbench.metrics import make_scorer
    from mtgauntlet.workbench.scoring import Known, check_kept, row_base, score_set, stop_ray_workers
    from mtgauntlet.workbench.sets import load_items, select_sets
    from mtgauntlet.workbench.store import (
        append_scores,
        open_results,
        read_scores,
        read_stats,
        seal,
    )

    one_of("--engine", engine, ENGINES)
    at_least("--shard-size", shard_size, 1)
    at_least("--ci-resamples", ci_resamples, 1)
    at_least("--sig-resamples", sig_resamples, 1)
    specs = _metric_list(metric)
    # first: a compiled metric warms up while the catalog is read
    scorers = [(spec, file_scorer(spec) if _is_file(spec) else make_scorer(spec)) for spec in specs]
    root = Path(out)
    sealed, unsealed = open_results(root)
    stored = read_scores(sealed + unsealed)
    con = open_catalog(releases)
    try:
        refs = select_sets(con, sets if sets is None or isinstance(sets, str) else ",".join(listed(sets)))
        all_items = [load_items(con, r) for r in refs]
    finally:
        con.close()
    for _, scorer in scorers:
        if scorer.column is not None:  # a col: metric reads a score some set keeps (else nothing to read)
            check_kept(scorer.name, scorer.column, all_items)
    counts: dict[str, dict[str, int]] = {}
    stats: list[dict[str, Any]] = []
    done: set[tuple[str, str, str]] = set()
    known: dict[str, Known] = {}
    per_set: dict[tuple[str, str, str], tuple[Any, list[Scored]]] = {}
    total = len(scorers) * sum(len(i) for i in all_items)
    params = {
        "ci_resamples": ci_resamples,
        "sig_resamples": sig_resamples,
        "gold": sorted(listed(gold)),
        "error_free_threshold": error_free_threshold,
    }
    previous = read_manifest(root) if (root / RELEASE_MANIFEST).is_file() else {}
    same_params = previous.get("statistics") == params
    kept = {(r["metric_signature"], r["set"], r["version"]) for r in read_stats(root).to_pylist()}

    pending: list[tuple[tuple[str, str, str], Any, Scored, dict[str, Any], bool]] = []

    def compute_stats() -> None:
        """The statistics of every (metric, set) of a set where something is new (the set's other metrics of the
        run too, so that its significance clusters compare them all); the rest stay as the last run left them."""
        fresh = {key[1:] for key, _, _, _, new in pending if new}
        for key, items, scored, base, _ in pending:
            if key[1:] in fresh:
                done.add(key)
                stats.extend(
                    set_stats(
                        items,
                        scored.scores,
                        base,
                        listed(gold) or None,
                        ci_resamples,
                        corpus=scored.corpus,
                        spans=scored.spans,
                        error_free_threshold=error_free_threshold,
                    )
                )
        add_clusters(stats, {k: v for k, v in per_set.items() if k[:2] in fresh}, sig_resamples)

    def finish(stopped: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Seal the results with every stored score and the statistics of the (metric, set) pairs done: (the
        manifest, the run's summary)."""
        old = [r for r in read_stats(root).to_pylist() if (r["metric_signature"], r["set"], r["version"]) not in done]
        run: dict[str, Any] = {
            "metrics": [s.name for _, s in scorers],
            "sets": [f"{r.name}@{r.version}" for r in refs],
            "counts": counts,
            "usage": report(journal_totals(root / JOURNAL)),  # every run into RESULTS, killed ones included
            "stopped": stopped,
        }
        return seal(root, to_table("metric_stat", old + stats), [run], statistics=params), run

    try:
        with (
            paid_run(root, max_cost=max_cost, max_requests=max_requests),
            Progress(want_bar(None), total, 0, "evaluate metric (items)", every=10.0) as bar,
        ):
            for spec, scorer in scorers:
                c = counts.setdefault(scorer.name, {"computed": 0, "reused": 0, "failed": 0})
                for items in all_items:
                    ref = items.set
                    mine = (
                        scorer
                        if scorer.column is None
                        else dataclasses.replace(scorer, signature=f"{scorer.signature}|set={ref.name}@{ref.version}")
                    )
                    if mine.signature not in known:  # one per signature: an item scored in one set serves all
                        known[mine.signature] = Known(stored, mine.signature)
                    item_spans: list[Any] = []
                    scores, computed, reused, added = score_set(
                        spec,
                        mine,
                        items,
                        known[mine.signature],
                        shard_size,
                        engine,
                        lambda rows: append_scores(root, rows),
                        bar.advance,
                        item_spans,
                    )
                    c["computed"] += computed
                    c["reused"] += reused
                    c["failed"] += scores.count(None)
                    base = row_base(mine, ref)
                    key = (mine.signature, ref.name, ref.version)
                    marked = item_spans if item_spans.count(None) < len(item_spans) else None
                    if scores.count(None) < len(scores) or marked:  # none scored or marked: no row there
                        scored = Scored(mine.signature, scores, corpus_scorer(mine.name), marked)
                        per_set.setdefault((ref.name, ref.version, ref.kind), (items, []))[1].append(scored)
                        pending.append((key, items, scored, base, bool(added) or key not in kept or not same_params))
    except (BudgetSpent, KeyboardInterrupt) as exc:
        compute_stats()
        finish(str(exc) if isinstance(exc, BudgetSpent) else "interrupted")  # stored, sealed; the same command resumes
        raise
    finally:
        stop_ray_workers()
    compute_stats()
    manifest, run = finish()
    return {
        "out": str(root),
        "sets": [{"name": r.name, "version": r.version, "kind": r.kind} for r in refs],
        "metrics": {s.name: {"signature": s.signature, **counts[s.name]} for _, s in scorers},
        "scores": sum(f["rows"] for f in manifest["files"] if f["kind"] == "metric_score"),
        "leaderboard_rows": sum(f["rows"] for f in manifest["files"] if f["kind"] == "metric_stat"),
        "statistics": stats,
        "usage": run["usage"],
        "unsealed_shards_resumed": len(unsealed),
    }


def store_rows(out: str | Path, rows: list[dict[str, Any]], run: dict[str, Any]) -> dict[str, Any]:
    """Put leaderboard rows into a results folder (replacing those of the same signature and set) and seal it."""
    from mtgauntlet.schema import to_table
    from mtgauntlet.workbench.store import open_results, read_stats, results_lock, seal

    root = Path(out)
    with results_lock(root):
        open_results(root)
        keys = {(r["metric_signature"], r["set"], r["version"]) for r in rows}
        old = [r for r in read_stats(root).to_pylist() if (r["metric_signature"], r["set"], r["version"]) not in keys]
        return seal(root, to_table("metric_stat", old + rows), [run])


def store_dec(out: str | Path, judgments: str, result: dict[str, Any]) -> int:
    """DEC results as leaderboard rows (estimator x judgment file): ``dec`` per lp and overall, and AvgScore /
    %Perfect of the hardest fraction; the set is the judgment file, its version the file's sha256 (16 hex)."""
    from mtgauntlet.fileio import sha256_file
    from mtgauntlet.models.runtime import signature_spec

    path = Path(judgments)
    version = sha256_file(path)[:16] if path.is_file() else "unknown"
    rows = []
    for r in result["results"]:
        base = {
            "metric": r["estimator"],
            "metric_signature": f"dec:{signature_spec(r['estimator'])}",
            "set": path.name,
            "version": version,
            "record_kind": "judgment",
            "phenomenon": "all",
            "gold": ",".join(sorted({p for v in result["protocols"].values() for p in v})) or None,
            "ci_low": None,
            "ci_high": None,
        }
        n_sys = r.get("systems") or {}
        for lp, value in [("all", r["dec"]), *sorted(r["per_lp"].items())]:
            n = sum(n_sys.values()) if lp == "all" else n_sys.get(lp, 0)
            rows.append({**base, "lp": lp, "grouping": "sys", "statistic": "dec", "value": value, "n": n})
        for stat in ("avg_score", "perfect_pct"):
            rows.append(
                {
                    **base,
                    "lp": "all",
                    "grouping": "none",
                    "statistic": f"dec_{stat}",
                    "value": r[stat],
                    "n": result["n"],
                }
            )
    store_rows(out, rows, {"dec": [r["estimator"] for r in result["results"]], "judgments": path.name})
    return len(rows)


@public
@takes(LeaderboardOptions, returns=dict[str, Any])
def leaderboard(o: LeaderboardOptions) -> dict[str, Any]:
    """Write the self-contained HTML leaderboard page of a results folder (``gauntlet leaderboard``): one file,
    offline (no external URL), tables and plots of every metric on every set, everything escaped.

    Returns:
        ``{"out": path, "rows": leaderboard rows shown, "metrics": [...], "sets": [...]}``.

    Raises:
        GauntletError: Not a results folder, a shard that differs from its manifest.

    Examples:
        >>> mg.leaderboard(results="results", out="leaderboard.html")["rows"]
    """
    from mtgauntlet.workbench.page import write_leaderboard

    return write_leaderboard(Path(o.results), Path(o.out), releases=o.releases, title=o.title)
