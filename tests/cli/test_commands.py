"""The root command loads a subcommand's module when the subcommand is named (`mtgauntlet.cli.commands`)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import mtgauntlet.cli
from mtgauntlet.cli.commands import COMMANDS, module_commands
from mtgauntlet.cli.main import command_tree, run

CLI = Path(mtgauntlet.cli.__file__).parent


def test_the_map_names_every_command_each_module_declares():
    declaring = {
        p.stem
        for p in CLI.glob("*.py")
        if p.stem != "main" and re.search(r"^def register\(|^app = typer\.Typer\(", p.read_text(encoding="utf-8"), re.M)
    }
    assert set(COMMANDS.values()) == declaring
    for module in declaring:
        assert set(module_commands(module)) == {name for name, m in COMMANDS.items() if m == module}, module
    assert list(command_tree().commands) == list(COMMANDS)


def test_help_lists_every_command_in_the_order_of_the_map(capsys):
    assert run(["--help"]) == 0
    listed = capsys.readouterr().out.split("Commands:\n", 1)[1]
    assert [line.split()[0] for line in listed.splitlines() if line.startswith("  ") and line.split()] == list(COMMANDS)


def test_a_command_imports_its_own_module_only():
    code = (
        "import sys\nfrom mtgauntlet.cli.main import run\nrun(['evaluate', 'metric', '--help'])\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('mtgauntlet.cli.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(out.strip().splitlines()[-1].split())
    assert "mtgauntlet.cli.evaluate" in loaded and "--releases" in out  # the command's own help
    assert not loaded & {f"mtgauntlet.cli.{m}" for m in set(COMMANDS.values()) - {"evaluate"}}, loaded


def test_an_unknown_command_is_one_line_and_exit_2(capsys):
    assert run(["evaluat", "metric"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: gauntlet: No such command 'evaluat'") and len(err.strip().splitlines()) == 1


def test_a_misspelt_command_is_answered_with_the_close_ones(capsys):
    assert run(["evalute", "metric"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: gauntlet: No such command 'evalute'. Did you mean 'evaluate', 'validate'? (see --help)"
