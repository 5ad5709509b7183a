"""Run the `gauntlet` CLI the way a user does: through the real entry point (`mtgauntlet.cli.main:run`,
what the console script calls), so exit codes and error output are exactly what a user sees."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    @property
    def exception(self) -> str:  # what a failing assertion should show (the error line, if any)
        return self.stderr.strip().splitlines()[-1] if self.stderr.strip() else ""

    def __repr__(self) -> str:  # shown by pytest when an assertion on the result fails
        return f"Result(exit_code={self.exit_code}, stdout={self.stdout[-2000:]!r}, stderr={self.stderr[-2000:]!r})"


def invoke(args, env: dict | None = None) -> Result:
    """In-process run of `gauntlet ARGS` through main's error handling (fast; no new interpreter)."""
    from mtgauntlet.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    old_env = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = run([str(a) for a in args])
            except SystemExit as exc:  # a command that exits directly
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        for k, v in old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return Result(code, out.getvalue(), err.getvalue())


def invoke_subprocess(args, env: dict | None = None, timeout: float = 600, cwd=None) -> Result:
    """`python -m mtgauntlet.cli.main ARGS` in a new process (for locks, signals, a pristine interpreter)."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-m", "mtgauntlet.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        cwd=cwd,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)
