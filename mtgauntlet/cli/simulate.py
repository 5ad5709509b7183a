"""`gauntlet simulate bandit`: synthetic topic search at scale."""

from __future__ import annotations

from typing import Any

import typer

from mtgauntlet.api.evaluate_options import SimulateBanditOptions
from mtgauntlet.cli.common import json_or_result
from mtgauntlet.cli.declared import command, json_flag

app = typer.Typer(help="Simulations.", no_args_is_help=True)


def _bandit(p: dict[str, Any]) -> None:
    """Print ``gauntlet simulate bandit``: the oracle and each algorithm, or the oracle per topic-set size."""
    from mtgauntlet.api.simulating import simulate_bandit as run

    res = json_or_result(run, p)
    if res is None:
        return
    k, plot = p["k"], p["plot"]
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
            typer.echo(
                f"  {name:<11} top-{k} true mean {r['topk_true_mean']:.2f}  top-1 {r['top1_true']:.2f}  "
                f"pulls {r['pulls']:,}  "
                f"{r['seconds']:.2f} s  {r['pulls_per_s']:,.0f} pulls/s"
            )
    if plot:
        typer.echo(f"plot: {plot}")


command(
    app,
    "bandit",
    SimulateBanditOptions,
    _bandit,
    extra={"json_out": ("plot", json_flag(help="Print JSON."))},
)
