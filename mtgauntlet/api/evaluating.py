"""Evaluations from Python: `evaluate` (``gauntlet evaluate metric|dec|breaker|bandit``) and `simulate`
(``gauntlet simulate bandit``, in `mtgauntlet.api.simulating`), with one function per kind behind each. Each returns what the command's ``--json`` prints; the CLI prints tables
from the same result. The keywords, docstring ``Args`` and range checks of each kind come from its options
dataclass (`mtgauntlet.api.evaluate_options`, declared once)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from mtgauntlet.api.checks import dispatch, listed, one_of
from mtgauntlet.api.evaluate_options import (
    EvaluateBanditOptions,
    EvaluateBreakerOptions,
    EvaluateDecOptions,
    EvaluateMetricOptions,
)
from mtgauntlet.api.inputs import in_memory
from mtgauntlet.api.judgments import judgment_summary, load_judgments
from mtgauntlet.api.metric_workbench import REFERENCE_BASED, metric_specs
from mtgauntlet.api.session import public, warn
from mtgauntlet.api.simulating import simulate, simulate_bandit  # noqa: F401 (mg.simulate is here too)
from mtgauntlet.errors import GauntletError, InputError, UsageError
from mtgauntlet.options import takes

__all__ = [
    "evaluate",
    "simulate",
    "evaluate_metric",
    "evaluate_dec",
    "evaluate_breaker",
    "evaluate_bandit",
    "simulate_bandit",
]


@public
@takes(EvaluateMetricOptions, dict[str, Any])
def evaluate_metric(o: EvaluateMetricOptions) -> dict[str, Any]:
    """Metrics on challenge sets. With ``set``: one set, Kendall-like tau and d (SMAUG eq. 1-2) per metric,
    phenomenon and language pair; mean ± std of tau over language pairs (SMAUG Figures 4-7) and the Pearson
    correlation of tau and d (Figure 8). With ``out`` (the workbench): every pair set and human-judgment set of the
    catalog (or ``sets``) scored by every metric, scores stored and sealed in ``out`` with the leaderboard's
    statistics; only what is new is scored (docs/workbench.md).

    Returns:
        dict[str, Any]: With ``set``, what ``gauntlet evaluate metric --json`` prints: ``metrics``, ``results`` (one
            row per metric, phenomenon, lp), ``tau_over_lps``, ``tau_d_correlation``, ``skipped``,
            ``good_equals_ref``; with ``out``: ``out``, ``sets``, ``metrics`` (per metric: ``signature``,
            ``computed``, ``reused``, ``failed``), ``scores``, ``leaderboard_rows`` and ``statistics``.

    Raises:
        UsageError: An unknown ``ties``, no metric, no pair left after filtering; ``set`` with ``out``.
        BudgetSpent: A budget reached.

    Examples:
        >>> res = mg.evaluate("metric", set="demetr_dev.jsonl.gz", metric=["chrf", "bleu"], lp="de-en")
        >>> res["tau_over_lps"][0]["tau_mean"]
        >>> mg.evaluate("metric", releases="releases", metric="chrf,bleu", out="results")["metrics"]
    """
    if o.out is not None or o.set is None:  # the workbench: every set of the catalog, scores stored
        from mtgauntlet.api.metric_workbench import run_catalog

        return run_catalog(o)
    if callable(o.metric) or (isinstance(o.metric, (list, tuple)) and any(callable(m) for m in o.metric)):
        raise UsageError("a Python callable metric scores the catalog (out=...), not one --set")
    from mtgauntlet.core.paid_run import paid_run
    from mtgauntlet.core.progress import Progress, want_bar
    from mtgauntlet.evaluation.metric_robustness import (
        TIES,
        evaluate,
        filter_pairs,
        load_pairs,
        score_pairs,
        tau_d_correlation,
        tau_over_lps,
    )
    from mtgauntlet.models.registry import public_spec

    one_of("--ties", o.ties, TIES)
    specs = metric_specs(o.metric)
    if not specs:
        raise UsageError("--metric: no metric given")
    if in_memory(o.set) and not hasattr(o.set, "path"):  # a DataFrame of challenge pairs (e.g. Build.to_pandas())
        from mtgauntlet.api.inputs import input_table
        from mtgauntlet.evaluation.metric_robustness import pairs_of

        loaded = pairs_of(input_table(o.set).to_pylist(), f"set ({type(o.set).__name__})")
    else:
        loaded = load_pairs(str(getattr(o.set, "path", o.set)))
    pairs = filter_pairs(loaded, listed(o.lp), listed(o.phenomena))
    if not pairs.good:
        raise UsageError("no pairs left after --lp/--phenomena filtering")
    same = sum(g.split() == r.split() for g, r in zip(pairs.good, pairs.ref) if r)
    if same and any(s in REFERENCE_BASED for s in specs):
        warn(
            f"{same} of {len(pairs.good)} pairs have good == reference: a reference-based metric scores those "
            "good hypotheses as perfect matches"
        )
    skipped: dict[str, dict[str, str]] = {}
    results = []
    with (
        paid_run(max_cost=o.max_cost, max_requests=o.max_requests),
        Progress(want_bar(None), len(specs) * len(pairs.good), 0, "evaluate metric (pairs)", every=10.0) as bar,
    ):
        for spec in specs:
            skipped[spec] = {}
            with bar.unit(len(pairs.good)):  # score_pairs reports each language pair's scoring inside
                good, bad = score_pairs(pairs, spec, skipped[spec])
            results += [{"metric": public_spec(spec), **r} for r in evaluate(pairs, good, bad, o.ties)]
    keys = ("metric", "phenomenon", "lp", "n", "tau", "d", "concordant", "discordant", "ties")
    names = [public_spec(s) for s in specs]  # a metric is named by its public spec: never a credential
    return {
        "metric": names[0] if len(names) == 1 else names,
        "metrics": names,
        "ties": o.ties,
        "good_equals_ref": same,
        "skipped": {public_spec(k): v for k, v in skipped.items() if v},
        "results": [{k: r[k] for k in keys} for r in results],
        "tau_over_lps": tau_over_lps(results),
        "tau_d_correlation": tau_d_correlation(results),
    }


def spec_list(value: str | Sequence[str] | None) -> list[str]:
    """Model specs given comma-separated or as a list; a piece that is only a spec option (``price=1/2`` after a
    spec with ``#``) stays with its spec (``models.qe_ensemble.split_specs``), so no option is split off."""
    from mtgauntlet.models.qe_ensemble import split_specs

    return [s for v in ([value] if isinstance(value, str) else value or []) for s in split_specs(v)]


@public
@takes(EvaluateDecOptions, dict[str, Any])
def evaluate_dec(o: EvaluateDecOptions) -> dict[str, Any]:
    """Difficulty Estimation Correlation (group-by-system Kendall tau_b, averaged over systems then language
    pairs), and AvgScore / %Perfect of the hardest ``fraction`` of the items.

    Returns:
        dict[str, Any]: What ``gauntlet evaluate dec --json`` prints: ``n``, ``protocols``, ``human_systems`` and
            ``results`` (per estimator: ``dec``, ``per_lp``, ``systems``, ``avg_score``, ``perfect_pct``,
            ``failures``).

    Raises:
        UsageError: ``fraction`` out of range, a bad ``format`` or ``protocol``.
        GauntletError: No judgments left after filtering, no source could be scored.

    Examples:
        >>> res = mg.evaluate("dec", judgments="wmt23_mtme_seg_scores.tsv.gz", lp="en-de")
        >>> res["results"][0]["dec"]
    """
    from mtgauntlet.core.paid_run import paid_run
    from mtgauntlet.core.progress import Progress, want_bar
    from mtgauntlet.corpora.langs import split_lp
    from mtgauntlet.evaluation.dec import score_sources, unique_sources
    from mtgauntlet.evaluation.dec_selection import LENGTH_UNIT, dec_and_selection, oracle_rows
    from mtgauntlet.models import registry
    from mtgauntlet.models.registry import public_spec

    path = str(o.judgments)
    rows = load_judgments(path, o.format, o.map, o.protocol, o.quoting)
    if o.lp:
        keep = set(listed(o.lp))
        rows = [r for r in rows if r["lp"] in keep]
    info = judgment_summary(rows, o.include_human)
    if not o.include_human:
        rows = [r for r in rows if not r.get("human")]
    if not rows:
        raise InputError("no judgments (after --lp / --exclude-human filtering)", file=path)
    results = []
    specs = spec_list(o.estimator)
    n_sources = sum(len(v) for v in unique_sources(rows).values())
    with (
        paid_run(max_cost=o.max_cost, max_requests=o.max_requests),
        Progress(want_bar(None), n_sources * len(specs), 0, "evaluate dec (sources)", every=10.0) as bar,
    ):
        for spec in specs:
            est = registry.load("difficulty", spec)

            def fn(texts, pair, est=est):
                s, t = split_lp(pair)
                out = est.difficulty(texts, src_lang=s, tgt_lang=t)
                bar.advance(len(texts))
                return out

            failures: dict[str, int] = {}
            scores = score_sources(rows, fn, failures)
            if not scores:
                raise GauntletError(f"{spec}: no source could be scored ({sum(failures.values())} failures)")
            res, sel = dec_and_selection(rows, scores, o.fraction, o.selection)
            results.append(
                {
                    "estimator": public_spec(spec),  # never a credential
                    "dec": res["dec"],
                    "dec_flat": res["dec_flat"],
                    "per_lp": res["per_lp"],
                    "systems": res["systems"],
                    "avg_score": sel["avg_score"],
                    "perfect_pct": sel["perfect_pct"],
                    "failures": failures,
                }
            )
    result = {
        "judgments": path,
        "n": len(rows),
        "fraction": o.fraction,
        "selection": o.selection,
        **info,
        "results": results,
        "oracles": oracle_rows(rows, o.fraction),
        **({"units": {"length": LENGTH_UNIT}} if any(x.split(":")[0] == "length" for x in specs) else {}),
    }
    if o.out is not None:
        from mtgauntlet.api.metric_workbench import store_dec

        result["stored"] = {"out": str(o.out), "rows": store_dec(o.out, path, result)}
    return result


@public
@takes(EvaluateBreakerOptions, dict[str, Any])
def evaluate_breaker(o: EvaluateBreakerOptions) -> dict[str, Any]:
    """MT-breaker analysis: the step curve (Figure 2), Table 2's data-quality measures per method, with ``mt`` the
    model-transfer matrix (Table 4), with several target languages the language-transfer table (Table 5).

    Returns:
        dict[str, Any]: What ``gauntlet evaluate breaker --json`` prints: the summary numbers, ``step_curve``,
            ``table2`` and, when asked, ``per_lp``, ``transfer``, ``language_transfer``, ``plot``.

    Raises:
        GauntletError: No ``breaker_text`` records in ``set``.

    Examples:
        >>> res = mg.evaluate("breaker", set="builds/mtbreaker", plot="steps.png")
        >>> res["final_mean_qe"], res["table2"]
    """
    from mtgauntlet.core.paid_run import paid_run
    from mtgauntlet.evaluation.breaker_analysis import (
        language_pair,
        language_transfer,
        plot_step_curve,
        quality_table,
        step_curve,
        summary,
        transfer_matrix,
    )
    from mtgauntlet.models import registry
    from mtgauntlet.records import load_records

    sets = [str(o.set.path)] if hasattr(o.set, "path") else listed(o.set)
    records = [
        r
        for path in sets
        for r in load_records(path, kind="breaker_text").to_pylist()
        if r.get("trajectory") is not None
    ]
    if not records:
        raise GauntletError(f"{','.join(sets)}: no breaker_text records")
    qe_specs = o.qe or records[0].get("qe_model") or "qe"
    if not o.qe and records[0].get("qe_models"):
        qe_specs = records[0]["qe_models"]
    curve = step_curve(records)
    with paid_run(max_cost=o.max_cost, max_requests=o.max_requests):
        result = {
            **summary(records),
            "step_curve": curve,
            "table2": quality_table(
                records,
                judge=registry.load("llm", o.judge) if o.judge else None,
                embedder=registry.load("embedder", o.embedder) if o.embedder else None,
                lm=o.lm,
                difficulty=listed(o.difficulty),
                tokenization=o.words,
                chrf_references=o.chrf_references,
            ),
        }
        pairs = sorted({language_pair(r) for r in records})
        if len(pairs) > 1:  # each set in its own language pair: never one pooled row
            result["per_lp"] = {
                lp: {**summary(recs), "step_curve": step_curve(recs)}
                for lp in pairs
                for recs in [[r for r in records if language_pair(r) == lp]]
            }
        if o.mt:
            result["transfer"] = transfer_matrix(records, spec_list(o.mt), qe_specs)
        targets = listed(o.langs) or sorted({r["tgt_lang"] for r in records})
        if len(targets) > 1:
            translators = spec_list(o.mt) or list(records[0].get("target_models") or ["apertium"])
            result["language_transfer"] = language_transfer(records, targets, translators, qe_specs)
    if o.plot:
        result["plot"] = str(plot_step_curve(curve, o.plot))
    return result


@public
@takes(EvaluateBanditOptions, dict[str, Any])
def evaluate_bandit(o: EvaluateBanditOptions) -> dict[str, Any]:
    """Replay bandit algorithms over a pre-scored pool and report the TRUE mean difficulty (mean of all pooled
    samples) of the top-1 and top-k topics they select at each budget (the bandit paper's Figure 2 protocol).

    Returns:
        dict[str, Any]: What ``gauntlet evaluate bandit --json`` prints: ``oracle``, ``rows`` (per budget and
            algorithm), ``topics``, ``samples``, ``unscored_samples_left_out``, ``min_samples``,
            ``small_topics_left_out`` (and ``plot``).

    Raises:
        UsageError: Budgets that are not integers.
        GauntletError: A pool without topics or difficulty.

    Examples:
        >>> res = mg.evaluate("bandit", pool="builds/bandit-pool", budgets=[100, 200])
        >>> res["oracle"]["topk"], res["rows"][0]
    """
    from mtgauntlet.evaluation.bandit_replay import DEFAULT_PULLS_PER_TOPIC, load_pool, replay
    from mtgauntlet.evaluation.bandit_replay import plot as plot_replay

    if o.budgets:
        try:
            bs = [int(b) for b in listed(o.budgets)]
        except ValueError:
            raise UsageError(f"--budgets takes comma-separated integers (pulls), not {o.budgets!r}") from None
    topics, missing, small = load_pool(str(getattr(o.pool, "path", o.pool)), o.min_samples)
    if not o.budgets:
        bs = [max(1, round(f * len(topics))) for f in DEFAULT_PULLS_PER_TOPIC]
    result = replay(
        topics,
        listed(o.algorithms),
        bs,
        k=o.k,
        cap=math.inf if not o.cap else o.cap,
        epsilon=o.epsilon,
        repeats=o.repeats,
        seed=o.seed,
    )
    result["unscored_samples_left_out"] = missing
    result["min_samples"], result["small_topics_left_out"] = o.min_samples, len(small)
    if o.plot:
        result["plot"] = str(plot_replay(result, o.plot))
    return result


EVALUATIONS = {"metric": evaluate_metric, "dec": evaluate_dec, "breaker": evaluate_breaker, "bandit": evaluate_bandit}


@public
def evaluate(kind: str, *, progress: bool = False, **options) -> dict[str, Any]:
    """Evaluate metrics on challenge sets or difficulty estimators on judgments: ``gauntlet evaluate KIND``.

    The keyword options are the command's (``--include-human`` -> ``include_human``), with the same defaults; see
    `evaluate_metric`, `evaluate_dec`, `evaluate_breaker` and `evaluate_bandit`.

    Args:
        kind: ``metric`` (tau and d of metrics on SMAUG/DEMETR/ACES pairs), ``dec`` (difficulty estimators on
            human judgments), ``breaker`` (MT-breaker analysis) or ``bandit`` (replays over a pre-scored pool).
        **options: The kind's options.

    Returns:
        The result dict that ``gauntlet evaluate KIND --json`` prints.

    Raises:
        UsageError: An unknown kind or option, an option out of range.
        BudgetSpent: ``max_cost`` / ``max_requests`` reached.
        GauntletError: Bad input.

    Examples:
        >>> res = mg.evaluate("metric", set="demetr_dev.jsonl.gz", metric="chrf", lp="de-en")
        >>> [(r["phenomenon"], r["tau"]) for r in res["results"]][:3]
    """
    return dispatch("evaluate", EVALUATIONS, kind, options)
