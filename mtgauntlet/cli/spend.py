"""What the commands that pay for API calls print of a dry run (``--dry-run``: the estimated calls, tokens and
cost; nothing is sent). Their ``--max-cost``, ``--max-requests`` and ``--dry-run`` options are declared once, in
`mtgauntlet.shared_options` (also global: ``gauntlet --max-cost ...``)."""

from __future__ import annotations

import typer


def print_plan(plan) -> None:
    for line in plan.lines():
        typer.echo(line)
