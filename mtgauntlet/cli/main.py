"""The `gauntlet` command: one subcommand per verb.

Exit codes: 0 success; 1 a validation rule failed (or `verify` found a mismatch); 2 an error in the
usage, the input or the environment, printed as one line `error: …`; 3 a spent budget (--max-cost,
--max-requests: run the same command again to resume); 130 interrupted.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

import typer

from mtgauntlet import __version__
from mtgauntlet.cli.commands import COMPLETE_VAR, LazyCommands
from mtgauntlet.core.paid_run import DRAIN_SECONDS
from mtgauntlet.core.progress import QUIET_ENV

app = typer.Typer(
    name="gauntlet",
    help="Build machine-translation challenge sets, check their quality, release them as versioned datasets.",
    cls=LazyCommands,  # each subcommand's module is imported when it is named (mtgauntlet.cli.commands)
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,  # `gauntlet completion SHELL` prints the script instead (no shell detection, no install)
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},  # inherited by every subcommand
)


def command_tree() -> Any:
    """The root click command with every subcommand loaded (the reference and the tests walk it)."""
    import typer.main

    root = typer.main.get_command(app)
    assert isinstance(root, LazyCommands)
    return root.load_all()


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"mtgauntlet {__version__}")
        raise typer.Exit()


def _setting(flag: str, help: str) -> Any:
    """A global option without a default, read from ``MTGAUNTLET_<FLAG>`` when not given (``--batch-size``:
    ``MTGAUNTLET_BATCH_SIZE``)."""
    return typer.Option(None, flag, envvar="MTGAUNTLET_" + flag.removeprefix("--").replace("-", "_").upper(), help=help)


@app.callback()
def _root(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log progress details (and tracebacks of errors)."),
    quiet: bool = typer.Option(
        False,
        "--quiet",
        "-q",
        envvar=QUIET_ENV,
        help="No progress and no informational lines (results, warnings and errors still print).",
    ),
    version: bool = typer.Option(
        False, "--version", "-V", help="Print the version and exit.", is_eager=True, callback=_print_version
    ),
    device: str | None = _setting(
        "--device", "Default device of torch models: auto (cuda, mps, cpu), cpu, cuda, cuda:N, mps."
    ),
    dtype: str | None = _setting(
        "--dtype", "Default dtype of torch models: auto (bf16 on a GPU with bf16, else fp32), fp32, bf16, fp16."
    ),
    batch_size: int | None = _setting("--batch-size", "Default batch size of torch models (halved on out-of-memory)."),
    concurrency: int | None = _setting("--concurrency", "Requests at once to openai: backends (default 1)."),
    max_cost: float | None = _setting(
        "--max-cost",
        "Budget in USD of the paid API requests of this run (any paid backend; needs #price=IN/OUT in "
        "the specs): a request leaves only when its worst case fits beside those in flight; exit 3, resumable, "
        "when the next one does not fit with none in flight. Ctrl-C/SIGTERM stop sending and wait up to "
        f"{DRAIN_SECONDS:g} s for the requests in flight (a second one aborts).",
    ),
    max_requests: int | None = _setting(
        "--max-requests", "Stop (exit 3, resumable) after N requests to paid backends."
    ),
):
    from mtgauntlet.core.budget import set_global_budget
    from mtgauntlet.models.runtime import set_defaults

    set_defaults(device=device, dtype=dtype, batch=batch_size, concurrency=concurrency)
    set_global_budget(max_cost, max_requests)
    logging.basicConfig(
        level=logging.INFO if verbose else logging.ERROR if quiet else logging.WARNING,
        format="%(levelname)s %(message)s",
    )
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, _RedactSecrets) for f in handler.filters):
            handler.addFilter(_RedactSecrets())
    if quiet:
        os.environ[QUIET_ENV] = "1"  # read by the progress display; run() restores it when the command ends
    if verbose:
        os.environ["MTGAUNTLET_VERBOSE"] = "1"


def _one_line(text: object) -> str:
    """One line, with credentials masked (a URL's user info, ``#key=``-like options: never printed)."""
    from mtgauntlet.core.spec_public import redact_secrets

    return redact_secrets(" ".join(str(text).split()))


class _RedactSecrets(logging.Filter):
    """Masks credentials in every log line (an error quoting a spec, a URL with user info)."""

    def filter(self, record: logging.LogRecord) -> bool:
        from mtgauntlet.core.spec_public import redact_secrets

        try:
            record.msg, record.args = redact_secrets(record.getMessage()), None
        except Exception:  # a malformed log call: logging reports it as it would without this filter
            pass
        return True


def _click_modules():
    """click's exception module(s): typer may vendor its own copy of click beside the public one."""
    mods = []
    for name in ("typer._click.exceptions", "click.exceptions"):
        try:
            mods.append(__import__(name, fromlist=["UsageError"]))
        except ImportError:
            pass
    return mods


def run(argv: list[str] | None = None) -> int:
    """Run the CLI on ``argv``; returns the exit code. Every error is one line on stderr."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    args = sys.argv[1:] if argv is None else list(argv)
    quiet_before = os.environ.get(QUIET_ENV)
    try:
        return _run(args)
    finally:  # -q and the budget of one command do not leak into the next one run in this process
        from mtgauntlet.core.budget import set_global_budget

        set_global_budget(None, None)
        if quiet_before is None:
            os.environ.pop(QUIET_ENV, None)
        else:
            os.environ[QUIET_ENV] = quiet_before


def _run(args: list[str]) -> int:
    from mtgauntlet.errors import GauntletError

    verbose = "-v" in args or "--verbose" in args
    mods = _click_modules()
    usage = tuple(m.UsageError for m in mods)
    click_errors = tuple(m.ClickException for m in mods)
    no_args = tuple(m.NoArgsIsHelpError for m in mods if hasattr(m, "NoArgsIsHelpError"))
    exits = (typer.Exit, *(m.Exit for m in mods if hasattr(m, "Exit")))
    aborts = (typer.Abort, KeyboardInterrupt, *(m.Abort for m in mods if hasattr(m, "Abort")))
    if os.environ.get(COMPLETE_VAR):  # a shell asking for completions (the script sets it)
        from mtgauntlet.cli.completion import init

        init()
    try:
        from mtgauntlet.api.session import cli_warnings
        from mtgauntlet.core.spec_public import redact_secrets

        with cli_warnings(lambda line: typer.echo(redact_secrets(line), err=True)):
            rv = app(args=args, prog_name="gauntlet", standalone_mode=False)
        if rv == 130:  # typer returns Exit(130) for a KeyboardInterrupt: Ctrl-C, or a graceful stop's Interrupted
            from mtgauntlet.core.paid_run import last_interrupt

            return _interrupted(last_interrupt())
        return rv if isinstance(rv, int) else 0
    except exits as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # typer turns Ctrl-C into Exit(130)
            return _interrupted(exc.__cause__)
        return getattr(exc, "exit_code", 0)
    except aborts as exc:
        return _interrupted(exc if isinstance(exc, KeyboardInterrupt) else exc.__cause__ or exc.__context__)
    except no_args as exc:
        typer.echo(exc.ctx.get_help() if exc.ctx is not None else str(exc))
        return 0
    except usage as exc:
        where = f"{exc.ctx.command_path}: " if exc.ctx is not None else ""
        why = _one_line(exc.format_message())
        if why.startswith("No such option: --engine"):  # build mtbreaker|zeroshot|bandit
            why += "; this command runs in this process: its steps are sequential per item (docs/scaling.md)"
        typer.echo(f"error: {where}{why} (see --help)", err=True)
        return 2
    except click_errors as exc:
        typer.echo(f"error: {_one_line(exc.format_message())}", err=True)
        return 2
    except GauntletError as exc:  # exit 2, or the error's own code (3: a spent --max-cost/--max-requests budget)
        typer.echo(f"error: {_one_line(exc)}", err=True)
        return getattr(exc, "exit_code", 2)
    except OSError as exc:  # a path that cannot be read or written, a full disk, a refused connection
        if verbose:
            raise
        name = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        typer.echo(f"error: {name}{_one_line(exc.strerror or exc)}", err=True)
        return 2
    except Exception as exc:  # a bug: still one line for the user; -v shows the traceback
        if verbose:
            raise
        typer.echo(
            f"error: internal error ({type(exc).__name__}: {_one_line(exc)}); run with -v for the "
            "traceback and please report it",
            err=True,
        )
        return 2


def _interrupted(exc: BaseException | None) -> int:
    """Ctrl-C or SIGTERM (a graceful stop drained the requests in flight: :mod:`mtgauntlet.core.paid_run`): 130 or
    143."""
    typer.echo("interrupted; finished work is kept, run the same command again to resume", err=True)
    return 128 + getattr(exc, "signum", 2)


def main() -> None:
    """The `gauntlet` process: one command, then exit (the process settings: :mod:`mtgauntlet.cli.process`)."""
    from mtgauntlet.cli import process
    from mtgauntlet.core import one_command

    one_command.mark()
    process.tune_collector()
    code = run()
    process.skip_last_collection()
    sys.exit(code)


if __name__ == "__main__":
    main()
