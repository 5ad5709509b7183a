"""The equivalent ``gauntlet`` command of a recipe's step, as the plan and the log show it. Nothing is run from
it: a run calls the Python API (:mod:`mtgauntlet.recipes.steps`)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from mtgauntlet.recipes.spec import OptionDef


def command_line(options: dict[str, Any], defs: Mapping[str, OptionDef]) -> list[str]:
    """The command-line form of a table of options (flags as flags; lists repeat the option)."""
    args: list[str] = []
    for name, value in options.items():
        d = defs[name]
        if d.type == "bool":
            if value and value != d.default:
                args.append(f"--{name}")
            elif not value and d.default and d.off:
                args.append(f"--{d.off}")
        elif value is None:
            continue
        elif d.multiple:
            for v in value:
                args += [f"--{name}", str(v)]
        else:
            args += [f"--{name}", str(value)]
    return args


def quote(args: list[str]) -> str:
    """``gauntlet ARGS`` as a shell would read it, credentials in specs masked (it is shown, never run)."""
    from mtgauntlet.core.spec_public import redact_secrets

    return redact_secrets("gauntlet " + " ".join(shlex.quote(a) for a in args))
