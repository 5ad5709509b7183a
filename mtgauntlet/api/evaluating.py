"""Evaluations from Python: `evaluate` (``gauntlet evaluate metric|dec|breaker|bandit``), `simulate`
(``gauntlet simulate bandit``) and `list_models` (``gauntlet models``), with one function per kind behind the
first two. Each returns what the command's ``--json`` prints; the CLI prints tables from the same result."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

from mtgauntlet.api.checks import at_least, at_most, budget_limits, in_ranges, judgment_formats, listed, one_of
from mtgauntlet.api.session import public, warn
from mtgauntlet.errors import GauntletError, InputError, UsageError

__all__ = ["evaluate", "simulate", "list_models", "evaluate_metric", "evaluate_dec", "evaluate_breaker",
           "evaluate_bandit", "simulate_bandit"]

REFERENCE_BASED = ("chrf", "bleu")


def metric_specs(values: str | Sequence[str]) -> list[str]:
    """``["chrf,bleu", "col:g,b"]`` -> ``["chrf", "bleu", "col:g,b"]`` (a ``col:`` spec keeps its comma)."""
    out: list[str] = []
    for value in [values] if isinstance(values, str) else values:
        parts = [x.strip() for x in value.split(",")]
        i = 0
        while i < len(parts):
            if parts[i].startswith("col:") and i + 1 < len(parts):
                out.append(f"{parts[i]},{parts[i + 1]}")
                i += 2
                continue
            if parts[i]:
                out.append(parts[i])
            i += 1
    return list(dict.fromkeys(out))


@public
def evaluate_metric(*, set: Any, metric: str | Sequence[str] = ("chrf",), lp: str | Sequence[str] | None = None,
                    phenomena: str | Sequence[str] | None = None, ties: str = "discordant",
                    max_cost: float | None = None, max_requests: int | None = None) -> dict[str, Any]:
    """Kendall-like tau and d (SMAUG eq. 1-2) per metric, phenomenon and language pair; mean ± std of tau over
    language pairs (SMAUG Figures 4-7) and the Pearson correlation of tau and d (Figure 8).

    Args:
        set: Build/release directory or Parquet of ``smaug_pair`` records, DEMETR JSONL or ACES TSV.
        metric: chrf, bleu, ``col:GOODCOL,BADCOL``, or a QE spec (qe, roundtrip, comet:..., llm-as-qe:...): one,
            a list, or comma-separated.
        lp: Only these language pairs (a list or comma-separated).
        phenomena: Only these phenomena (a list or comma-separated).
        ties: ``discordant`` (a tie counts against the metric) or ``ignore`` (SMAUG eq. 1 as written).
        max_cost: Stop once the ``openai:`` requests cost this many USD (raises BudgetSpent).
        max_requests: Stop after this many requests to ``openai:`` backends.

    Returns:
        What ``gauntlet evaluate metric --json`` prints: ``metrics``, ``results`` (one row per metric, phenomenon,
        lp), ``tau_over_lps``, ``tau_d_correlation``, ``skipped``, ``good_equals_ref``.

    Raises:
        UsageError: An unknown ``ties``, no metric, no pair left after filtering.
        BudgetSpent: A budget reached.

    Examples:
        >>> res = mg.evaluate("metric", set="demetr_dev.jsonl.gz", metric=["chrf", "bleu"], lp="de-en")
        >>> res["tau_over_lps"][0]["tau_mean"]
    """
    from mtgauntlet.evaluation.metric_robustness import (TIES, evaluate, filter_pairs, load_pairs, score_pairs,
                                                         tau_d_correlation, tau_over_lps)
    from mtgauntlet.models.usage import budget
    from mtgauntlet.runner.progress import Progress, want_bar

    budget_limits(max_cost, max_requests)
    one_of("--ties", ties, TIES)
    specs = metric_specs(metric)
    if not specs:
        raise UsageError("--metric: no metric given")
    pairs = filter_pairs(load_pairs(str(getattr(set, "path", set))), listed(lp), listed(phenomena))
    if not pairs.good:
        raise UsageError("no pairs left after --lp/--phenomena filtering")
    same = sum(g.split() == r.split() for g, r in zip(pairs.good, pairs.ref) if r)
    if same and any(s in REFERENCE_BASED for s in specs):
        warn(f"{same} of {len(pairs.good)} pairs have good == reference: a reference-based metric scores those "
             "good hypotheses as perfect matches")
    skipped: dict[str, dict[str, str]] = {}
    results = []
    with budget(max_cost, max_requests), \
            Progress(want_bar(None), len(specs) * len(pairs.good), 0, "evaluate metric (pairs)", every=10.0) as bar:
        for spec in specs:
            skipped[spec] = {}
            with bar.unit(len(pairs.good)):  # score_pairs reports each language pair's scoring inside
                good, bad = score_pairs(pairs, spec, skipped[spec])
            results += [{"metric": spec, **r} for r in evaluate(pairs, good, bad, ties)]
    keys = ("metric", "phenomenon", "lp", "n", "tau", "d", "concordant", "discordant", "ties")
    return {"metric": specs[0] if len(specs) == 1 else specs, "metrics": specs, "ties": ties,
            "good_equals_ref": same, "skipped": {k: v for k, v in skipped.items() if v},
            "results": [{k: r[k] for k in keys} for r in results],
            "tau_over_lps": tau_over_lps(results), "tau_d_correlation": tau_d_correlation(results)}


def _load_judgments(path: str, format: str | None, mapping: str | None, protocol: str | None,
                    quoting: str | None = None):
    """Judgment rows of a named layout or a plain table; human translations are kept and marked ``human``."""
    from mtgauntlet.corpora.formats import READERS, read_judgments, sniff_named_format
    from mtgauntlet.corpora.readers import parse_column_map

    named = format or sniff_named_format(path)
    if named in ("google-mqm", "wmt23-mtme", "wmt23-esa"):
        if protocol:
            raise UsageError(f"--protocol: the {named} layout has its own protocol")
        return READERS[named](path, keep_refs=True).rows
    return read_judgments(path, columns=parse_column_map(mapping), protocol=protocol, keep_refs=True,
                          quoting=quoting).rows


def _judgment_summary(rows, include_human: bool) -> dict:
    """Which protocol each lp uses and where it came from; which human translations there are, and whether
    they count (the paper's DEC ranks items over MT systems and human translators)."""
    protocols: dict[str, set] = {}
    for r in rows:
        protocols.setdefault(r["lp"], set()).add(f"{r['protocol']} ({r.get('protocol_source', 'layout')})")
    human = sorted({r["system"] for r in rows if r.get("human")})
    return {"protocols": {lp: sorted(v) for lp, v in sorted(protocols.items())}, "include_human": include_human,
            "human_systems": human, "human_rows": sum(1 for r in rows if r.get("human"))}


@public
def evaluate_dec(*, judgments: Any, estimator: str = "length", format: str | None = None, map: str | None = None,
                 protocol: str | None = None, include_human: bool = True, lp: str | Sequence[str] | None = None,
                 fraction: float = 0.25, quoting: str = "auto", max_cost: float | None = None,
                 max_requests: int | None = None) -> dict[str, Any]:
    """Difficulty Estimation Correlation (group-by-system Kendall tau_b, averaged over systems then language
    pairs), and AvgScore / %Perfect of the hardest ``fraction`` of the items.

    Args:
        judgments: Judgment table (lp, item_id, src, system, score[, tgt, protocol, is_human_ref]; ``.gz`` ok), or
            a google-mqm / wmt23-mtme / wmt23-esa file.
        estimator: Difficulty estimator spec(s), comma-separated.
        format: google-mqm, wmt23-mtme, wmt23-esa, or a plain table format; default: from the file.
        map: Column mapping ours=theirs, e.g. ``score=esa_score_mean,item_id=line_id``.
        protocol: esa, mqm or da for a plain table without a protocol column.
        include_human: Count human translations as translators (the paper's DEC), or only MT systems.
        lp: Only these language pairs (a list or comma-separated).
        fraction: Budget fraction (0.01 to 1) for AvgScore / %Perfect of the hardest subset.
        quoting: TSV/CSV quoting: auto, csv or none.
        max_cost: Stop once the ``openai:`` requests cost this many USD (raises BudgetSpent).
        max_requests: Stop after this many requests to ``openai:`` backends.

    Returns:
        What ``gauntlet evaluate dec --json`` prints: ``n``, ``protocols``, ``human_systems`` and ``results`` (per
        estimator: ``dec``, ``per_lp``, ``systems``, ``avg_score``, ``perfect_pct``, ``failures``).

    Raises:
        UsageError: ``fraction`` out of range, a bad ``format`` or ``protocol``.
        GauntletError: No judgments left after filtering, no source could be scored.

    Examples:
        >>> res = mg.evaluate("dec", judgments="wmt23_mtme_seg_scores.tsv.gz", lp="en-de")
        >>> res["results"][0]["dec"]
    """
    from mtgauntlet.corpora.langs import split_lp
    from mtgauntlet.evaluation.dec import dec, score_sources, selection_quality, unique_sources
    from mtgauntlet.models import registry
    from mtgauntlet.models.usage import budget
    from mtgauntlet.runner.progress import Progress, want_bar

    at_least("--fraction", fraction, 0.01)
    at_most("--fraction", fraction, 1.0)
    budget_limits(max_cost, max_requests)
    one_of("--format", format, judgment_formats())
    path = str(judgments)
    rows = _load_judgments(path, format, map, protocol, quoting)
    if lp:
        keep = set(listed(lp))
        rows = [r for r in rows if r["lp"] in keep]
    info = _judgment_summary(rows, include_human)
    if not include_human:
        rows = [r for r in rows if not r.get("human")]
    if not rows:
        raise InputError("no judgments (after --lp / --exclude-human filtering)", file=path)
    results = []
    specs = listed(estimator)
    n_sources = sum(len(v) for v in unique_sources(rows).values())
    with budget(max_cost, max_requests), \
            Progress(want_bar(None), n_sources * len(specs), 0, "evaluate dec (sources)", every=10.0) as bar:
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
            res = dec(rows, scores)
            sel = selection_quality(rows, scores, fraction)
            results.append({"estimator": spec, "dec": res["dec"], "dec_flat": res["dec_flat"], "per_lp": res["per_lp"],
                            "systems": res["systems"],
                            "avg_score": sel["avg_score"], "perfect_pct": sel["perfect_pct"], "failures": failures})
    return {"judgments": path, "n": len(rows), "fraction": fraction, **info, "results": results}


@public
def evaluate_breaker(*, set: Any, plot: str | Path | None = None, mt: str | Sequence[str] | None = None,
                     qe: str | None = None, langs: str | Sequence[str] | None = None, judge: str | None = None,
                     embedder: str | None = None, lm: bool = False,
                     difficulty: str | Sequence[str] | None = None, max_cost: float | None = None,
                     max_requests: int | None = None) -> dict[str, Any]:
    """MT-breaker analysis: the step curve (Figure 2), Table 2's data-quality measures per method, with ``mt`` the
    model-transfer matrix (Table 4), with several target languages the language-transfer table (Table 5).

    Args:
        set: Build/release directory(ies) with ``breaker_text`` records (a list or comma-separated).
        plot: Write the step curve (Figure 2) as PNG here.
        mt: Evaluation translators: the transfer matrix; with ``langs``, the translators of Table 5.
        qe: QE spec(s) for ``mt`` / ``langs``, comma-separated (default: the QE the set was built with).
        langs: Target languages for the language-transfer table (default: the sets' own, when several).
        judge: LLM spec: the paper's source-text analysis (naturalness, topic diversity, LLM-rated
            grammaticality, rarity and syntax) and target-text analysis (error-type diversity) prompts.
        embedder: Embedder spec (e.g. e5) for embedding diversity.
        lm: Also compute LM naturalness with the embedded LLM (offline; slow).
        difficulty: Source-only difficulty estimator spec(s) (a list or comma-separated; e.g. learned,
            sentinel:...): their mean per method, in place of the paper's SRCQE row.
        max_cost: Stop once the ``openai:`` requests cost this many USD (raises BudgetSpent).
        max_requests: Stop after this many requests to ``openai:`` backends.

    Returns:
        What ``gauntlet evaluate breaker --json`` prints: the summary numbers, ``step_curve``, ``table2`` and,
        when asked, ``per_lp``, ``transfer``, ``language_transfer``, ``plot``.

    Raises:
        GauntletError: No ``breaker_text`` records in ``set``.

    Examples:
        >>> res = mg.evaluate("breaker", set="builds/mtbreaker", plot="steps.png")
        >>> res["final_mean_qe"], res["table2"]
    """
    from mtgauntlet.evaluation.breaker_analysis import (language_pair, language_transfer, plot_step_curve,
                                                        quality_table, step_curve, summary, transfer_matrix)
    from mtgauntlet.models import registry
    from mtgauntlet.models.usage import budget
    from mtgauntlet.records import load_records

    budget_limits(max_cost, max_requests)
    sets = [str(getattr(set, "path", set))] if hasattr(set, "path") else listed(set)
    records = [r for path in sets for r in load_records(path, kind="breaker_text").to_pylist()
               if r.get("trajectory") is not None]
    if not records:
        raise GauntletError(f"{','.join(sets)}: no breaker_text records")
    qe_specs = qe or records[0].get("qe_model") or "qe"
    if not qe and records[0].get("qe_models"):
        qe_specs = records[0]["qe_models"]
    curve = step_curve(records)
    with budget(max_cost, max_requests):
        result = {**summary(records), "step_curve": curve,
                  "table2": quality_table(records, judge=registry.load("llm", judge) if judge else None,
                                          embedder=registry.load("embedder", embedder) if embedder else None,
                                          lm=lm, difficulty=listed(difficulty))}
        pairs = sorted({language_pair(r) for r in records})
        if len(pairs) > 1:  # each set in its own language pair: never one pooled row
            result["per_lp"] = {lp: {**summary(recs), "step_curve": step_curve(recs)}
                                for lp in pairs for recs in [[r for r in records if language_pair(r) == lp]]}
        if mt:
            result["transfer"] = transfer_matrix(records, listed(mt), qe_specs)
        targets = listed(langs) or sorted({r["tgt_lang"] for r in records})
        if len(targets) > 1:
            translators = listed(mt) or list(records[0].get("target_models") or ["apertium"])
            result["language_transfer"] = language_transfer(records, targets, translators, qe_specs)
    if plot:
        result["plot"] = str(plot_step_curve(curve, plot))
    return result


@public
def evaluate_bandit(*, pool: Any, algorithms: str | Sequence[str] = "brute,greedy,eps-greedy,greedy-10%",
                    budgets: str | Sequence[int] | None = None, k: int = 10, cap: int = 10, epsilon: float = 0.7,
                    repeats: int = 5, seed: int = 13, min_samples: int = 25,
                    plot: str | Path | None = None) -> dict[str, Any]:
    """Replay bandit algorithms over a pre-scored pool and report the TRUE mean difficulty (mean of all pooled
    samples) of the top-1 and top-k topics they select at each budget (the bandit paper's Figure 2 protocol).

    Args:
        pool: A ``build bandit --prescore N`` output directory, or a table with topic and difficulty columns.
        algorithms: brute, greedy, eps-greedy, contextual, ucb, greedy-10% (a list or comma-separated).
        budgets: Budgets in pulls (a list or comma-separated; default: 0.25, 0.5, 1, 1.5, 2 and 3 pulls per topic).
        k: Size of the selected topic set (top-k).
        cap: Max pulls per topic (the paper's c; 0 = no cap).
        epsilon: eps-greedy: probability of exploring.
        repeats: Replays per algorithm.
        seed: Random seed of the replays.
        min_samples: Topics with fewer scored samples are left out and counted (the paper: 25).
        plot: PNG: true top-1 / top-k difficulty vs budget.

    Returns:
        What ``gauntlet evaluate bandit --json`` prints: ``oracle``, ``rows`` (per budget and algorithm), ``topics``,
        ``samples``, ``unscored_samples_left_out``, ``min_samples``, ``small_topics_left_out`` (and ``plot``).

    Raises:
        UsageError: Budgets that are not integers.
        GauntletError: A pool without topics or difficulty.

    Examples:
        >>> res = mg.evaluate("bandit", pool="builds/bandit-pool", budgets=[100, 200])
        >>> res["oracle"]["topk"], res["rows"][0]
    """
    from mtgauntlet.evaluation.bandit_replay import DEFAULT_PULLS_PER_TOPIC, load_pool, plot as plot_replay, replay

    at_least("--min-samples", min_samples, 1)
    if budgets:
        try:
            bs = [int(b) for b in listed(budgets)]
        except ValueError:
            raise UsageError(f"--budgets takes comma-separated integers (pulls), not {budgets!r}") from None
    topics, missing, small = load_pool(str(getattr(pool, "path", pool)), min_samples)
    if not budgets:
        bs = [max(1, round(f * len(topics))) for f in DEFAULT_PULLS_PER_TOPIC]
    result = replay(topics, listed(algorithms), bs, k=k, cap=math.inf if not cap else cap, epsilon=epsilon,
                    repeats=repeats, seed=seed)
    result["unscored_samples_left_out"] = missing
    result["min_samples"], result["small_topics_left_out"] = min_samples, len(small)
    if plot:
        result["plot"] = str(plot_replay(result, plot))
    return result


EVALUATIONS = {"metric": evaluate_metric, "dec": evaluate_dec, "breaker": evaluate_breaker,
               "bandit": evaluate_bandit}


def _dispatch(verb: str, kinds: dict, kind: str, options: dict):
    """Call ``kinds[kind](**options)`` in the caller's output mode; an unknown kind or option is a UsageError."""
    import inspect

    fn = kinds.get(kind)
    if fn is None:
        raise UsageError(f"{verb}: unknown kind {kind!r} (one of {', '.join(kinds)})")
    known = set(inspect.signature(fn).parameters) - {"progress"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise UsageError(f"{verb} {kind}: unknown option(s) {', '.join(unknown)} (takes: {', '.join(sorted(known))})")
    return fn(progress=None, **options)


@public
def evaluate(kind: str, **options) -> dict[str, Any]:
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
    return _dispatch("evaluate", EVALUATIONS, kind, options)


SIMULATE_MINIMUM = {"topics": 1, "budget": 1, "k": 1, "cap": 0, "epsilon": 0.0, "batch": 1, "sigma": 0.0}
SIMULATE_MAXIMUM = {"epsilon": 1.0}


@public
def simulate_bandit(*, topics: int = 1_000_000, budget: int = 1_500_000, algorithms: str | Sequence[str] =
                    "eps-greedy,greedy,brute", k: int = 10, cap: int | None = 10, epsilon: float = 0.7,
                    batch: int = 1, sigma: float | None = None, fit: str | Path | None = None,
                    sizes: str | Sequence[int] | None = None, seed: int = 13,
                    plot: str | Path | None = None) -> dict[str, Any]:
    """Compare bandit algorithms against the oracle top-k at equal budgets on synthetic topics.

    Args:
        topics: Number of synthetic topics (>= 1).
        budget: Pulls (cost 1 each, >= 1).
        algorithms: brute, greedy, eps-greedy, ucb (a list or comma-separated).
        k: Size of the selected topic set (top-k, >= 1).
        cap: Max pulls per topic (the paper's c; 0 or ``None`` = no cap).
        epsilon: eps-greedy: probability of exploring an unsampled topic (0 to 1).
        batch: Topics chosen per step (batched variants, >= 1).
        sigma: Within-topic standard deviation (default: the mixture's).
        fit: Fit the mixture to a real search's output directory (its pull log).
        sizes: Only the oracle top-1/top-k at these topic-set sizes (a list or comma-separated; Figure 5).
        seed: Seed of the topic sample and of the algorithms.
        plot: PNG: top-k difficulty vs budget (0.5/1/1.5/3 pulls per topic) and the topic-difficulty mixture.

    Returns:
        What ``gauntlet simulate bandit --json`` prints: ``oracle_topk_mean``, ``oracle_top1``, ``algorithms``
        (per algorithm: true means, pulls, speed) and ``mixture`` (and ``plot``); with ``sizes``: ``k``,
        ``scaling`` and ``mixture``.

    Raises:
        UsageError: An option out of range, unknown algorithms, ``k`` above ``topics`` or ``sizes``.

    Examples:
        >>> res = mg.simulate("bandit", topics=10_000, budget=15_000, algorithms="greedy,eps-greedy")
        >>> res["oracle_topk_mean"], res["algorithms"]["greedy"]["topk_true_mean"]
    """
    from mtgauntlet.builders.bandit.simulate import (SIM_ALGORITHMS, Mixture, budget_curve, fit_from_pull_log,
                                                     oracle_scaling, plot as plot_curve, simulate as run)

    in_ranges(dict(topics=topics, budget=budget, k=k, cap=cap, epsilon=epsilon, batch=batch, sigma=sigma),
              SIMULATE_MINIMUM, SIMULATE_MAXIMUM)
    mixture = fit_from_pull_log(str(fit)) if fit else Mixture()
    if sigma is not None:
        mixture.sigma = sigma
    mix = {"weights": list(mixture.weights), "means": list(mixture.means), "sds": list(mixture.sds),
           "sigma": mixture.sigma, "fitted_from": mixture.fitted_from}
    if sizes:
        try:
            ns = [int(x) for x in listed(sizes)]
        except ValueError:
            raise UsageError(f"--sizes takes comma-separated integers, not {sizes!r}") from None
        if not ns or min(ns) < k:
            raise UsageError(f"--sizes needs topic-set sizes of at least --k ({k})")
        return {"k": k, "scaling": oracle_scaling(ns, k=k, mixture=mixture, seed=seed), "mixture": mix}
    if k > topics:
        raise UsageError(f"--k {k} is more than --topics {topics}")
    algos = listed(algorithms)
    unknown = [a for a in algos if a not in SIM_ALGORITHMS]
    if unknown or not algos:
        raise UsageError(f"--algorithms: unknown {', '.join(map(repr, unknown)) or 'empty list'}; choose from "
                         f"{', '.join(SIM_ALGORITHMS)}")
    capf = math.inf if not cap else cap
    res = run(topics, budget, algos, k=k, cap=capf, epsilon=epsilon, batch=batch, seed=seed, mixture=mixture)
    out = {"oracle_topk_mean": res.oracle_topk_mean, "oracle_top1": res.oracle_top1, "algorithms": res.algorithms,
           "mixture": mix}
    if plot:
        curve = budget_curve(topics, (0.5, 1.0, 1.5, 3.0), algos, k=k, cap=capf, epsilon=epsilon, batch=batch,
                             seed=seed, mixture=mixture)
        plot_curve(curve, plot, k=k)
        out["plot"] = str(plot)
    return out


SIMULATIONS = {"bandit": simulate_bandit}


@public
def simulate(kind: str, **options) -> dict[str, Any]:
    """Run a simulation: ``gauntlet simulate KIND`` (``bandit``: synthetic topic search at scale, see
    `simulate_bandit` for the options).

    Args:
        kind: ``bandit``.
        **options: The kind's options (``topics``, ``budget``, ``algorithms``, ``k``, ``cap``, ``plot``, ...).

    Returns:
        The result dict that ``gauntlet simulate KIND --json`` prints (the plot written when ``plot`` is given).

    Raises:
        UsageError: An unknown kind or option, an option out of range.

    Examples:
        >>> mg.simulate("bandit", topics=10_000, budget=15_000, plot="sim.png")["oracle_topk_mean"]
    """
    return _dispatch("simulate", SIMULATIONS, kind, options)


@public
def list_models():
    """The model backends mtgauntlet knows: the embedded (offline) ones, installed or not, and every backend spec
    name with its roles (``gauntlet models``).

    Returns:
        A ``pandas.DataFrame`` with one row per embedded backend (``role``, ``spec``, ``installed``, ``what``, ...).
        ``df.attrs`` holds the rest of ``gauntlet models --json``: ``defaults`` (the spec per role when none is
        given), ``default_translator_by_pair``, ``backends`` (spec name -> roles) and ``suggestions``.

    Examples:
        >>> df = mg.list_models()
        >>> df[df.installed][["role", "spec"]], df.attrs["backends"]["openai"]
    """
    import pandas as pd

    from mtgauntlet.models.embedded import packaged_translator
    from mtgauntlet.models.registry import DEFAULTS, REGISTRY, SUGGESTIONS, embedded_status

    by_pair = {f"{a}-{b}": packaged_translator(a, b) for a, b in (("en", "pt"), ("pt", "en"))}
    df = pd.DataFrame(embedded_status())
    df.attrs.update({"defaults": dict(DEFAULTS),
                     "default_translator_by_pair": {k: v for k, v in by_pair.items() if v},  # used when none given
                     "backends": {k: sorted(v) for k, v in REGISTRY.items()}, "suggestions": SUGGESTIONS})
    return df
