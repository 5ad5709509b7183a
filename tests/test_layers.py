"""Imports run one way: the public API (``mtgauntlet.api``), the recipe runner (``mtgauntlet.recipes``) and
everything below them never import the CLI (``mtgauntlet.cli``), which is a thin layer over the API. Checked on
the source with ``ast``: imports at module level and inside functions alike."""

from __future__ import annotations

import ast
from pathlib import Path

import mtgauntlet

PACKAGE = Path(mtgauntlet.__file__).parent
# above the CLI, nothing imports it: `python -m mtgauntlet.demo` runs `gauntlet` commands as typed
ABOVE_CLI = {"mtgauntlet.demo"}


def module_name(path: Path) -> tuple[str, str]:
    """(module, the package its relative imports start from) of a file of the package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), ".".join(parts[:-1])
    return ".".join(parts), ".".join(parts[:-1])


def imported_modules(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) of every import in ``source``, relative ones resolved against ``package``; ``from X import
    Y`` yields both X and X.Y (``from mtgauntlet import cli``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def is_cli(module: str) -> bool:
    return module == "mtgauntlet.cli" or module.startswith("mtgauntlet.cli.")


def imports(where) -> list[str]:
    """``file:line: imports MODULE`` for every import of a module ``where(module)`` holds, in every file of the
    package outside the CLI and above it."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name, package = module_name(path)
        if is_cli(name) or name in ABOVE_CLI:
            continue
        hits = {}  # one per import statement: ``from X import Y`` names X (or X.Y where X alone is not wrong)
        for line, module in imported_modules(path.read_text(encoding="utf-8"), package):
            if where(module):
                hits.setdefault(line, module)
        out += [f"{path.relative_to(PACKAGE.parent)}:{line}: imports {hits[line]}" for line in sorted(hits)]
    return out


def test_nothing_below_the_cli_imports_it():
    assert (PACKAGE / "api" / "recipes.py").is_file() and (PACKAGE / "cli" / "main.py").is_file()
    wrong = imports(is_cli)
    assert not wrong, "\n".join(wrong)


def test_nothing_imports_what_sits_above_the_cli():
    wrong = imports(lambda module: module in ABOVE_CLI)
    assert not wrong, "\n".join(wrong)


def test_the_check_finds_imports_in_functions_from_imports_and_relative_ones():
    source = ("import json\n"
              "def f():\n    from mtgauntlet.cli.main import app\n"
              "from mtgauntlet import cli\n"
              "from ..cli import introspect\n"
              "import mtgauntlet.cli.reference as r\n"
              "from . import clip\n"
              "from mtgauntlet.recipes import plan\n")
    found = [(line, m) for line, m in imported_modules(source, "mtgauntlet.api") if is_cli(m)]
    assert sorted({line for line, _ in found}) == [3, 4, 5, 6]
    assert module_name(PACKAGE / "api" / "recipes.py") == ("mtgauntlet.api.recipes", "mtgauntlet.api")
    assert module_name(PACKAGE / "api" / "__init__.py") == ("mtgauntlet.api", "mtgauntlet.api")


def _comparable(table) -> dict:
    """An option table with what a recipe uses of each option (a list default as a list; the off-name of a flag
    only where it is used: a flag that defaults to true)."""
    return {name: (d.type, list(d.default) if d.multiple else d.default, d.required, d.multiple, d.min, d.max,
                   d.off if d.type == "bool" and d.default is True else None) for name, d in table.items()}


BUILDERS = ("subset", "smaug", "mtbreaker", "zeroshot", "bandit")
STEP_COMMANDS = {"validate": ("validate", "records"), "audit": ("audit",), "publish": ("publish",)}


def test_recipe_option_tables_read_from_the_api_are_the_cli_options():
    """Recipes read their option tables from the API functions, never from click: the tables are exactly the
    commands' options (names in order, types, defaults, required, lists, ranges), so a recipe is the commands
    written down and its resolved form lists the options as before."""
    from mtgauntlet.cli import introspect
    from mtgauntlet.recipes.options import STEP_EXCLUDE, builder_options, step_options

    assert builder_options("smaugg") is None
    for builder in BUILDERS:
        cli = {k: v for k, v in introspect.options("build", builder).items() if k != "overwrite"}
        ours = {k: v for k, v in builder_options(builder).items() if k != "overwrite"}
        assert list(ours) == list(cli), builder  # the order of the resolved recipe's keys
        assert _comparable(ours) == _comparable(cli), builder
    steps = step_options()
    for step, command in STEP_COMMANDS.items():
        cli = introspect.options(*command, exclude=("help", *STEP_EXCLUDE[step]))
        if step == "validate":  # validate: never took --json in a recipe
            cli.pop("json")
        assert list(steps[step]) == list(cli), step
        assert _comparable(steps[step]) == _comparable(cli), step
    ranged = {(b, n): (d.min, d.max) for b in BUILDERS for n, d in builder_options(b).items() if d.min is not None}
    assert ranged[("bandit", "epsilon")] == (0.0, 1.0) and ranged[("subset", "budget")] == (1, None)
    assert steps["audit"]["examples"].min == 0 and steps["audit"]["metric-results"].multiple
    assert builder_options("smaug")["src-lang"].required and builder_options("subset")["max-cost"].type == "float"
