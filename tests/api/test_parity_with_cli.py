"""The Python API, the CLI and recipes take the same options (issues #27, #41): every command is made from an
options dataclass (`mtgauntlet.options`); the API function made from the same dataclass takes the command's
arguments positionally and its options by name, with the same defaults, and refuses what the command refuses
(a value out of a declared range or outside the declared choices: a ``UsageError`` naming the option before any
work; the command: one line ``error: ...``, exit 2); a recipe's table has the same defaults, ranges and choices.

Nothing here lists commands or options: they are read from the CLI (`mtgauntlet.cli.introspect.declared_commands`),
the API functions from the modules of `mtgauntlet.api` and `mtgauntlet.recipes` (a function made by
`mtgauntlet.options.takes` names its dataclass as ``.options``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import pkgutil

import pytest

import mtgauntlet as mg
from mtgauntlet.builders.methods import methods
from mtgauntlet.cli import introspect
from mtgauntlet.options import Declared, declared
from tests.support.cli import REPO, invoke

CLI_ONLY_COMMANDS = {"completion"}  # prints a shell script: nothing for Python to call
RECIPE_STEPS = {"validate": "validate records", "audit": "audit", "publish": "publish"}  # recipe key -> command


def _api_functions() -> dict[type, list]:
    """Options dataclass -> the API functions made from it (``mg.query`` and ``query_table`` share one)."""
    import mtgauntlet.api
    import mtgauntlet.recipes

    found: dict[type, list] = {}
    for package in (mtgauntlet.api, mtgauntlet.recipes):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for value in vars(module).values():
                cls = getattr(value, "options", None)
                if inspect.isfunction(value) and isinstance(cls, type) and value.__module__ == module.__name__:
                    found.setdefault(cls, []).append(value)
    return found


API_FUNCTIONS = _api_functions()
COMMANDS = {" ".join(path): (cmd, cls, cli_only) for path, cmd, cls, cli_only in introspect.declared_commands()}


def _public_first(fns: list) -> list:
    """``mg.query`` before ``query_table``: the function ``mg`` exports, where there are several."""
    return sorted(fns, key=lambda fn: fn.__name__ not in mg.__all__)


API_OF = {  # command -> (its API function, the names of its CLI-only options)
    command: (fn, set(cli_only) | {"help"})
    for command, (_, cls, cli_only) in COMMANDS.items()
    for fn in _public_first(API_FUNCTIONS.get(cls, []))[:1]
}


def test_every_command_is_declared_and_has_its_api_function():
    """Every command is made from an options dataclass, and every one but ``completion`` has its API function;
    every public function of ``mg`` that takes options is made from a dataclass (one declaration)."""
    leaves = {" ".join(path) for path, _ in introspect.all_commands()}
    assert leaves == set(COMMANDS), leaves ^ set(COMMANDS)
    assert {c for c in COMMANDS if c not in API_OF} == CLI_ONLY_COMMANDS
    assert len(COMMANDS) >= 27 and {"release", "import", "query", "validate records", "run"} <= set(API_OF)
    dispatchers = {"build", "score", "evaluate", "simulate"}  # mg.build(METHOD, ...) calls the methods' functions
    made = {fn for fns in API_FUNCTIONS.values() for fn in fns}
    for name in mg.__all__:
        fn = getattr(mg, name)
        if inspect.isfunction(fn) and name not in dispatchers and name not in ("list_releases", "open_release"):
            assert fn in made, f"mg.{name} is not made from an options dataclass"


def test_hand_written_typer_options_only_for_the_global_options():
    """``typer.Option`` / ``typer.Argument`` are written out only for the global options (main's root callback
    and ``_setting``, its options read from the environment); every other is made from a declaration
    (`mtgauntlet.cli.declared`)."""
    found = []
    for path in sorted((REPO / "mtgauntlet" / "cli").glob("*.py")):
        if path.name == "declared.py":  # the generator
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        root = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in ("_root", "_setting")]
        globals_ = (
            {line for n in root for line in range(n.lineno, n.end_lineno + 1)} if path.name == "main.py" else set()
        )
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("Option", "Argument")
                and node.lineno not in globals_
            ):
                found.append(f"{path.name}:{node.lineno}")
    assert not found, found


def _same_default(cli_default, api_default) -> bool:
    if isinstance(cli_default, (list, tuple)) or isinstance(api_default, (list, tuple)):
        return list(cli_default or []) == list(api_default or [])
    return cli_default == api_default


def _choices(o: Declared) -> tuple | None:
    return None if o.info.choices is None else tuple(o.info.choices())


def _recipe_table(command: str):
    """The recipe's option table of a command (a build entry's or a step's), or None: not in recipes."""
    from mtgauntlet.recipes.options import builder_options, step_options

    if command.startswith("build "):
        return builder_options(command.split()[1])
    step = next((k for k, v in RECIPE_STEPS.items() if v == command), None)
    return None if step is None else step_options()[step]


