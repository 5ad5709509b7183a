"""`gauntlet simulate bandit`: synthetic topic search at scale."""

from __future__ import annotations

from typing import Optional

import typer

from mtgauntlet.cli.common import print_json

app = typer.Typer(help="Simulations.", no_args_is_help=True)


@app.command("bandit")
def simulate_bandit(
    topics: int = typer.Option(1_000_000, "--topics", min=1, help="Number of synthetic topics."),
    budget: int = typer.Option(1_500_000, "--budget", min=1, help="Pulls (cost 1 each)."),
    algorithms: str = typer.Option("eps-greedy,greedy,brute", "--algorithms", help="brute, greedy, eps-greedy, ucb."),
    k: int = typer.Option(10, "--k", min=1, help="Size of the selected topic set (top-k)."),
    cap: Optional[int] = typer.Option(10, "--cap", min=0, help="Max pulls per topic (the paper's c; 0 = no cap)."),
    epsilon: float = typer.Option(0.7, "--epsilon", min=0.0, max=1.0,
                                  help="eps-greedy: probability of exploring an unsampled topic."),
    batch: int = typer.Option(1, "--batch", min=1, help="Topics chosen per step (batched variants)."),
    sigma: Optional[float] = typer.Option(None, "--sigma", min=0.0, help="Within-topic sd (default: mixture's)."),
    fit: Optional[str] = typer.Option(None, "--fit", help="Fit the mixture to a real search's output dir (pull log)."),
    sizes: Optional[str] = typer.Option(None, "--sizes", help="Only the oracle top-1/top-k at these topic-set sizes "
                                                              "(comma-separated, e.g. 3200,32000,320000; Figure 5)."),
    seed: int = typer.Option(13, "--seed", help="Seed of the topic sample and of the algorithms."),
    plot: Optional[str] = typer.Option(None, "--plot", help="PNG: top-k difficulty vs budget (0.5/1/1.5/3 pulls per "
                                                            "topic) and the topic-difficulty mixture."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Compare algorithms against the oracle top-k at equal budgets on synthetic topics."""
    from mtgauntlet.api.evaluating import simulate_bandit as run

    res = run(topics=topics, budget=budget, algorithms=algorithms, k=k, cap=cap, epsilon=epsilon, batch=batch,
              sigma=sigma, fit=fit, sizes=sizes, seed=seed, plot=plot, progress=None)
    if json_out:
        return print_json(res)
    if "scaling" in res:
        typer.echo(f"{'topics':>12}  {'oracle top-1':>12}  {'oracle top-' + str(k):>13}")
        for r in res["scaling"]:
            typer.echo(f"{r['topics']:>12,}  {r['oracle_top1']:>12.2f}  {r['oracle_topk']:>13.2f}")
        return
    typer.echo(f"oracle top-{k} mean difficulty: {res['oracle_topk_mean']:.2f}  (top-1 {res['oracle_top1']:.2f})")
    for name, r in res["algorithms"].items():
        if "skipped" in r:
            typer.echo(f"  {name:<11} skipped: {r['skipped']}")
        else:
            typer.echo(f"  {name:<11} top-{k} true mean {r['topk_true_mean']:.2f}  top-1 {r['top1_true']:.2f}  "
                       f"pulls {r['pulls']:,}  "
                       f"{r['seconds']:.2f} s  {r['pulls_per_s']:,.0f} pulls/s")
    if plot:
        typer.echo(f"plot: {plot}")
