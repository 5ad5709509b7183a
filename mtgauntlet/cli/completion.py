"""`gauntlet completion SHELL`: print the shell completion script (typer's), to source or save."""

from __future__ import annotations

import typer

SHELLS = ("bash", "zsh", "fish", "powershell")
COMPLETE_VAR = "_GAUNTLET_COMPLETE"  # what the script sets when it asks `gauntlet` for completions


def init() -> None:
    """Register typer's completion classes, so that a shell's completion request is answered."""
    from typer._completion_classes import completion_init

    completion_init()


def _check_shell(value: str) -> str:
    if value not in SHELLS:
        raise typer.BadParameter(f"unknown shell {value!r} (one of {', '.join(SHELLS)})")
    return value


def completion(
    shell: str = typer.Argument(..., metavar="SHELL", callback=_check_shell, help=f"One of {', '.join(SHELLS)}."),
):
    """Print the completion script of SHELL; e.g. `gauntlet completion bash > ~/.local/share/bash-completion/
    completions/gauntlet`, or `eval "$(gauntlet completion bash)"` in ~/.bashrc."""
    from typer._completion_shared import get_completion_script

    init()
    typer.echo(get_completion_script(prog_name="gauntlet", complete_var=COMPLETE_VAR, shell=shell))
