"""`gauntlet leaderboard --results RESULTS [--releases ROOT] --out page.html` (options declared once:
`mtgauntlet.api.catalog_options.LeaderboardOptions`)."""

from __future__ import annotations

from typing import Any

import typer

from mtgauntlet.api.catalog_options import LeaderboardOptions
from mtgauntlet.cli.common import print_result
from mtgauntlet.cli.declared import command, json_flag


def leaderboard(p: dict[str, Any]) -> None:
    """``gauntlet leaderboard``: write the page through `mtgauntlet.api.metric_workbench.leaderboard`."""
    from mtgauntlet.api.metric_workbench import leaderboard as write_page

    json_out = p.pop("json_out")
    res = write_page(**p, progress=None)
    print_result(json_out, f"leaderboard: {res['out']} ({res['rows']} statistics)", res)


def register(app: typer.Typer) -> None:
    """``gauntlet leaderboard`` on the root command."""
    command(
        app, "leaderboard", LeaderboardOptions, leaderboard, extra={"json_out": (None, json_flag("where the page is"))}
    )
