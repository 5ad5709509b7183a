"""`gauntlet evaluate`: metric robustness on challenge pairs; difficulty estimators (DEC)."""

from __future__ import annotations

import typer

from mtgauntlet.cli.common import comma_list, fail, print_frame, print_json

app = typer.Typer(help="Evaluate metrics on challenge sets, or difficulty estimators on judgments.",
                  no_args_is_help=True)


@app.command("metric")
def evaluate_metric(
    set: str = typer.Option(..., "--set", "-s", help="Build/release dir or Parquet of smaug_pair, DEMETR JSONL or ACES TSV."),
    metric: str = typer.Option("chrf", "--metric", "-m", help="chrf, bleu, col:GOODCOL,BADCOL, or a QE spec (qe, roundtrip, comet:..., llm-as-qe:...)."),
    lp: str = typer.Option(None, "--lp", help="Only these language pairs (comma-separated, e.g. es-en,de-en)."),
    phenomena: str = typer.Option(None, "--phenomena", help="Only these phenomena (comma-separated)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Kendall-like tau (ties count as discordant, as WMT challenge sets) and d (SMAUG eq. 2) per phenomenon and lp."""
    import pandas as pd

    from mtgauntlet.evaluation.metric_robustness import evaluate, filter_pairs, load_pairs, score_pairs

    pairs = filter_pairs(load_pairs(set), comma_list(lp), comma_list(phenomena))
    if not pairs.good:
        fail("no pairs left after --lp/--phenomena filtering")
    skipped: dict[str, str] = {}
    good, bad = score_pairs(pairs, metric, skipped)
    results = evaluate(pairs, good, bad)
    if json_out:
        print_json({"metric": metric, "ties": "discordant", "skipped": skipped,
                    "results": [{k: r[k] for k in ("phenomenon", "lp", "n", "tau", "d")} for r in results]})
    else:
        print_frame(pd.DataFrame(results))
        for k, why in skipped.items():
            typer.echo(f"skipped {k}: {why}", err=True)
        typer.echo("tau = (C - D) / (C + D), ties counted as discordant; d over concordant pairs, min-max normalised.")


def load_judgments(path: str, format: str | None, mapping: str | None, protocol: str | None):
    from mtgauntlet.corpora.formats import READERS, read_judgments, sniff_named_format
    from mtgauntlet.corpora.readers import parse_column_map

    named = format or sniff_named_format(path)
    if named in ("google-mqm", "wmt23-mtme", "wmt23-esa"):
        return READERS[named](path).rows
    return read_judgments(path, columns=parse_column_map(mapping), protocol=protocol).rows


@app.command("dec")
def evaluate_dec(
    judgments: str = typer.Option(..., "--judgments", "-j", help="Judgment table (lp,item_id,src,system,score[,tgt,protocol]); gz ok; or google-mqm / wmt23-mtme / wmt23-esa files."),
    estimator: str = typer.Option("length", "--estimator", "-e", help="Difficulty estimator spec(s), comma-separated."),
    format: str = typer.Option(None, "--format", help="google-mqm, wmt23-mtme, wmt23-esa, or a plain table format."),
    map: str = typer.Option(None, "--map", help="Column mapping ours=theirs, e.g. score=esa_score_mean,item_id=line_id."),
    protocol: str = typer.Option(None, help="esa, mqm or da when the file has no protocol column."),
    lp: str = typer.Option(None, "--lp", help="Only these language pairs (comma-separated)."),
    fraction: float = typer.Option(0.25, help="Budget fraction for AvgScore / %Perfect of the hardest subset."),
    json_out: bool = typer.Option(False, "--json"),
):
    """Difficulty Estimation Correlation (group-by-system Kendall tau_b, averaged over systems then lps)."""
    import pandas as pd

    from mtgauntlet.corpora.langs import split_lp
    from mtgauntlet.evaluation.dec import dec, score_sources, selection_quality
    from mtgauntlet.models import registry

    rows = load_judgments(judgments, format, map, protocol)
    if lp:
        keep = set(comma_list(lp))
        rows = [r for r in rows if r["lp"] in keep]
    if not rows:
        fail(f"{judgments}: no judgments (after --lp filtering)")
    results = []
    for spec in comma_list(estimator):
        est = registry.load("difficulty", spec)

        def fn(texts, pair, est=est):
            s, t = split_lp(pair)
            return est.difficulty(texts, src_lang=s, tgt_lang=t)

        scores = score_sources(rows, fn)
        res = dec(rows, scores)
        sel = selection_quality(rows, scores, fraction)
        results.append({"estimator": spec, "dec": res["dec"], "per_lp": res["per_lp"],
                        "avg_score": sel["avg_score"], "perfect_pct": sel["perfect_pct"]})
    if json_out:
        print_json({"judgments": judgments, "n": len(rows), "fraction": fraction, "results": results})
    else:
        table = pd.DataFrame([{"estimator": r["estimator"], "DEC": r["dec"],
                               **{f"DEC {k}": v for k, v in r["per_lp"].items()},
                               f"AvgScore@{fraction:g}": r["avg_score"], f"%Perfect@{fraction:g}": r["perfect_pct"]}
                              for r in results])
        print_frame(table)


@app.command("breaker")
def evaluate_breaker(
    set: str = typer.Option(..., "--set", "-s", help="Build/release dir with breaker_text records."),
    plot: str = typer.Option(None, "--plot", help="Write the step curve (Figure 2) as PNG here."),
    mt: str = typer.Option(None, "--mt", help="Evaluation translators for the transfer matrix (comma-separated)."),
    qe: str = typer.Option("qe", "--qe"),
    json_out: bool = typer.Option(False, "--json"),
):
    """Step curve (mean and cumulative-min QE per step) and, with --mt, the transfer matrix (Table 4)."""
    import pandas as pd

    from mtgauntlet.records import load_records
    from mtgauntlet.evaluation.breaker_analysis import plot_step_curve, step_curve, summary, transfer_matrix

    records = [r for r in load_records(set, kind="breaker_text").to_pylist() if r.get("trajectory") is not None]
    if not records:
        fail(f"{set}: no breaker_text records")
    curve = step_curve(records)
    result = {**summary(records), "step_curve": curve}
    if mt:
        result["transfer"] = transfer_matrix(records, comma_list(mt), qe, records[0]["src_lang"],
                                             records[0]["tgt_lang"])
    if plot:
        result["plot"] = str(plot_step_curve(curve, plot))
    if json_out:
        print_json(result)
    else:
        print_frame(pd.DataFrame(curve))
        edit_qe = "n/a" if result["edit_mean_qe"] is None else f"{result['edit_mean_qe']:.2f}"
        typer.echo(f"items: {result['items']}  step-0 mean QE: {result['start_mean_qe']:.2f}  "
                   f"selected (final) mean QE: {result['final_mean_qe']:.2f}  "
                   f"items where an edit beat step 0: {result['items_improved']}\n"
                   f"edit steps: {result['edit_steps']}  their mean QE: {edit_qe}  "
                   f"unusable LLM answers: {result['llm_failures']}")
        if mt:
            print_frame(pd.DataFrame(result["transfer"]).T.reset_index(names="built against"))
        if plot:
            typer.echo(f"plot: {plot}")
