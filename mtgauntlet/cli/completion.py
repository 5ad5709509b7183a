"""`gauntlet completion SHELL`: print the shell completion script (typer's), to source or save."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import typer

from mtgauntlet.cli.commands import COMPLETE_VAR
from mtgauntlet.cli.declared import command
from mtgauntlet.options import argument

SHELLS = ("bash", "zsh", "fish", "powershell")


def init() -> None:
    """Register typer's completion classes, so that a shell's completion request is answered."""
    from typer._completion_classes import completion_init

    completion_init()


@dataclass(kw_only=True, frozen=True)
class CompletionOptions:
    """Print the completion script of SHELL; e.g. `gauntlet completion bash > ~/.local/share/bash-completion/
    completions/gauntlet`, or `eval "$(gauntlet completion bash)"` in ~/.bashrc."""

    shell: str = argument(metavar="SHELL", choices=lambda: SHELLS, help=f"One of {', '.join(SHELLS)}.")


def completion(p: dict[str, Any]) -> None:
    """``gauntlet completion SHELL``: print typer's script for SHELL."""
    from typer._completion_shared import get_completion_script

    init()
    typer.echo(get_completion_script(prog_name="gauntlet", complete_var=COMPLETE_VAR, shell=p["shell"]))


def register(app: typer.Typer) -> None:
    """``gauntlet completion`` on the root command."""
    command(app, "completion", CompletionOptions, completion)
