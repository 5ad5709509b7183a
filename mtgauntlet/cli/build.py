"""`gauntlet build <method>`: one subcommand per registered method (`mtgauntlet.builders.methods`). Each command's
options are its method's options dataclass (help, flags, defaults, ranges declared once); the command calls
`mtgauntlet.api.building.build` with the parsed options and prints what it returns."""

from __future__ import annotations

from typing import Any

import typer

from mtgauntlet.api.building import build
from mtgauntlet.builders.methods import methods
from mtgauntlet.cli.common import build_result, json_option, print_json, print_result
from mtgauntlet.cli.declared import command

app = typer.Typer(
    help="Build a challenge set with one of the methods (writes Parquet shards + build.json).", no_args_is_help=True
)
JSON = {"json_out": ("dry_run", bool, json_option("the build summary"))}  # CLI only: how the result is printed


def print_build(build, json_out: bool) -> None:
    """What ``gauntlet build`` prints: the dry run's plan lines, else the summary (text or ``--json``)."""
    if build.plan is not None:
        typer.echo(build.describe())
    else:
        print_result(json_out, build.describe(), build_result(build.run))


def _call(method: str, params: dict[str, Any]):
    """(the build of a command's options, all but ``--json``, through the API function; ``--json``)."""
    params = dict(params)
    json_out = params.pop("json_out")
    return build(method, **params, progress=None), json_out


def _build(method: str):
    """The handler of ``gauntlet build METHOD``: run the build, print its result."""
    return lambda params: print_build(*_call(method, params))


def _bandit(params: dict[str, Any]) -> None:
    built, json_out = _call("bandit", params)
    if json_out and built.plan is None:
        m = built.summary
        print_json(
            {
                "out": params["out"],
                "counts": m["counts"],
                "top_topics": m["top_topics"],
                "signature": m["signature"],
                "skipped": built.skipped,
            }
        )
    else:
        typer.echo(built.describe())


for _name, _method in methods().items():
    command(app, _name, _method.options, _bandit if _name == "bandit" else _build(_name), extra=JSON)
