"""The `gauntlet` command: one subcommand per verb."""

from __future__ import annotations

import logging
import os
import sys
from typing import Optional

import typer

from mtgauntlet import __version__
from mtgauntlet.cli import build, evaluate, query as query_mod, models_cmd, release_cmd, score, simulate, validate_cmd

app = typer.Typer(
    name="gauntlet",
    help="Build machine-translation challenge sets, check their quality, release them as versioned datasets.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(build.app, name="build")
app.add_typer(score.app, name="score")
app.add_typer(evaluate.app, name="evaluate")
app.add_typer(simulate.app, name="simulate")
app.command("query")(query_mod.query)
app.command("models")(models_cmd.models)
app.command("validate", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(
    validate_cmd.validate)
app.command("release")(release_cmd.release)
app.command("verify")(release_cmd.verify)
app.command("publish")(release_cmd.publish)


@app.callback()
def _root(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log progress details."),
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True),
    device: Optional[str] = typer.Option(None, "--device", envvar="MTGAUNTLET_DEVICE",
                                         help="Default device of torch models: auto (cuda, mps, cpu), cpu, cuda, cuda:N, mps."),
    dtype: Optional[str] = typer.Option(None, "--dtype", envvar="MTGAUNTLET_DTYPE",
                                        help="Default dtype of torch models: auto (bf16 on a GPU with bf16, else fp32), fp32, bf16, fp16."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", envvar="MTGAUNTLET_BATCH_SIZE",
                                             help="Default batch size of torch models (halved on out-of-memory)."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", envvar="MTGAUNTLET_CONCURRENCY",
                                              help="Requests at once to openai: backends (default 1)."),
):
    if version:
        typer.echo(f"mtgauntlet {__version__}")
        raise typer.Exit()
    from mtgauntlet.models.runtime import set_defaults

    set_defaults(device=device, dtype=dtype, batch=batch_size, concurrency=concurrency)
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")


def main() -> None:
    from mtgauntlet.errors import GauntletError

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        app()
    except GauntletError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("interrupted; finished work is kept, run the same command again to resume", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
