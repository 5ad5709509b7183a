"""Whether this interpreter runs one `gauntlet` command and then exits.

The command line's entry point (:func:`mtgauntlet.cli.main.main`) says so; a notebook, a test or a program that
imports the package does not. What only pays off in a fresh process that ends with its command (a compiled metric
loaded in a second process while this one reads the catalog: :mod:`mtgauntlet.workbench.kernel_process`) asks here.
"""

from __future__ import annotations

_STATE = {"one_command": False}


def mark() -> None:
    """This interpreter runs one command and exits (called by the command line's entry point only)."""
    _STATE["one_command"] = True


def active() -> bool:
    return _STATE["one_command"]