@pytest.mark.parametrize("command", sorted(API_OF))
def test_api_parameters_cli_options_and_recipe_tables_are_the_declaration(command):
    """One declaration, three readers: the API function's parameters (arguments positional, options keyword-only,
    the same defaults), the command's parameters (required, default, range, a choices check) and the recipe's
    table (default, range, choices), in the declaration's order."""
    fn, cli_only = API_OF[command]
    cmd, cls, _ = COMMANDS[command]
    fields = declared(cls)
    params = [p for p in inspect.signature(fn).parameters.values() if p.name != "progress"]
    assert [p.name for p in params] == [o.name for o in fields], command
    for o, a in zip(fields, params):
        kind = a.POSITIONAL_OR_KEYWORD if o.info.argument else a.KEYWORD_ONLY
        assert a.kind is kind and (a.default is a.empty) == o.required, (command, o.name)
        assert o.required or _same_default(o.default, a.default), (command, o.name)
    cli = [p for p in cmd.params if p.name not in cli_only]
    assert [p.name for p in cli] == [o.name for o in fields], command
    for o, c in zip(fields, cli):
        assert c.param_type_name == ("argument" if o.info.argument else "option"), (command, o.name)
        assert bool(c.required) == (o.required or o.info.cli_required), (command, o.name)
        assert c.required or _same_default(c.default, o.default), (command, o.name, c.default, o.default)
        assert (getattr(c, "min", None), getattr(c, "max", None)) == (o.info.min, o.info.max), (command, o.name)
        assert (c.callback is not None) == (o.info.choices is not None), (command, o.name)
    table = _recipe_table(command)
    if table is not None:
        for o in fields:
            name = o.name.replace("_", "-")
            if o.info.argument or name not in table:  # set by the run (a step's path, audit's out, the report)
                continue
            d = table[name]
            assert (d.min, d.max, d.choices, d.required) == (o.info.min, o.info.max, _choices(o), o.required), name
            assert o.required or _same_default(d.default, o.default), (command, name)
    assert inspect.signature(fn).parameters["progress"].default is False
    doc = inspect.getdoc(fn) or ""
    sections = ("Args:", "Returns:", "Examples:") if params else ("Returns:", "Examples:")
    assert all(part in doc for part in sections), f"{command}: docstring"


def _refused():
    """(command, declared option, a value it refuses) for every range bound and every choice list declared."""
    for command in sorted(COMMANDS):
        for o in declared(COMMANDS[command][1]):
            for bound, step in (("min", -1), ("max", 1)):
                limit = getattr(o.info, bound)
                if limit is not None:
                    yield pytest.param(command, o, limit + step, id=f"{command}-{o.name}-{bound}")
            if o.info.choices is not None:
                bad = ["not-a-choice"] if isinstance(o.default, tuple) else "not-a-choice"
                yield pytest.param(command, o, bad, id=f"{command}-{o.name}-choices")


@pytest.mark.parametrize("command, o, value", list(_refused()))
def test_api_and_cli_refuse_what_is_declared_out_of_range_or_choices(command, o, value, tmp_path, monkeypatch):
    """A value outside a declared range or choice list: the API raises a ``UsageError`` naming the option as the
    command line does, the command prints one line ``error: ...`` and exits 2; neither does any work."""
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    missing = str(tmp_path / "does-not-exist")
    fields = declared(COMMANDS[command][1])
    if command in API_OF:
        fn, _ = API_OF[command]
        kwargs = {f.name: missing for f in fields if f.required and f is not o}
        with pytest.raises(mg.UsageError) as exc:
            fn(**kwargs, **{o.name: value})
        assert str(exc.value).startswith(f"{o.flag}: "), str(exc.value)
    argv = [*command.split()]
    for f in fields:
        given = value if f is o else missing
        if f is not o and not (f.required or f.info.cli_required):
            continue
        for one in given if isinstance(given, list) else [given]:
            argv += [str(one)] if f.info.argument else [f.flag, str(one)]
    r = invoke(argv)
    lines = r.stderr.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (argv, r.stderr)
    assert o.flag in lines[0] or o.flag.upper() in lines[0] or f"'{o.flag}'" in lines[0], lines[0]
    assert not os.listdir(work) and not (tmp_path / "does-not-exist").exists()  # refused before any work


def test_build_dispatches_to_every_builder_and_refuses_unknown_methods_and_options(tmp_path):

    assert sorted(methods()) == sorted(c.split()[1] for c in API_OF if c.startswith("build "))
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
    # its own options after those it inherits, but before the run options of the trailing groups (BuildRun);
    # progress: every API function takes it
    run = ["seed", "shard_size", "concurrency", "max_cost", "max_requests", "dry_run", "overwrite", "progress"]
    assert list(params)[-10:] == ["max_swaps", "patience", *run]
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
    assert list(table)[-9:-7] == ["max-swaps", "patience"] and "max-swaps" not in declared_options(SmaugOptions)
    assert list(table)[-7:] == [name.replace("_", "-") for name in run[:-1]]
    # what it is for: patience changes how, not what (not in the content address); max_swaps changes what
    assert "patience" in placement(WiderOptions) and "max_swaps" not in placement(WiderOptions)


def test_the_build_tables_are_read_from_the_declarations():
    """What ``default_out`` leaves out and the ranges the API checks are the declarations' (as the tables written
    out by hand before said): where to, how fast and whether at all never change what is built."""
    from mtgauntlet.api import building
    from mtgauntlet.options import declared

    assert sorted(building.placement_keywords()) == sorted(
        ["out", "overwrite", "concurrency", "engine", "actors", "max_cost", "max_requests", "dry_run"]
    )
    for method, record in methods().items():  # every registered method's function takes its options (the ranges:
        fn = getattr(building, f"build_{method}")  # test_api_parameters_cli_options_and_recipe_tables_...)
        assert fn.options is record.options
        assert [p for p in inspect.signature(fn).parameters if p != "progress"] == [
            o.name for o in declared(record.options)
        ]
    with pytest.raises(mg.UsageError, match="build_smaug.*unexpected keyword argument 'src_coll'"):
        building.build_smaug(input="x.tsv", out="o", src_lang="es", tgt_lang="en", src_coll="es")
