"""`gauntlet models`: the backends known and which embedded ones are installed."""

from __future__ import annotations

import typer


def models(json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")):
    """List model roles, embedded offline backends (installed or not) and every backend spec name."""
    from mtgauntlet.models.embedded import packaged_translator
    from mtgauntlet.models.registry import DEFAULTS, REGISTRY, SUGGESTIONS, embedded_status

    rows = embedded_status()
    by_pair = {f"{a}-{b}": packaged_translator(a, b) for a, b in (("en", "pt"), ("pt", "en"))}
    by_pair = {k: v for k, v in by_pair.items() if v}  # the translator used for a pair when none is given
    if json_out:
        from mtgauntlet.cli.common import print_json

        print_json({"embedded": rows, "defaults": DEFAULTS, "default_translator_by_pair": by_pair,
                    "backends": {k: sorted(v) for k, v in REGISTRY.items()}, "suggestions": SUGGESTIONS})
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title="Embedded (offline) backends")
    for c in ("role", "spec", "installed?", "what it is"):
        t.add_column(c)
    for r in rows:
        t.add_row(r["role"], r["spec"], "yes" if r["installed"] else "no", r["what"])
    console = Console(width=max(120, Console().width))
    console.print(t)
    t2 = Table(title="Backend spec names (name:argument)")
    t2.add_column("name")
    t2.add_column("roles")
    for name, roles in sorted(REGISTRY.items()):
        t2.add_row(name, ", ".join(sorted(roles)))
    console.print(t2)
    console.print("Defaults per role: " + ", ".join(f"{k}={v or '(none offline)'}" for k, v in DEFAULTS.items()))
    if by_pair:
        console.print("Default translator by language pair: " + ", ".join(f"{k}: {v}" for k, v in by_pair.items()))
