"""`gauntlet audit PATH [--against OLD_PATH] --out report.html` (options declared once:
`mtgauntlet.api.check_options.AuditOptions`)."""

from __future__ import annotations

from typing import Any

import typer

from mtgauntlet.api.check_options import AuditOptions
from mtgauntlet.cli.common import print_result
from mtgauntlet.cli.declared import command, json_flag


def audit(p: dict[str, Any]) -> None:
    """``gauntlet audit``: write the page through `mtgauntlet.api.auditing.audit`, print where it is."""
    from mtgauntlet.api.auditing import audit as write_page

    json_out = p.pop("json_out")
    page = write_page(**p, progress=None)
    print_result(json_out, f"audit report: {page}", {"audit": str(page), "of": p["path"], "against": p["against"]})


def register(app: typer.Typer) -> None:
    """``gauntlet audit`` on the root command."""
    command(app, "audit", AuditOptions, audit, extra={"json_out": (None, json_flag("where the page is"))})
