"""`gauntlet models`: the backends known and which embedded ones are installed."""

from __future__ import annotations

from typing import Any

import typer

from mtgauntlet.api.catalog_options import ModelsOptions
from mtgauntlet.cli.declared import command, json_flag


def register(app: typer.Typer) -> None:
    """``gauntlet models`` on the root command (its one option, ``--json``, is how it prints)."""
    command(
        app,
        "models",
        ModelsOptions,
        models,
        extra={"json_out": (None, json_flag(help="Print JSON instead of a table."))},
    )


def models(p: dict[str, Any]) -> None:
    """``gauntlet models``: the listing of `mtgauntlet.api.model_listing.list_models`, as tables or ``--json``."""
    from mtgauntlet.api.model_listing import list_models as listing

    json_out = p["json_out"]
    df = listing(progress=None)
    rows, extra = df.to_dict("records"), df.attrs
    if json_out:
        from mtgauntlet.cli.common import print_json

        print_json({"embedded": rows, **extra})
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    t = Table(title="Embedded (offline) backends")
    for c in ("role", "spec", "installed?", "what it is"):
        t.add_column(c)
    for r in rows:
        t.add_row(escape(r["role"]), escape(r["spec"]), "yes" if r["installed"] else "no", escape(r["what"]))
    console = Console(width=max(120, Console().width))
    console.print(t)
    t2 = Table(title="Backend spec names (name:argument)")
    t2.add_column("name")
    t2.add_column("roles")
    for name, roles in sorted(extra["backends"].items()):
        t2.add_row(escape(name), escape(", ".join(roles)))
    console.print(t2)
    defaults = extra["defaults"]
    console.print(
        escape("Defaults per role: " + ", ".join(f"{k}={v or '(none offline)'}" for k, v in defaults.items()))
    )
    by_pair = extra["default_translator_by_pair"]
    if by_pair:
        console.print(
            escape("Default translator by language pair: " + ", ".join(f"{k}: {v}" for k, v in by_pair.items()))
        )
