"""The arguments and options of ``gauntlet query`` (``mg.query``), ``gauntlet leaderboard`` (``mg.leaderboard``)
and ``gauntlet models`` (``mg.list_models``), declared once (`mtgauntlet.options`): the commands and the functions'
signatures, ``Args`` and checks are made from these dataclasses."""

from dataclasses import dataclass
from pathlib import Path

from mtgauntlet import shared_options as shared
from mtgauntlet.options import REQUIRED, argument, option

RESULTS_HELP = "A results folder of `gauntlet evaluate metric --out`"


@dataclass(kw_only=True, frozen=True)
class QueryOptions:
    """Run a read-only SQL query over the records of every release under --releases (exactly the files their
    manifests list; a folder without releases: every build output's records). What is skipped is warned about."""

    sql: str = argument(
        help="A SELECT statement; views: one per record kind (e.g. smaug_pair), latest_<kind>, releases, "
        "catalog_files, catalog_info, catalog_skipped.",
        doc="A ``SELECT`` (or ``EXPLAIN SELECT``) statement; anything else is refused.",
    )
    releases: str | Path = option(
        "releases", flags=("--releases", "-r"), help="Directory with releases or build outputs."
    )
    results: str | Path | None = option(
        None,
        help=RESULTS_HELP + ": adds the views metric_score and leaderboard (only the files its manifest seals).",
        doc="A results folder of the metric workbench (only the files its manifest seals are read; a changed one "
        "refuses the folder).",
    )


@dataclass(kw_only=True, frozen=True)
class LeaderboardOptions:
    """Write the leaderboard page of a results folder: tables and plots of every metric on every set (pair sets:
    accuracy, ACES and SMAUG tau, SMAUG d; human-judgment sets: segment- and system-level statistics). Offline."""

    results: str | Path = option(
        REQUIRED,
        help=RESULTS_HELP + " (only the files its manifest seals are read).",
        doc="A results folder of ``gauntlet evaluate metric --out`` (only the files its manifest seals are read).",
    )
    out: str | Path = shared.html_page("leaderboard.html")
    releases: str | Path | None = option(
        None,
        flags=("--releases", "-r"),
        help="The catalog the sets came from (their sizes are shown).",
        doc="The catalog the sets came from (names their releases' descriptions on the page).",
    )
    title: str | None = option(None, help="The page's title.")


@dataclass(kw_only=True, frozen=True)
class ModelsOptions:
    """List model roles, embedded offline backends (installed or not) and every backend spec name."""
