"""`gauntlet simulate bandit`: synthetic topic search at scale."""

from __future__ import annotations

from typing import Optional

import typer

from mtgauntlet.cli.common import comma_list, print_json
from mtgauntlet.errors import GauntletError

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
    import math

    from mtgauntlet.builders.bandit.simulate import (SIM_ALGORITHMS, Mixture, budget_curve, fit_from_pull_log,
                                                     oracle_scaling, plot as plot_curve, simulate)

    mixture = fit_from_pull_log(fit) if fit else Mixture()
    if sigma is not None:
        mixture.sigma = sigma
    mix = {"weights": list(mixture.weights), "means": list(mixture.means), "sds": list(mixture.sds),
           "sigma": mixture.sigma, "fitted_from": mixture.fitted_from}
    if sizes:
        try:
            ns = [int(x) for x in comma_list(sizes)]
        except ValueError:
            raise GauntletError(f"--sizes takes comma-separated integers, not {sizes!r}") from None
        if not ns or min(ns) < k:
            raise GauntletError(f"--sizes needs topic-set sizes of at least --k ({k})")
        rows = oracle_scaling(ns, k=k, mixture=mixture, seed=seed)
        if json_out:
            print_json({"k": k, "scaling": rows, "mixture": mix})
            return
        typer.echo(f"{'topics':>12}  {'oracle top-1':>12}  {'oracle top-' + str(k):>13}")
        for r in rows:
            typer.echo(f"{r['topics']:>12,}  {r['oracle_top1']:>12.2f}  {r['oracle_topk']:>13.2f}")
        return
    if k > topics:
        raise GauntletError(f"--k {k} is more than --topics {topics}")
    algos = comma_list(algorithms)
    unknown = [a for a in algos if a not in SIM_ALGORITHMS]
    if unknown or not algos:
        raise GauntletError(f"--algorithms: unknown {', '.join(map(repr, unknown)) or 'empty list'}; choose from "
                            f"{', '.join(SIM_ALGORITHMS)}")
    capf = math.inf if not cap else cap
    res = simulate(topics, budget, algos, k=k, cap=capf, epsilon=epsilon, batch=batch, seed=seed, mixture=mixture)
    out = {"oracle_topk_mean": res.oracle_topk_mean, "oracle_top1": res.oracle_top1, "algorithms": res.algorithms,
           "mixture": mix}
    if plot:
        curve = budget_curve(topics, (0.5, 1.0, 1.5, 3.0), algos, k=k, cap=capf, epsilon=epsilon, batch=batch,
                             seed=seed, mixture=mixture)
        plot_curve(curve, plot, k=k)
        out["plot"] = plot
    if json_out:
        print_json(out)
        return
    typer.echo(f"oracle top-{k} mean difficulty: {res.oracle_topk_mean:.2f}  (top-1 {res.oracle_top1:.2f})")
    for name, r in res.algorithms.items():
        if "skipped" in r:
            typer.echo(f"  {name:<11} skipped: {r['skipped']}")
        else:
            typer.echo(f"  {name:<11} top-{k} true mean {r['topk_true_mean']:.2f}  top-1 {r['top1_true']:.2f}  "
                       f"pulls {r['pulls']:,}  "
                       f"{r['seconds']:.2f} s  {r['pulls_per_s']:,.0f} pulls/s")
    if plot:
        typer.echo(f"plot: {plot}")
