"""`gauntlet validate PATH` (rules + report), `gauntlet validate diversity --input FILE --column NAME` and
`gauntlet validate grammar --input FILE --column NAME --lang en`; their options are declared once
(`mtgauntlet.api.check_options`)."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from mtgauntlet.api.check_options import DiversityOptions, GrammarOptions, ValidateOptions
from mtgauntlet.cli.common import print_json
from mtgauntlet.cli.declared import command, json_flag


class _PathOrSubcommand(TyperGroup):
    """`gauntlet validate PATH ...` runs the default command; `gauntlet validate diversity ...` the subcommand."""

    default = "records"

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = [self.default, *args]
        return super().parse_args(ctx, args)

    def format_help(self, ctx, formatter):
        self.commands[self.default].format_help(ctx, formatter)
        formatter.write_paragraph()
        formatter.write_text("Subcommands (each with its own --help):")
        with formatter.indentation():
            for name, cmd in self.commands.items():
                if name != self.default:
                    formatter.write_text(f"{name}: {cmd.get_short_help_str(70)}")


app = typer.Typer(
    cls=_PathOrSubcommand,
    no_args_is_help=True,
    help="Check a record set against thresholds (exit 1 when a rule fails); `validate diversity` and "
    "`validate grammar` for any text column.",
)


def diversity(p: dict[str, Any]) -> None:
    """``gauntlet validate diversity``: the measures of `mtgauntlet.api.checking.diversity`."""
    from mtgauntlet.api import checking

    json_out = p.pop("json_out")
    _print_measures(json_out, checking.diversity(**p, progress=None))


def _print_measures(json_out: bool, res: dict) -> None:
    if json_out:
        print_json(res)
    else:
        for k, v in res.items():
            typer.echo(f"{k}: {v:.4f}" if isinstance(v, float) else f"{k}: {v}")


def grammar(p: dict[str, Any]) -> None:
    """``gauntlet validate grammar``: the summary of `mtgauntlet.api.checking.grammar`."""
    from mtgauntlet.api import checking

    json_out = p.pop("json_out")
    df = checking.grammar(**p, progress=None)
    _print_measures(json_out, df.attrs["mtgauntlet.grammar"])


def validate(p: dict[str, Any]) -> None:
    """``gauntlet validate PATH``: the summary (or the JSON report); exit 1 when a rule fails."""
    from mtgauntlet.api import checking
    from mtgauntlet.validators.validate import summary_text

    json_out = p.pop("json_out")
    result = checking.validate(**p, progress=None)
    if json_out:
        print_json(result.data)
    else:
        typer.echo(summary_text(result.data), nl=False)
        if p["report"]:
            typer.echo(f"report: {p['report']}/report.json")
    if not result.passed:
        raise typer.Exit(1)


JSON = json_flag(help="Print JSON.")
command(app, "diversity", DiversityOptions, diversity, extra={"json_out": ("max_texts", JSON)})
command(app, "grammar", GrammarOptions, grammar, extra={"json_out": ("out", JSON)})
command(
    app,
    "records",
    ValidateOptions,
    validate,
    extra={"json_out": (None, json_flag(help="Print the JSON report."))},
    hidden=True,
)
