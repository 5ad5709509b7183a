"""`gauntlet evaluate`: metric robustness on challenge pairs; difficulty estimators (DEC)."""

from __future__ import annotations

from typing import List, Optional

import typer

from mtgauntlet.cli.common import judgment_format_option, print_frame, print_json, quoting_option
from mtgauntlet.cli.spend import max_cost_option, max_requests_option
from mtgauntlet.runner.progress import info

app = typer.Typer(help="Evaluate metrics on challenge sets, or difficulty estimators on judgments.",
                  no_args_is_help=True)


@app.command("metric")
def evaluate_metric(
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
    import pandas as pd

    from mtgauntlet.api.evaluating import evaluate_metric as run

    res = run(set=set, metric=metric, lp=lp, phenomena=phenomena, ties=ties, max_cost=max_cost,
              max_requests=max_requests, progress=None)
    if json_out:
        return print_json(res)
    print_frame(pd.DataFrame(res["results"]))
    for spec, why in res["skipped"].items():
        for k, reason in why.items():
            info(f"skipped {spec} {k}: {reason}")
    tie_rule = ("ties counted as discordant (WMT challenge-set evaluation)" if ties == "discordant"
                else "ties ignored (SMAUG eq. 1 as written)")
    typer.echo(f"tau = (C - D) / (C + D), {tie_rule}; d over concordant pairs, min-max normalised.")
    typer.echo("tau over language pairs (SMAUG Figures 4-7: mean ± sample std):")
    print_frame(pd.DataFrame([{"metric": a["metric"], "phenomenon": a["phenomenon"], "lps": a["lps"],
                               "tau": _pm(a["tau_mean"], a["tau_std"]), "d mean": a["d_mean"]}
                              for a in res["tau_over_lps"]]))
    corr = res["tau_d_correlation"]
    if corr["pearson_r"] is None:
        typer.echo(f"Pearson r(tau, d) (SMAUG Figure 8): needs >= 3 (metric, lp) points with spread; have "
                   f"{corr['n_points']}")
    else:
        typer.echo(f"Pearson r(tau, d) over {corr['n_points']} (metric, lp) points (SMAUG Figure 8): "
                   f"{corr['pearson_r']:.4f}")
    typer.echo(f"Figure 8 terms: tau over {corr['tau_terms']}, d over {corr['d_terms']} (metric, phenomenon, lp) "
               f"rows; {corr['left_out']} without a concordant pair left only the d mean (d undefined)")


def _pm(mean, std) -> str:
    if mean is None:
        return "n/a"
    return f"{mean:.3f}" + (f" ± {std:.3f}" if std is not None else " (one lp)")


@app.command("dec")
def evaluate_dec(
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
    import pandas as pd

    from mtgauntlet.api.evaluating import evaluate_dec as run

    res = run(judgments=judgments, estimator=estimator, format=format, map=map, protocol=protocol,
              include_human=include_human, lp=lp, fraction=fraction, quoting=quoting, max_cost=max_cost,
              max_requests=max_requests, progress=None)
    if json_out:
        return print_json(res)
    results = res["results"]
    print_frame(pd.DataFrame([{"estimator": r["estimator"], "DEC": r["dec"],
                               **{f"DEC {k}": v for k, v in r["per_lp"].items()},
                               f"AvgScore@{fraction:g}": r["avg_score"], f"%Perfect@{fraction:g}": r["perfect_pct"]}
                              for r in results]))
    systems = results[0]["systems"] if results else {}
    typer.echo("translators per lp: " + ", ".join(f"{k} {v}" for k, v in sorted(systems.items())))
    if res["human_systems"]:
        how = ("included, as in the paper (--exclude-human leaves them out)" if include_human
               else "excluded (--exclude-human)")
        typer.echo(f"human translations: {how}: {', '.join(res['human_systems'])} ({res['human_rows']} rows)")
    else:
        typer.echo("human translations: none marked in the input (a plain table marks them with an "
                   "is_human_ref column, or --map human=COL)")
    typer.echo("protocol: " + "; ".join(f"{k} {', '.join(v)}" for k, v in res["protocols"].items()))
    for r in results:
        if r["failures"]:
            typer.echo(f"{r['estimator']}: sources without a score (left out): "
                       + ", ".join(f"{k} {v}" for k, v in sorted(r["failures"].items())))


@app.command("breaker")
def evaluate_breaker(
    set: str = typer.Option(..., "--set", "-s", help="Build/release dir(s) with breaker_text records, comma-separated "
                                                     "(e.g. one build per target language for --langs)."),
    plot: str = typer.Option(None, "--plot", help="Write the step curve (Figure 2) as PNG here."),
    mt: str = typer.Option(None, "--mt", help="Evaluation translators (comma-separated): the transfer matrix "
                                              "(Table 4); with --langs, the translators of Table 5."),
    qe: str = typer.Option(None, "--qe", help="QE spec(s) for --mt / --langs, comma-separated and averaged "
                                              "(default: the QE the set was built with)."),
    langs: str = typer.Option(None, "--langs", help="Target languages for the language-transfer table (Table 5), "
                                                    "comma-separated (default: the sets' own, when several)."),
    judge: str = typer.Option(None, "--judge", help="LLM spec: the appendix's source-text analysis (Table 2's "
                                                    "naturalness, topic diversity, LLM-rated grammaticality, rarity, "
                                                    "syntax) and target-text analysis (error-type diversity) prompts."),
    embedder: str = typer.Option(None, "--embedder", help="Embedder spec (e.g. e5) for embedding diversity."),
    lm: bool = typer.Option(False, "--lm", help="Also compute LM naturalness with the embedded LLM (offline; slow)."),
    difficulty: str = typer.Option(None, "--difficulty", help="Source-only difficulty estimator spec(s), "
                                                              "comma-separated (e.g. learned, sentinel:...): their "
                                                              "mean per method, in place of the paper's SRCQE row."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    max_cost: Optional[float] = max_cost_option(),
    max_requests: Optional[int] = max_requests_option(),
):
    """Step curve (Figure 2), Table 2's data-quality measures per method, with --mt the model-transfer matrix
    (Table 4), with several target languages the language-transfer table (Table 5)."""
    import pandas as pd

    from mtgauntlet.api.evaluating import evaluate_breaker as run

    result = run(set=set, plot=plot, mt=mt, qe=qe, langs=langs, judge=judge, embedder=embedder, lm=lm,
                 difficulty=difficulty, max_cost=max_cost, max_requests=max_requests, progress=None)
    if json_out:
        return print_json(result)
    print_frame(pd.DataFrame(result["step_curve"]))
    na = lambda v: "n/a" if v is None else f"{v:.2f}"  # noqa: E731
    typer.echo(f"items: {result['items']}  step-0 mean QE: {na(result['start_mean_qe'])}  "
               f"selected (final) mean QE: {na(result['final_mean_qe'])}  "
               f"items where an edit beat step 0: {result['items_improved']}\n"
               f"edit steps: {result['edit_steps']}  their mean QE: {na(result['edit_mean_qe'])}  "
               f"unusable LLM answers: {result['llm_failures']} (truncated: {result['truncated']})  "
               f"steps without translation: {result['mt_failures']}  without QE score: {result['qe_failures']}")
    typer.echo("Table 2 (rows: measures, columns: methods as in the paper; chrF++ nw:2 diversity; QE variance over "
               "all scored steps):")
    print_frame(pd.DataFrame(result["table2"]).reset_index(names="measure"))
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
    min_samples: int = typer.Option(25, "--min-samples", min=1, help="Leave out (and count) topics with fewer scored "
                                                                     "samples (the paper: 25)."),
    plot: str = typer.Option(None, "--plot", help="PNG: true top-1 / top-k difficulty vs budget (Figure 2)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Replay bandit algorithms over a pre-scored pool and report the TRUE mean difficulty (mean of all pooled
    samples) of the top-1 and top-k topics they select at each budget (the bandit paper's Figure 2 protocol)."""
    import pandas as pd

    from mtgauntlet.api.evaluating import evaluate_bandit as run

    result = run(pool=pool, algorithms=algorithms, budgets=budgets, k=k, cap=cap, epsilon=epsilon, repeats=repeats,
                 seed=seed, min_samples=min_samples, plot=plot, progress=None)
    if json_out:
        return print_json(result)
    missing = result["unscored_samples_left_out"]
    o = result["oracle"]
    typer.echo(f"pool: {result['topics']} topics, {result['samples']} scored samples ({missing} unscored left out; "
               f"{result['small_topics_left_out']} topics under {min_samples} samples left out); "
               f"oracle top-1 {o['top1']:.2f}, top-{k} {o['topk']:.2f}")
    table = pd.DataFrame([{"budget": r["budget"], "pulls/topic": r["pulls_per_topic"],
                           **{f"{a} top-1": v["top1"] for a, v in r.items() if isinstance(v, dict)},
                           **{f"{a} top-{k}": v["topk"] for a, v in r.items() if isinstance(v, dict)}}
                          for r in result["rows"]])
    print_frame(table)
    typer.echo(f"true difficulty = mean of all pooled samples of a topic; mean over {repeats} replays")
    if plot:
        typer.echo(f"plot: {plot}")
