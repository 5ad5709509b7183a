"""`gauntlet import` and `gauntlet export`: public sets in and out, in the field's formats (thin over mtgauntlet.api.sets;
the arguments and options are declared once, in `mtgauntlet.api.set_options`)."""

from __future__ import annotations

from typing import Any

import typer

from mtgauntlet.api.set_options import ExportOptions, ImportOptions
from mtgauntlet.cli.common import print_result
from mtgauntlet.cli.declared import command, json_flag


def import_set(p: dict[str, Any]) -> None:
    """``gauntlet import``: the set as a sealed release (`mtgauntlet.api.sets.import_set`), its summary printed."""
    from mtgauntlet.api import sets
    from mtgauntlet.cli.release_cmd import print_release

    json_out = p.pop("json_out")
    print_release(sets.import_set(**p, progress=None), json_out)


def export_set(p: dict[str, Any]) -> None:
    """``gauntlet export``: the release in a field's format (`mtgauntlet.api.sets.export_set`)."""
    from mtgauntlet.api import sets

    json_out = p.pop("json_out")
    done = sets.export_set(**p, progress=None)
    print_result(
        json_out,
        done.describe(),
        {"format": done.format, "out": str(done.path), "records": done.records, "files": [str(f) for f in done.files]},
    )


def register(app: typer.Typer) -> None:
    """``gauntlet import`` and ``gauntlet export`` on the root command."""
    command(app, "import", ImportOptions, import_set, extra={"json_out": (None, json_flag("the release summary"))})
    command(app, "export", ExportOptions, export_set, extra={"json_out": (None, json_flag("the export summary"))})
