"""`gauntlet evaluate`: metric robustness on challenge pairs; difficulty estimators (DEC)."""

from __future__ import annotations

from typing import List, Optional

import typer

from mtgauntlet.runner.progress import Progress, want_bar
from mtgauntlet.cli.common import comma_list, fail, judgment_format_option, print_frame, print_json, quoting_option
from mtgauntlet.cli.spend import budget, max_cost_option, max_requests_option

app = typer.Typer(help="Evaluate metrics on challenge sets, or difficulty estimators on judgments.",
                  no_args_is_help=True)


def metric_specs(values: list[str]) -> list[str]:
    """``["chrf,bleu", "col:g,b"]`` -> ``["chrf", "bleu", "col:g,b"]`` (a ``col:`` spec keeps its comma)."""
    out: list[str] = []
    for value in values:
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


REFERENCE_BASED = ("chrf", "bleu")


@app.command("metric")
def evaluate_metric(
    ctx: typer.Context,
    set: str = typer.Option(..., "--set", "-s", help="Build/release dir or Parquet of smaug_pair, DEMETR JSONL or ACES TSV."),
    metric: List[str] = typer.Option(["chrf"], "--metric", "-m", help="chrf, bleu, col:GOODCOL,BADCOL, or a QE spec "
                                     "(qe, roundtrip, comet:..., llm-as-qe:...); several: repeat or comma-separate."),
    lp: str = typer.Option(None, "--lp", help="Only these language pairs (comma-separated, e.g. es-en,de-en)."),
    phenomena: str = typer.Option(None, "--phenomena", help="Only these phenomena (comma-separated)."),
    ties: str = typer.Option("discordant", "--ties", help="discordant: a tie counts against the metric (WMT "
                             "challenge-set evaluation); ignore: ties in neither count (SMAUG eq. 1 as written)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
):
    """Kendall-like tau and d (SMAUG eq. 1-2) per metric, phenomenon and lp; mean ± std of tau over lps
    (SMAUG Figures 4-7) and the Pearson correlation of tau and d over (metric, lp) points (Figure 8)."""
    ctx.with_resource(budget(max_cost, max_requests))  # openai: requests below pass it (exit 3)
    import pandas as pd

    from mtgauntlet.evaluation.metric_robustness import (TIES, evaluate, filter_pairs, load_pairs, score_pairs,
                                                         tau_d_correlation, tau_over_lps)

    if ties not in TIES:
        fail(f"--ties must be one of {', '.join(TIES)}, not {ties!r}")
    specs = metric_specs(metric)
    if not specs:
        fail("--metric: no metric given")
    pairs = filter_pairs(load_pairs(set), comma_list(lp), comma_list(phenomena))
    if not pairs.good:
        fail("no pairs left after --lp/--phenomena filtering")
    same = sum(g.split() == r.split() for g, r in zip(pairs.good, pairs.ref) if r)
    skipped: dict[str, dict[str, str]] = {}
    results = []
    with Progress(want_bar(None), len(specs) * len(pairs.good), 0, "evaluate metric (pairs)", every=10.0) as bar:
        for spec in specs:
            skipped[spec] = {}
            with bar.unit(len(pairs.good)):  # score_pairs reports each language pair's scoring inside
                good, bad = score_pairs(pairs, spec, skipped[spec])
            results += [{"metric": spec, **r} for r in evaluate(pairs, good, bad, ties)]
    over_lps, corr = tau_over_lps(results), tau_d_correlation(results)
    tie_rule = ("ties counted as discordant (WMT challenge-set evaluation)" if ties == "discordant"
                else "ties ignored (SMAUG eq. 1 as written)")
    if json_out:
        keys = ("metric", "phenomenon", "lp", "n", "tau", "d", "concordant", "discordant", "ties")
        print_json({"metric": specs[0] if len(specs) == 1 else specs, "metrics": specs, "ties": ties,
                    "good_equals_ref": same, "skipped": {k: v for k, v in skipped.items() if v},
                    "results": [{k: r[k] for k in keys} for r in results],
                    "tau_over_lps": over_lps, "tau_d_correlation": corr})
        return
    print_frame(pd.DataFrame(results))
    for spec, why in skipped.items():
        for k, reason in why.items():
            typer.echo(f"skipped {spec} {k}: {reason}", err=True)
    typer.echo(f"tau = (C - D) / (C + D), {tie_rule}; d over concordant pairs, min-max normalised.")
    typer.echo("tau over language pairs (SMAUG Figures 4-7: mean ± sample std):")
    print_frame(pd.DataFrame([{"metric": a["metric"], "phenomenon": a["phenomenon"], "lps": a["lps"],
                               "tau": _pm(a["tau_mean"], a["tau_std"]), "d mean": a["d_mean"]} for a in over_lps]))
    if corr["pearson_r"] is None:
        typer.echo(f"Pearson r(tau, d) (SMAUG Figure 8): needs >= 3 (metric, lp) points with spread; have "
                   f"{corr['n_points']}")
    else:
        typer.echo(f"Pearson r(tau, d) over {corr['n_points']} (metric, lp) points (SMAUG Figure 8): "
                   f"{corr['pearson_r']:.4f}")
    if corr["left_out"]:
        typer.echo(f"left out of Figure 8: {corr['left_out']} (metric, phenomenon, lp) rows without a concordant "
                   "pair (d undefined)")
    if same and any(s in REFERENCE_BASED for s in specs):
        typer.echo(f"warning: {same} of {len(pairs.good)} pairs have good == reference: a reference-based metric "
                   "scores those good hypotheses as perfect matches", err=True)


def _pm(mean, std) -> str:
    if mean is None:
        return "n/a"
    return f"{mean:.3f}" + (f" ± {std:.3f}" if std is not None else " (one lp)")


def load_judgments(path: str, format: str | None, mapping: str | None, protocol: str | None,
                   quoting: str | None = None):
    """Judgment rows of a named layout or a plain table; human translations are kept and marked ``human``."""
    from mtgauntlet.corpora.formats import READERS, read_judgments, sniff_named_format
    from mtgauntlet.corpora.readers import parse_column_map

    named = format or sniff_named_format(path)
    if named in ("google-mqm", "wmt23-mtme", "wmt23-esa"):
        if protocol:
            fail(f"--protocol: the {named} layout has its own protocol")
        return READERS[named](path, keep_refs=True).rows
    return read_judgments(path, columns=parse_column_map(mapping), protocol=protocol, keep_refs=True,
                          quoting=quoting).rows


def judgment_summary(rows, include_human: bool) -> dict:
    """Which protocol each lp uses and where it came from; which human translations there are, and whether
    they count (the paper's DEC ranks items over MT systems and human translators)."""
    protocols: dict[str, set] = {}
    for r in rows:
        protocols.setdefault(r["lp"], set()).add(f"{r['protocol']} ({r.get('protocol_source', 'layout')})")
    human = sorted({r["system"] for r in rows if r.get("human")})
    return {"protocols": {lp: sorted(v) for lp, v in sorted(protocols.items())}, "include_human": include_human,
            "human_systems": human, "human_rows": sum(1 for r in rows if r.get("human"))}


@app.command("dec")
def evaluate_dec(
    ctx: typer.Context,
    judgments: str = typer.Option(..., "--judgments", "-j", help="Judgment table (lp,item_id,src,system,score[,tgt,protocol,is_human_ref]); gz ok; or google-mqm / wmt23-mtme / wmt23-esa files."),
    estimator: str = typer.Option("length", "--estimator", "-e", help="Difficulty estimator spec(s), comma-separated."),
    format: str = judgment_format_option(),
    map: str = typer.Option(None, "--map", help="Column mapping ours=theirs, e.g. score=esa_score_mean,item_id=line_id,human=is_ref."),
    protocol: str = typer.Option(None, help="esa, mqm or da for a plain table without a protocol column; inferred "
                                 "as mqm when every score is <= 0, required otherwise (%Perfect: 100 for esa/da, 0 for mqm)."),
    include_human: bool = typer.Option(True, "--include-human/--exclude-human", help="Count human translations as "
                                       "translators, as the paper's DEC does (default), or only MT systems."),
    lp: str = typer.Option(None, "--lp", help="Only these language pairs (comma-separated)."),
    fraction: float = typer.Option(0.25, min=0.01, max=1.0,
                                   help="Budget fraction for AvgScore / %Perfect of the hardest subset."),
    quoting: str = quoting_option(),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
):
    """Difficulty Estimation Correlation (group-by-system Kendall tau_b, averaged over systems then lps)."""
    ctx.with_resource(budget(max_cost, max_requests))  # openai: requests below pass it (exit 3)
    import pandas as pd

    from mtgauntlet.corpora.langs import split_lp
    from mtgauntlet.evaluation.dec import dec, score_sources, selection_quality, unique_sources
    from mtgauntlet.models import registry

    rows = load_judgments(judgments, format, map, protocol, quoting)
    if lp:
        keep = set(comma_list(lp))
        rows = [r for r in rows if r["lp"] in keep]
    info = judgment_summary(rows, include_human)
    if not include_human:
        rows = [r for r in rows if not r.get("human")]
    if not rows:
        fail(f"{judgments}: no judgments (after --lp / --exclude-human filtering)")
    results = []
    specs = comma_list(estimator)
    n_sources = sum(len(v) for v in unique_sources(rows).values())
    bar = Progress(want_bar(None), n_sources * len(specs), 0, "evaluate dec (sources)", every=10.0)
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
            fail(f"{spec}: no source could be scored ({sum(failures.values())} failures)")
        res = dec(rows, scores)
        sel = selection_quality(rows, scores, fraction)
        results.append({"estimator": spec, "dec": res["dec"], "per_lp": res["per_lp"], "systems": res["systems"],
                        "avg_score": sel["avg_score"], "perfect_pct": sel["perfect_pct"], "failures": failures})
    bar.close()
    if json_out:
        print_json({"judgments": judgments, "n": len(rows), "fraction": fraction, **info, "results": results})
    else:
        table = pd.DataFrame([{"estimator": r["estimator"], "DEC": r["dec"],
                               **{f"DEC {k}": v for k, v in r["per_lp"].items()},
                               f"AvgScore@{fraction:g}": r["avg_score"], f"%Perfect@{fraction:g}": r["perfect_pct"]}
                              for r in results])
        print_frame(table)
        systems = results[0]["systems"] if results else {}
        typer.echo("translators per lp: " + ", ".join(f"{k} {v}" for k, v in sorted(systems.items())))
        if info["human_systems"]:
            how = ("included, as in the paper (--exclude-human leaves them out)" if include_human
                   else "excluded (--exclude-human)")
            typer.echo(f"human translations: {how}: {', '.join(info['human_systems'])} ({info['human_rows']} rows)")
        else:
            typer.echo("human translations: none marked in the input (a plain table marks them with an "
                       "is_human_ref column, or --map human=COL)")
        typer.echo("protocol: " + "; ".join(f"{k} {', '.join(v)}" for k, v in info["protocols"].items()))
        for r in results:
            if r["failures"]:
                typer.echo(f"{r['estimator']}: sources without a score (left out): "
                           + ", ".join(f"{k} {v}" for k, v in sorted(r["failures"].items())))


@app.command("breaker")
def evaluate_breaker(
    ctx: typer.Context,
    set: str = typer.Option(..., "--set", "-s", help="Build/release dir(s) with breaker_text records, comma-separated "
                                                     "(e.g. one build per target language for --langs)."),
    plot: str = typer.Option(None, "--plot", help="Write the step curve (Figure 2) as PNG here."),
    mt: str = typer.Option(None, "--mt", help="Evaluation translators (comma-separated): the transfer matrix "
                                              "(Table 4); with --langs, the translators of Table 5."),
    qe: str = typer.Option(None, "--qe", help="QE spec(s) for --mt / --langs, comma-separated and averaged "
                                              "(default: the QE the set was built with)."),
    langs: str = typer.Option(None, "--langs", help="Target languages for the language-transfer table (Table 5), "
                                                    "comma-separated (default: the sets' own, when several)."),
    judge: str = typer.Option(None, "--judge", help="LLM spec: error-type diversity with the appendix's target-text "
                                                    "analysis prompt (Table 2, 'Diversity (errors)')."),
    embedder: str = typer.Option(None, "--embedder", help="Embedder spec (e.g. e5) for embedding diversity."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
):
    """Step curve (Figure 2), Table 2's data-quality measures per method, with --mt the model-transfer matrix
    (Table 4), with several target languages the language-transfer table (Table 5)."""
    ctx.with_resource(budget(max_cost, max_requests))  # openai: requests below pass it (exit 3)
    import pandas as pd

    from mtgauntlet.evaluation.breaker_analysis import (language_pair, language_transfer, plot_step_curve,
                                                        quality_table, step_curve, summary, transfer_matrix)
    from mtgauntlet.models import registry
    from mtgauntlet.records import load_records

    records = [r for path in comma_list(set) for r in load_records(path, kind="breaker_text").to_pylist()
               if r.get("trajectory") is not None]
    if not records:
        fail(f"{set}: no breaker_text records")
    qe_specs = qe or records[0].get("qe_model") or "qe"
    if not qe and records[0].get("qe_models"):
        qe_specs = records[0]["qe_models"]
    curve = step_curve(records)
    result = {**summary(records), "step_curve": curve,
              "table2": quality_table(records, judge=registry.load("llm", judge) if judge else None,
                                      embedder=registry.load("embedder", embedder) if embedder else None)}
    pairs = sorted({language_pair(r) for r in records})
    if len(pairs) > 1:  # each set in its own language pair: never one pooled row
        result["per_lp"] = {lp: {**summary(recs), "step_curve": step_curve(recs)}
                            for lp in pairs for recs in [[r for r in records if language_pair(r) == lp]]}
    if mt:
        result["transfer"] = transfer_matrix(records, comma_list(mt), qe_specs)
    targets = comma_list(langs) or sorted({r["tgt_lang"] for r in records})
    if len(targets) > 1:
        translators = comma_list(mt) or list(records[0].get("target_models") or ["apertium"])
        result["language_transfer"] = language_transfer(records, targets, translators, qe_specs)
    if plot:
        result["plot"] = str(plot_step_curve(curve, plot))
    if json_out:
        print_json(result)
        return
    print_frame(pd.DataFrame(curve))
    na = lambda v: "n/a" if v is None else f"{v:.2f}"  # noqa: E731
    typer.echo(f"items: {result['items']}  step-0 mean QE: {na(result['start_mean_qe'])}  "
               f"selected (final) mean QE: {na(result['final_mean_qe'])}  "
               f"items where an edit beat step 0: {result['items_improved']}\n"
               f"edit steps: {result['edit_steps']}  their mean QE: {na(result['edit_mean_qe'])}  "
               f"unusable LLM answers: {result['llm_failures']} (truncated: {result['truncated']})  "
               f"steps without translation: {result['mt_failures']}  without QE score: {result['qe_failures']}")
    typer.echo("Table 2 measures per method (chrF++ nw:2 diversity; QE variance over all scored steps):")
    print_frame(pd.DataFrame(result["table2"]).T.reset_index(names="method"))
    for lp, numbers in result.get("per_lp", {}).items():
        typer.echo(f"{lp}: items {numbers['items']}  step-0 mean QE: {na(numbers['start_mean_qe'])}  "
                   f"selected mean QE: {na(numbers['final_mean_qe'])}  edits that beat step 0: "
                   f"{numbers['items_improved']}")
    for lp, matrix in result.get("transfer", {}).items():
        typer.echo(f"Transfer between MT models (Table 4), {lp}: mean QE, rows = built against, columns = "
                   "evaluated on")
        print_frame(pd.DataFrame(matrix).T.reset_index(names="built against"))
    if "language_transfer" in result:
        typer.echo("Transfer between languages (Table 5): mean QE, rows = built for, columns = translated into")
        print_frame(pd.DataFrame(result["language_transfer"]).T.reset_index(names="built for"))
    if plot:
        typer.echo(f"plot: {plot}")


@app.command("bandit")
def evaluate_bandit(
    pool: str = typer.Option(..., "--pool", help="Pre-scored pool: a `build bandit --prescore N` output directory, "
                                                 "or a table with topic and difficulty columns."),
    algorithms: str = typer.Option("brute,greedy,eps-greedy,greedy-10%", "--algorithms",
                                   help="brute, greedy, eps-greedy, contextual (slow on large pools), ucb, "
                                        "greedy-10% (greedy on a random 10% of the topics, the paper's baseline)."),
    budgets: str = typer.Option(None, "--budgets", help="Budgets in pulls, comma-separated (default: 0.25, 0.5, 1, "
                                                        "1.5, 2 and 3 pulls per topic)."),
    k: int = typer.Option(10, "--k", help="Size of the selected topic set (top-k)."),
    cap: int = typer.Option(10, "--cap", help="Max pulls per topic (the paper's c; 0 = no cap)."),
    epsilon: float = typer.Option(0.7, "--epsilon", help="eps-greedy: probability of exploring (paper: 0.7)."),
    repeats: int = typer.Option(5, "--repeats", help="Replays per algorithm (sample order and choices re-drawn)."),
    seed: int = typer.Option(13, "--seed", help="Random seed of the replays."),
    plot: str = typer.Option(None, "--plot", help="PNG: true top-1 / top-k difficulty vs budget (Figure 2)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Replay bandit algorithms over a pre-scored pool and report the TRUE mean difficulty (mean of all pooled
    samples) of the top-1 and top-k topics they select at each budget (the bandit paper's Figure 2 protocol)."""
    import math

    import pandas as pd

    from mtgauntlet.evaluation.bandit_replay import DEFAULT_PULLS_PER_TOPIC, load_pool, plot as plot_replay, replay

    topics, missing = load_pool(pool)
    if budgets:
        try:
            bs = [int(b) for b in comma_list(budgets)]
        except ValueError:
            fail(f"--budgets takes comma-separated integers (pulls), not {budgets!r}")
    else:
        bs = [max(1, round(f * len(topics))) for f in DEFAULT_PULLS_PER_TOPIC]
    result = replay(topics, comma_list(algorithms), bs, k=k, cap=math.inf if not cap else cap, epsilon=epsilon,
                    repeats=repeats, seed=seed)
    result["unscored_samples_left_out"] = missing
    if plot:
        result["plot"] = str(plot_replay(result, plot))
    if json_out:
        print_json(result)
        return
    o = result["oracle"]
    typer.echo(f"pool: {result['topics']} topics, {result['samples']} scored samples ({missing} unscored left out); "
               f"oracle top-1 {o['top1']:.2f}, top-{k} {o['topk']:.2f}")
    table = pd.DataFrame([{"budget": r["budget"], "pulls/topic": r["pulls_per_topic"],
                           **{f"{a} top-1": v["top1"] for a, v in r.items() if isinstance(v, dict)},
                           **{f"{a} top-{k}": v["topk"] for a, v in r.items() if isinstance(v, dict)}}
                          for r in result["rows"]])
    print_frame(table)
    typer.echo(f"true difficulty = mean of all pooled samples of a topic; mean over {repeats} replays")
    if plot:
        typer.echo(f"plot: {plot}")
