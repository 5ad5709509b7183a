"""Options of the commands that pay for API calls: ``--max-cost``, ``--max-requests`` (also global:
``gauntlet --max-cost ...``) and ``--dry-run`` (print the estimated calls, tokens and cost; send nothing)."""

from __future__ import annotations

from typing import Optional

import typer

from mtgauntlet.shared_options import DRY_RUN_HELP, MAX_COST_HELP, MAX_REQUESTS_HELP


def max_cost_option():
    return typer.Option(None, "--max-cost", min=0.0, help=MAX_COST_HELP)


def max_requests_option():
    return typer.Option(None, "--max-requests", min=0, help=MAX_REQUESTS_HELP)


def dry_run_option():
    return typer.Option(False, "--dry-run", help=DRY_RUN_HELP)


def print_plan(plan) -> None:
    for line in plan.lines():
        typer.echo(line)


def budget(max_cost: Optional[float], max_requests: Optional[int]):
    from mtgauntlet.models.usage import budget as scope

    return scope(max_cost, max_requests)
