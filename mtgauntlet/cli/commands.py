"""The subcommands of `gauntlet`, each loaded when it is named.

A command line runs one command: `gauntlet evaluate metric …` imports `mtgauntlet.cli.evaluate` and what it needs,
not the modules of the 16 other commands (about half a second of imports and option tables in a fresh process).
``COMMANDS`` maps each subcommand to the module of `mtgauntlet.cli` that declares it, in the order ``--help``
lists them; ``tests/cli/test_commands.py`` holds the map to what the modules declare. A module either defines
``register(app)`` (commands declared on the root, possibly several: ``release``, ``verify``, ``publish``) or an
``app`` (a group of subcommands: ``build smaug``, ``evaluate metric``, …).
"""

from __future__ import annotations

import importlib
from difflib import get_close_matches
from typing import Any

import typer
import typer.main
from typer.core import TyperGroup

COMPLETE_VAR = "_GAUNTLET_COMPLETE"  # what the completion script sets when it asks `gauntlet` for completions

# subcommand -> module of mtgauntlet.cli, in --help order
COMMANDS: dict[str, str] = {
    "query": "query",
    "models": "models_cmd",
    "release": "release_cmd",
    "verify": "release_cmd",
    "publish": "release_cmd",
    "import": "sets_cmd",
    "export": "sets_cmd",
    "run": "recipe_cmd",
    "reproduce": "recipe_cmd",
    "audit": "audit_cmd",
    "leaderboard": "leaderboard_cmd",
    "completion": "completion",
    "build": "build",
    "score": "score",
    "evaluate": "evaluate",
    "simulate": "simulate",
    "validate": "validate_cmd",
}


def module_commands(module_name: str) -> dict[str, Any]:
    """The click commands one module of `mtgauntlet.cli` declares, by name."""
    module = importlib.import_module(f"mtgauntlet.cli.{module_name}")
    holder = typer.Typer(rich_markup_mode=None, add_completion=False)  # as the root formats its subcommands
    if hasattr(module, "register"):
        module.register(holder)
    else:
        (name,) = (n for n, m in COMMANDS.items() if m == module_name)
        holder.add_typer(module.app, name=name)
    return dict(typer.main.get_group(holder).commands)


class LazyCommands(TyperGroup):
    """The root command: a subcommand's module is imported the first time the subcommand is looked up."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            loaded = module_commands(COMMANDS[cmd_name])
            self.commands.update((name, cmd) for name, cmd in loaded.items() if name in COMMANDS)
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """As typer's, whose "Did you mean …?" reads the loaded commands: here every subcommand is a candidate."""
        try:
            return super().resolve_command(ctx, args)
        except Exception as exc:  # click's UsageError (typer vendors click): the message gets the suggestions
            message = getattr(exc, "message", None)
            if isinstance(message, str) and args and "Did you mean" not in message and self.suggest_commands:
                matches = get_close_matches(args[0], list(COMMANDS))
                if matches:
                    suggestions = ", ".join(repr(m) for m in matches)
                    exc.message = f"{message.rstrip('.')}. Did you mean {suggestions}?"  # type: ignore[attr-defined]
            raise

    def load_all(self) -> LazyCommands:
        """Every subcommand loaded (for the command reference and the tests that walk the whole tree)."""
        for name in COMMANDS:
            self.get_command(None, name)
        return self
