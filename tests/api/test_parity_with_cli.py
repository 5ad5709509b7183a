"""The Python API and the CLI take the same options (issue #27): for every CLI command in ``API_OF``, the public
function's parameters are the command's (arguments positionally, options by name), with the same defaults, and
every ``min``/``max`` range typer enforces is enforced by the function too (a ``UsageError`` before any work).

Adding a verb is one line in ``API_OF``: ``"CLI COMMAND PATH": ("mg name", (CLI-only options))``; a kind of a
verb with kinds (``mg.score("qe", ...)``) names its function as ``"module:function"``.
"""

from __future__ import annotations

import inspect
import os

import pytest

import mtgauntlet as mg
from mtgauntlet.builders.methods import REGISTERED, methods
from mtgauntlet.cli import introspect

# CLI options every command may have that the API has no use for: the API returns objects instead of printing
CLI_ONLY = {"json_out", "help"}

API_OF = {  # CLI command path -> (public function of mtgauntlet, options only the CLI has, beyond CLI_ONLY)
    "release": ("release", ()),
    "verify": ("verify", ()),
    "import": ("import_set", ()),
    "export": ("export_set", ()),
    "publish": ("publish", ()),
    "query": ("query", ("format",)),  # how the CLI prints the table; mg.query returns a DataFrame
    "audit": ("audit", ()),
    "leaderboard": ("leaderboard", ()),
    "validate records": ("validate", ()),
    "validate diversity": ("mtgauntlet.api.checking:diversity", ()),
    "validate grammar": ("mtgauntlet.api.checking:grammar", ()),
    "score difficulty": ("mtgauntlet.api.scoring:score_difficulty", ()),
    "score qe": ("mtgauntlet.api.scoring:score_qe", ()),
    "evaluate metric": ("mtgauntlet.api.evaluating:evaluate_metric", ()),
    "evaluate dec": ("mtgauntlet.api.evaluating:evaluate_dec", ()),
    "evaluate breaker": ("mtgauntlet.api.evaluating:evaluate_breaker", ()),
    "evaluate bandit": ("mtgauntlet.api.evaluating:evaluate_bandit", ()),
    "simulate bandit": ("mtgauntlet.api.simulating:simulate_bandit", ()),
    "models": ("mtgauntlet.api.model_listing:list_models", ()),  # mg.list_models (mtgauntlet.models is a package)
    "run": ("run", ()),
    "reproduce": ("reproduce", ()),
    # every registered method: its build_<name> (written out, or made from its record)
    **{f"build {m}": (f"mtgauntlet.api.building:build_{m}", ()) for m in REGISTERED},
}

# options required on the CLI that the API makes optional on purpose: option -> the API's default
API_DEFAULTS = {
    "score difficulty": {"out": None},  # the API returns the scored table; writing it is optional
    "score qe": {"out": None},
}


def _cli_params(command: str):
    cmd = introspect.command(*command.split())
    assert cmd is not None, f"no CLI command `gauntlet {command}`"
    return cmd.params


def _api(command: str):
    name, cli_only = API_OF[command]
    if ":" in name:  # one kind of a verb (mg.score("qe", ...) -> mtgauntlet.api.scoring.score_qe)
        import importlib

        module, attr = name.split(":")
        return getattr(importlib.import_module(module), attr), {*CLI_ONLY, *cli_only}
    assert name in mg.__all__, f"mtgauntlet.{name} is not exported"
    return getattr(mg, name), {*CLI_ONLY, *cli_only}


def _same_default(cli_default, api_default) -> bool:
    if isinstance(cli_default, (list, tuple)) or isinstance(api_default, (list, tuple)):
        return list(cli_default or []) == list(api_default or [])
    return cli_default == api_default


