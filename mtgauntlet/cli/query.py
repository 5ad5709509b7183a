"""`gauntlet query`: read-only SQL over the DuckDB catalog of releases / build outputs."""

from __future__ import annotations

import typer

from mtgauntlet.cli.common import output_format_option, print_frame


def query(
    sql: str = typer.Argument(..., help="A SELECT statement; views: one per record kind (e.g. smaug_pair), releases, latest_<kind>."),
    releases: str = typer.Option("releases", "--releases", "-r", help="Directory with releases or build outputs."),
    format: str = output_format_option(),
):
    """Run a read-only SQL query over every record Parquet file under --releases."""
    from mtgauntlet.releases.catalog import run_query

    print_frame(run_query(releases, sql), format)
