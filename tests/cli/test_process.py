"""The `gauntlet` process's own settings (`mtgauntlet.cli.process`): applied by the entry point only."""

from __future__ import annotations

import gc
import subprocess
import sys

from mtgauntlet.cli.process import YOUNG_EVERY


def test_the_entry_point_collects_less_often_and_freezes_what_is_left_at_exit():
    code = (
        "import atexit, gc, sys\n"
        "from mtgauntlet.cli import main\n"
        "before = gc.get_threshold()\n"
        "atexit.register(lambda: print(before[0], gc.get_threshold()[0], gc.get_freeze_count() > 0))\n"
        "sys.argv = ['gauntlet', '--version']\n"
        "main.main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    version, settings = proc.stdout.strip().splitlines()
    assert version.startswith("mtgauntlet ")
    before, after, frozen = settings.split()
    assert int(before) < YOUNG_EVERY == int(after) and frozen == "True"


def test_importing_the_command_line_changes_nothing_in_the_interpreter():
    before = gc.get_threshold()
    from mtgauntlet.cli.main import run

    assert run(["--version"]) == 0
    assert gc.get_threshold() == before