@pytest.mark.parametrize("command", sorted(API_OF))
def test_api_parameters_are_the_cli_options(command):
    fn, cli_only = _api(command)
    params = [p for p in inspect.signature(fn).parameters.values() if p.kind is not p.VAR_KEYWORD]
    cli = _cli_params(command)
    # arguments: positional in both, in the same order (the API may name them for Python: verify(path))
    cli_args = [p for p in cli if p.param_type_name == "argument"]
    api_args = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert len(api_args) == len(cli_args), (command, [p.name for p in api_args], [p.name for p in cli_args])
    for c, a in zip(cli_args, api_args):
        assert (a.default is a.empty) == bool(c.required), (command, a.name)
    # options: keyword-only, the same names and defaults; a required option has no default
    options = {p.name: p for p in cli if p.param_type_name == "option" and p.name not in cli_only}
    keywords = {p.name: p for p in params if p.kind is p.KEYWORD_ONLY and p.name != "progress"}
    assert sorted(keywords) == sorted(options), command
    for name, c in options.items():
        a = keywords[name]
        if name in API_DEFAULTS.get(command, {}):
            assert c.required and a.default == API_DEFAULTS[command][name], (command, name)
        elif c.required:
            assert a.default is a.empty, f"{command}: {name} is required on the CLI"
        else:
            assert _same_default(c.default, a.default), (command, name, c.default, a.default)
    assert inspect.signature(fn).parameters["progress"].default is False
    doc = inspect.getdoc(fn) or ""
    takes = [p for p in inspect.signature(fn).parameters if p != "progress"]
    sections = ("Args:", "Returns:", "Examples:") if takes else ("Returns:", "Examples:")
    assert all(part in doc for part in sections), f"{command}: docstring"


def _ranges():
    for command in sorted(API_OF):
        for p in _cli_params(command):
            for bound, step in (("min", -1), ("max", 1)):
                limit = getattr(p, bound, None)
                if p.param_type_name == "option" and limit is not None:
                    yield pytest.param(command, p, limit + step, id=f"{command}-{p.name}-{bound}")


def _required_values(fn, tmp_path):
    """Values for the parameters without a default: paths that do not exist (the range check must come first)."""
    missing = str(tmp_path / "does-not-exist")
    args, kwargs = [], {}
    for p in inspect.signature(fn).parameters.values():
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(missing)
        elif p.default is p.empty and p.kind is p.KEYWORD_ONLY:
            kwargs[p.name] = missing
    return args, kwargs


@pytest.mark.parametrize("command, param, value", list(_ranges()))
def test_api_refuses_what_the_cli_refuses(command, param, value, tmp_path, monkeypatch):
    fn, _ = _api(command)
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    args, kwargs = _required_values(fn, tmp_path)
    kwargs[param.name] = value
    with pytest.raises(mg.UsageError) as exc:
        fn(*args, **kwargs)
    long = next(o for o in param.opts if o.startswith("--"))
    assert str(exc.value).startswith(f"{long}: "), str(exc.value)
    assert not os.listdir(work) and not (tmp_path / "does-not-exist").exists()  # refused before any work


