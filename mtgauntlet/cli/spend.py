"""Options of the commands that pay for API calls: ``--max-cost``, ``--max-requests`` (also global:
``gauntlet --max-cost ...``) and ``--dry-run`` (print the estimated calls, tokens and cost; send nothing)."""

from __future__ import annotations

from typing import Optional

import typer


def max_cost_option():
    return typer.Option(None, "--max-cost", min=0.0, help="Stop (exit 3) once the openai: requests of this run cost "
                        "USD (specs need #price=IN/OUT); the same command run again resumes.")


def max_requests_option():
    return typer.Option(None, "--max-requests", min=0, help="Stop (exit 3) after N requests to openai: backends; the "
                        "same command run again resumes.")


def dry_run_option():
    return typer.Option(False, "--dry-run", help="Print the API calls per spec with estimated tokens and cost (from the "
                        "rendered prompts and --max-tokens), send nothing, write nothing.")


def print_plan(plan) -> None:
    for line in plan.lines():
        typer.echo(line)


def budget(max_cost: Optional[float], max_requests: Optional[int]):
    from mtgauntlet.models.usage import budget as scope

    return scope(max_cost, max_requests)
