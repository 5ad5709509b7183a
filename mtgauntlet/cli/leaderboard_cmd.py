"""`gauntlet leaderboard --results RESULTS [--releases ROOT] --out page.html`."""

from __future__ import annotations

import typer

from mtgauntlet.cli.common import json_option, print_result


def leaderboard(
    results: str = typer.Option(
        ...,
        "--results",
        help="A results folder of `gauntlet evaluate metric --out` (only the files its manifest seals are read).",
    ),
    out: str = typer.Option(
        "leaderboard.html", "--out", "-o", help="The HTML page to write (one self-contained file)."
    ),
    releases: str | None = typer.Option(
        None, "--releases", "-r", help="The catalog the sets came from (their sizes are shown)."
    ),
    title: str | None = typer.Option(None, "--title", help="The page's title."),
    json_out: bool = json_option("where the page is"),
):
    """Write the leaderboard page of a results folder: tables and plots of every metric on every set (pair sets:
    accuracy, ACES and SMAUG tau, SMAUG d; human-judgment sets: segment- and system-level statistics). Offline."""
    from mtgauntlet.api.metric_workbench import leaderboard as write_page

    res = write_page(results=results, out=out, releases=releases, title=title, progress=None)
    print_result(json_out, f"leaderboard: {res['out']} ({res['rows']} statistics)", res)