def test_build_dispatches_to_every_builder_and_refuses_unknown_methods_and_options(tmp_path):

    with pytest.raises(mg.UsageError, match=r"^method: 'smaugg' is not one of subset, smaug, mtbreaker"):
        mg.build("smaugg", input="x.tsv", out=tmp_path / "o")
    with pytest.raises(
        mg.UsageError, match=r"^build subset: unknown option 'src_coll' \(did you mean src_col or src_lang\?\)"
    ):
        mg.build("subset", input="x.tsv", src_coll="es", out=tmp_path / "o")
    with pytest.raises(mg.UsageError, match=r"^build bandit: unknown option 'zzz' \(known: .*algorithm"):
        mg.build("bandit", zzz=1, out=tmp_path / "o")
    with pytest.raises(mg.UsageError, match=r"^build smaug: missing required option\(s\) src_lang, tgt_lang"):
        mg.build("smaug", input="x.tsv", out=tmp_path / "o")
    with pytest.raises(mg.UsageError, match=r"^build mtbreaker: give input= or seeds=, not both"):
        mg.build("mtbreaker", input="a.tsv", seeds="b.tsv", out=tmp_path / "o")
    with pytest.raises(mg.UsageError, match=r"^--budget: must be >= 1"):
        mg.build("bandit", corpus="x.tsv", budget=0, out=tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_a_field_added_to_an_options_dataclass_is_an_option_of_the_command_the_api_and_recipes():
    """Options are declared once (issue #35): one field added to a builder's options dataclass is a CLI option
    (help, range), an API keyword with its docstring line and range check, a recipe option with its range, and
    (``builds=False``) left out of the content address. Nothing else is written for it."""
    import dataclasses

    import typer
    import typer.main
    from typer.testing import CliRunner

    from mtgauntlet.builders.options.smaug import SmaugOptions
    from mtgauntlet.cli.declared import command
    from mtgauntlet.options import option, placement, takes
    from mtgauntlet.recipes.options import declared_options

    @dataclasses.dataclass(kw_only=True, frozen=True)
    class WiderOptions(SmaugOptions):
        """SMAUG with a cap on swaps."""

        max_swaps: int = option(3, min=1, max=9, help="Most swaps made in one reference.")
        patience: float = option(0.5, min=0.0, builds=False, help="Seconds to wait between two requests.")

    got = []

    @takes(WiderOptions)
    def build_wider(o: WiderOptions):
        """A builder that keeps what it was given.

        Returns:
            Its options.
        """
        got.append(o)
        return o

    required = {"input": "x.tsv", "out": "o", "src_lang": "es", "tgt_lang": "en"}
    # the API: a keyword with its default, a docstring line, the range check, the value passed through
    params = inspect.signature(build_wider).parameters
    assert params["max_swaps"].default == 3 and params["max_swaps"].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(params)[-3:] == ["max_swaps", "patience", "progress"]  # progress: every API function takes it
    assert params["src_lang"].default is inspect.Parameter.empty
    doc = inspect.getdoc(build_wider)
    assert "    max_swaps: Most swaps made in one reference (``1 to 9``).\n" in doc
    assert doc.index("Args:") < doc.index("max_swaps") < doc.index("Returns:")
    assert build_wider(**required, max_swaps=7).max_swaps == 7 and build_wider(**required).max_swaps == 3
    with pytest.raises(mg.UsageError, match=r"^--max-swaps: must be <= 9 \(got 10\)"):
        build_wider(**required, max_swaps=10)
    with pytest.raises(mg.UsageError, match=r"^--patience: must be >= 0.0"):
        build_wider(**required, patience=-1.0)
    with pytest.raises(TypeError, match="max_swap"):
        build_wider(**required, max_swap=2)
    # the CLI: the option in --help with its range, refused out of range, parsed into the same keyword
    app = typer.Typer()
    command(app, "wider", WiderOptions, got.append)
    command(app, "other", SmaugOptions, got.append)  # two commands: typer names the subcommand
    runner = CliRunner()
    cli = typer.main.get_command(app).commands
    made = {p.name: p for p in cli["wider"].params}["max_swaps"]
    assert (made.opts, made.help, made.default, made.min, made.max) == (
        ["--max-swaps"],
        "Most swaps made in one reference.",
        3,
        1,
        9,
    )
    assert cli["wider"].help == "SMAUG with a cap on swaps." and runner.invoke(app, ["wider", "--help"]).exit_code == 0
    argv = ["wider", "-i", "x.tsv", "-o", "o", "--src-lang", "es", "--tgt-lang", "en"]
    assert runner.invoke(app, [*argv, "--max-swaps", "10"]).exit_code == 2
    assert runner.invoke(app, [*argv, "--max-swaps", "5"]).exit_code == 0 and got[-1]["max_swaps"] == 5
    assert got[-1]["patience"] == 0.5 and "max_swaps" not in {p.name for p in cli["other"].params}
    # recipes: the option, its type, default and range
    table = declared_options(WiderOptions)
    assert (table["max-swaps"].type, table["max-swaps"].default, table["max-swaps"].min, table["max-swaps"].max) == (
        "int",
        3,
        1,
        9,
    )
    assert list(table)[-2:] == ["max-swaps", "patience"] and "max-swaps" not in declared_options(SmaugOptions)
    # what it is for: patience changes how, not what (not in the content address); max_swaps changes what
    assert "patience" in placement(WiderOptions) and "max_swaps" not in placement(WiderOptions)


def test_the_build_tables_are_read_from_the_declarations():
    """What ``default_out`` leaves out and the ranges the API checks are the declarations' (as the tables written
    out by hand before said): where to, how fast and whether at all never change what is built."""
    from mtgauntlet.api import building
    from mtgauntlet.options import declared, ranges

    assert sorted(building.placement_keywords()) == sorted(
        ["out", "overwrite", "concurrency", "engine", "actors", "max_cost", "max_requests", "dry_run"]
    )
    for method, record in methods().items():  # the CLI's bounds are the declared ones, whatever they are
        low, high = ranges(record.options)
        cli = introspect.options("build", method)
        assert {n: d.min for n, d in cli.items() if d.min is not None} == {
            k.replace("_", "-"): v for k, v in low.items()
        }
        assert {n: d.max for n, d in cli.items() if d.max is not None} == {
            k.replace("_", "-"): v for k, v in high.items()
        }
    for method, record in methods().items():
        fn = getattr(building, f"build_{method}")
        assert fn.options is record.options
        assert [p for p in inspect.signature(fn).parameters if p != "progress"] == [
            o.name for o in declared(record.options)
        ]
    with pytest.raises(mg.UsageError, match="build_smaug.*unexpected keyword argument 'src_coll'"):
        building.build_smaug(input="x.tsv", out="o", src_lang="es", tgt_lang="en", src_coll="es")
