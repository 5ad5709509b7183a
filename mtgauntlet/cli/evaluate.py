"""`gauntlet evaluate`: metric robustness on challenge pairs; difficulty estimators (DEC); MT-breaker analysis;
bandit replays. Each command's options are declared once (`mtgauntlet.api.evaluate_options`); its handler prints
the API function's result as tables (or ``--json``)."""

from __future__ import annotations

from typing import Any

import typer

from mtgauntlet.api.evaluate_options import (
    EvaluateBanditOptions,
    EvaluateBreakerOptions,
    EvaluateDecOptions,
    EvaluateMetricOptions,
)
from mtgauntlet.cli.common import json_or_result, print_frame, print_json
from mtgauntlet.cli.declared import command, json_flag
from mtgauntlet.core.progress import info
from mtgauntlet.options import Declared

app = typer.Typer(
    help="Evaluate metrics on challenge sets, or difficulty estimators on judgments.", no_args_is_help=True
)


def _metric(p: dict[str, Any]) -> None:
    from mtgauntlet.api.evaluating import evaluate_metric as run

    json_out = p.pop("json_out")
    res = run(**p, progress=None)
    if p.get("out") is not None:
        return _print_catalog_run(res, json_out)
    if json_out:
        return print_json(res)
    import pandas as pd  # the tables printed (not needed by a catalog run or --json)

    print_frame(pd.DataFrame(res["results"]))
    for spec, why in res["skipped"].items():
        for k, reason in why.items():
            info(f"skipped {spec} {k}: {reason}")
    tie_rule = (
        "ties counted as discordant (WMT challenge-set evaluation)"
        if p["ties"] == "discordant"
        else "ties ignored (SMAUG eq. 1 as written)"
    )
    typer.echo(f"tau = (C - D) / (C + D), {tie_rule}; d over concordant pairs, min-max normalised.")
    typer.echo("tau over language pairs (SMAUG Figures 4-7: mean ± sample std):")
    print_frame(
        pd.DataFrame(
            [
                {
                    "metric": a["metric"],
                    "phenomenon": a["phenomenon"],
                    "lps": a["lps"],
                    "tau": _pm(a["tau_mean"], a["tau_std"]),
                    "d mean": a["d_mean"],
                }
                for a in res["tau_over_lps"]
            ]
        )
    )
    corr = res["tau_d_correlation"]
    if corr["pearson_r"] is None:
        typer.echo(
            f"Pearson r(tau, d) (SMAUG Figure 8): needs >= 3 (metric, lp) points with spread; have {corr['n_points']}"
        )
    else:
        typer.echo(
            f"Pearson r(tau, d) over {corr['n_points']} (metric, lp) points (SMAUG Figure 8): {corr['pearson_r']:.4f}"
        )
    typer.echo(
        f"Figure 8 terms: tau over {corr['tau_terms']}, d over {corr['d_terms']} (metric, phenomenon, lp) "
        f"rows; {corr['left_out']} without a concordant pair left only the d mean (d undefined)"
    )


def _print_catalog_run(res: dict, json_out: bool) -> None:
    if json_out:
        return print_json({k: v for k, v in res.items() if k != "statistics"})
    import pandas as pd

    print_frame(
        pd.DataFrame(
            [{"metric": m, **{k: v for k, v in c.items() if k != "signature"}} for m, c in res["metrics"].items()]
        )
    )
    typer.echo(
        f"{len(res['sets'])} sets; {res['scores']} scores and {res['leaderboard_rows']} leaderboard rows "
        f'stored in {res["out"]} (gauntlet query --results {res["out"]} "SELECT * FROM leaderboard")'
    )


def _pm(mean, std) -> str:
    if mean is None:
        return "n/a"
    return f"{mean:.3f}" + (f" ± {std:.3f}" if std is not None else " (one lp)")


def _dec(p: dict[str, Any]) -> None:
    import pandas as pd

    from mtgauntlet.api.evaluating import evaluate_dec as run

    res = json_or_result(run, p)
    if res is None:
        return
    fraction, include_human = p["fraction"], p["include_human"]
    results = res["results"]
    print_frame(
        pd.DataFrame(
            [
                {
                    "estimator": r["estimator"],
                    "DEC": r["dec"],
                    **{f"DEC {k}": v for k, v in r["per_lp"].items()},
                    f"AvgScore@{fraction:g}": r["avg_score"],
                    f"%Perfect@{fraction:g}": r["perfect_pct"],
                }
                for r in [*results, *res["oracles"]]
            ]
        )
    )
    typer.echo(
        f"selection: {res['selection']} (estimators); the oracles: source text + target lang per pair, source text "
        "only as one source set (--selection source-set: Sentinel section 6.1)"
    )
    if "units" in res:
        typer.echo(f"length: {res['units']['length']}")
    systems = results[0]["systems"] if results else {}
    typer.echo("translators per lp: " + ", ".join(f"{k} {v}" for k, v in sorted(systems.items())))
    if res["human_systems"]:
        how = (
            "included, as in the paper (--exclude-human leaves them out)"
            if include_human
            else "excluded (--exclude-human)"
        )
        typer.echo(f"human translations: {how}: {', '.join(res['human_systems'])} ({res['human_rows']} rows)")
    else:
        typer.echo(
            "human translations: none marked in the input (a plain table marks them with an "
            "is_human_ref column, or --map human=COL)"
        )
    typer.echo("protocol: " + "; ".join(f"{k} {', '.join(v)}" for k, v in res["protocols"].items()))
    for r in results:
        if r["failures"]:
            typer.echo(
                f"{r['estimator']}: sources without a score (left out): "
                + ", ".join(f"{k} {v}" for k, v in sorted(r["failures"].items()))
            )


