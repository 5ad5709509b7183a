"""Helpers shared by the release tests: run the real `gauntlet` entry point (error lines, exit codes)."""

import sys

import pytest

from mtgauntlet.cli.main import main
from tests.support.cli import invoke


def cli(*args):
    """Run `gauntlet ARGS` in-process; fail the test with the output when it does not exit 0."""
    r = invoke([str(a) for a in args])
    assert r.exit_code == 0, r.output + repr(r.exception)
    return r


def run_main(monkeypatch, capsys, *args) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `gauntlet ARGS` through main(), which turns GauntletErrors into
    one `error: ...` line and exit 2."""
    monkeypatch.setattr(sys, "argv", ["gauntlet", *[str(a) for a in args]])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main()
    out = capsys.readouterr()
    code = exc.value.code if isinstance(exc.value.code, int) else (0 if exc.value.code is None else 1)
    return code, out.out, out.err
