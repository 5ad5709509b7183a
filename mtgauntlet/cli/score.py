"""`gauntlet score`: add model scores to a file (difficulty, QE), on this machine or on a Ray cluster. The options
of each command are declared once, in `mtgauntlet.api.score_options`."""

from __future__ import annotations

from typing import Any

import typer

from mtgauntlet.api.score_options import ScoreDifficultyOptions, ScoreQEOptions
from mtgauntlet.cli.common import print_result
from mtgauntlet.cli.declared import command, json_flag
from mtgauntlet.cli.spend import print_plan

app = typer.Typer(help="Score texts with a model and write them with a new column.", no_args_is_help=True)


def _report(result, json_out: bool, dry_run: bool) -> None:
    """The plan of a dry run, or the summary of the scores written."""
    from mtgauntlet.api.scoring import SUMMARY
    from mtgauntlet.core.usage_report import summary_line
    from mtgauntlet.corpora.options import skipped_counts_note

    if dry_run:
        return print_plan(result)
    res = result.attrs[SUMMARY]
    where = ", ".join(f"{k} {v}" for k, v in res["placement"].items())
    text = (
        f"{res['rows']} rows scored with {res['scored_with']} on {res['engine']}{f' ({where})' if where else ''} "
        f"-> {res['out']}"
        + (f" ({res['without_score']} without a score)" if res["without_score"] else "")
        + skipped_counts_note(res["skipped"])
    )
    if summary_line(res["usage"]):
        text += "\n" + summary_line(res["usage"])
    print_result(json_out, text, res)


def _score(kind: str):
    """The handler of ``gauntlet score KIND``: score through the API function, print the plan or the summary."""

    def run(params: dict[str, Any]) -> None:
        from mtgauntlet.api.scoring import KINDS

        params = dict(params)
        json_out = params.pop("json_out")
        _report(KINDS[kind](**params, progress=None), json_out, params["dry_run"])

    return run


JSON = {"json_out": ("dry_run", json_flag("the summary"))}  # CLI only: how the result is printed
command(app, "difficulty", ScoreDifficultyOptions, _score("difficulty"), extra=JSON)
command(app, "qe", ScoreQEOptions, _score("qe"), extra=JSON)