def _breaker(p: dict[str, Any]) -> None:
    import pandas as pd

    from mtgauntlet.api.evaluating import evaluate_breaker as run

    result = json_or_result(run, p)
    if result is None:
        return
    print_frame(pd.DataFrame(result["step_curve"]))
    na = lambda v: "n/a" if v is None else f"{v:.2f}"  # noqa: E731
    typer.echo(
        f"items: {result['items']}  step-0 mean QE: {na(result['start_mean_qe'])}  "
        f"selected (final) mean QE: {na(result['final_mean_qe'])}  "
        f"items where an edit beat step 0: {result['items_improved']}\n"
        f"edit steps: {result['edit_steps']}  their mean QE: {na(result['edit_mean_qe'])}  "
        f"unusable LLM answers: {result['llm_failures']} (truncated: {result['truncated']})  "
        f"steps without translation: {result['mt_failures']}  without QE score: {result['qe_failures']}"
    )
    typer.echo(
        "Table 2 (rows: measures, columns: methods as in the paper; chrF++ nw:2 diversity; QE variance over "
        "all scored steps):"
    )
    print_frame(pd.DataFrame(result["table2"]).reset_index(names="measure"))
    for lp, numbers in result.get("per_lp", {}).items():
        typer.echo(
            f"{lp}: items {numbers['items']}  step-0 mean QE: {na(numbers['start_mean_qe'])}  "
            f"selected mean QE: {na(numbers['final_mean_qe'])}  edits that beat step 0: "
            f"{numbers['items_improved']}"
        )
    for lp, matrix in result.get("transfer", {}).items():
        typer.echo(f"Transfer between MT models (Table 4), {lp}: mean QE, rows = built against, columns = evaluated on")
        print_frame(pd.DataFrame(matrix).T.reset_index(names="built against"))
    if "language_transfer" in result:
        typer.echo("Transfer between languages (Table 5): mean QE, rows = built for, columns = translated into")
        print_frame(pd.DataFrame(result["language_transfer"]).T.reset_index(names="built for"))
    if p["plot"]:
        typer.echo(f"plot: {p['plot']}")


def _bandit(p: dict[str, Any]) -> None:
    import pandas as pd

    from mtgauntlet.api.evaluating import evaluate_bandit as run

    result = json_or_result(run, p)
    if result is None:
        return
    k, min_samples, repeats, plot = p["k"], p["min_samples"], p["repeats"], p["plot"]
    missing = result["unscored_samples_left_out"]
    o = result["oracle"]
    typer.echo(
        f"pool: {result['topics']} topics, {result['samples']} scored samples ({missing} unscored left out; "
        f"{result['small_topics_left_out']} topics under {min_samples} samples left out); "
        f"oracle top-1 {o['top1']:.2f}, top-{k} {o['topk']:.2f}"
    )
    table = pd.DataFrame(
        [
            {
                "budget": r["budget"],
                "pulls/topic": r["pulls_per_topic"],
                **{f"{a} top-1": v["top1"] for a, v in r.items() if isinstance(v, dict)},
                **{f"{a} top-{k}": v["topk"] for a, v in r.items() if isinstance(v, dict)},
            }
            for r in result["rows"]
        ]
    )
    print_frame(table)
    typer.echo(f"true difficulty = mean of all pooled samples of a topic; mean over {repeats} replays")
    if plot:
        typer.echo(f"plot: {plot}")


def _json(after: str) -> dict[str, tuple[str, Declared]]:
    return {"json_out": (after, json_flag(help="Print JSON."))}


command(app, "metric", EvaluateMetricOptions, _metric, extra=_json("ties"))
command(app, "dec", EvaluateDecOptions, _dec, extra=_json("out"))
command(app, "breaker", EvaluateBreakerOptions, _breaker, extra=_json("difficulty"))
command(app, "bandit", EvaluateBanditOptions, _bandit, extra=_json("plot"))
