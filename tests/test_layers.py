"""Imports run one way, down a fixed order of layers, and no two modules import each other.

Checked on the source with ``ast``: imports at module level and inside functions alike (a lazy import is an
arrow all the same; only heavy third-party libraries are deferred, never to dodge a cycle). The order, bottom
to top (a package may import the packages of the layers below it and, sideways, only the arrows in
``SIDEWAYS``):

- L0, the bottom: the modules every layer uses and that import nothing above them: the package root
  (``__version__``), ``errors``, ``atomic``, ``fileio``, ``versions``, ``signature``, ``schema_docs``, ``schema_types``,
  ``schema``, ``records``, ``tables``, ``phenomena``, ``shards``, ``release_layout`` (where records go in a
  release: read by the cards and written by the releases, so it sits below both) and the bottom package
  ``mtgauntlet/core/`` (progress display, usage ledger, answer cache, public specs / secret redaction, the
  input digest; see docs/development.md).
- L1 ``corpora`` (reading input files), L2 ``models`` (backends), L3 ``validators`` and ``engines``,
  L4 ``builders`` (they run validators' checks and models), L5 ``evaluation``, ``runner``, ``training``,
  L6 ``cards``, L7 ``releases`` and ``sets`` (a release writes its card, so cards never import releases),
  L8 ``api`` (one function per verb), L9 ``recipes`` (run through the API: ``mg.run`` lives in
  ``recipes/running.py``, ``mg.reproduce`` in ``recipes/reproducing.py``), L10 ``cli`` and ``demo`` (the demo runs
  ``gauntlet`` commands as typed).

The package root sits at L0 for what it holds (``__version__``, the error classes); its ``_API`` map names the
API and recipe functions as strings imported on first attribute access (``mg.build``, ``mg.run``): the front
door, not an import of the root. ``KNOWN`` lists the arrows and cycles that remain, each naming where it is and
what it waits for; the check fails on any other one, and on a ``KNOWN`` entry that no longer occurs (so the
list only shrinks).
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import mtgauntlet

PACKAGE = Path(mtgauntlet.__file__).parent
ROOT = "<root>"
LAYERS = (
    (
        ROOT,
        "errors",
        "atomic",
        "fileio",
        "versions",
        "signature",
        "schema_docs",
        "schema_types",
        "schema",
        "records",
        "tables",
        "phenomena",
        "shards",
        "release_layout",
        "core",
        "options",
    ),
    ("corpora",),
    ("shared_options",),  # option fields several commands declare (reads the corpus readers' limits)
    ("models",),
    ("validators", "engines"),
    ("builders",),
    ("evaluation", "runner", "training"),
    ("cards",),
    ("releases", "sets", "workbench"),
    ("api",),
    ("recipes",),
    ("cli", "demo"),
)
# arrows inside a layer (L0's modules import each other freely: only module cycles are wrong there)
SIDEWAYS = {
    ("training", "evaluation"),
    ("training", "runner"),
    ("evaluation", "runner"),
    ("sets", "releases"),
    ("workbench", "releases"),
    ("demo", "cli"),
}

# Arrows (importing module, imported module) and cycles (sorted modules) that remain, one a line, with where they
# are and what they wait for. An entry that no longer occurs fails the check: delete it.
KNOWN: dict[tuple[str, str], str] = {}
KNOWN_CYCLES: set[tuple[str, ...]] = set()


def module_name(path: Path, package: Path = PACKAGE) -> tuple[str, str]:
    """(module, the package its relative imports start from) of a file of the package."""
    parts = path.relative_to(package.parent).with_suffix("").parts
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
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def import_graph(package: Path = PACKAGE) -> dict[str, dict[str, int]]:
    """{module: {module of the package it imports: first line}}; ``from X import Y`` names X.Y where that is a
    module of the package, else X."""
    files = {module_name(p, package): p for p in sorted(package.rglob("*.py"))}
    modules = {name for name, _ in files}
    graph: dict[str, dict[str, int]] = {}
    for (name, base), path in files.items():
        edges: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                found = imported_modules(ast.unparse(node), base)
                origin = found[0][1]
                targets = [m if m in modules else origin for _, m in found[1:]]
            else:
                continue
            for target in targets:
                if target in modules and target != name:
                    edges[target] = min(edges.get(target, node.lineno), node.lineno)
        graph[name] = edges
    return graph


def top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def layer_of(package: str) -> int:
    for i, layer in enumerate(LAYERS):
        if package in layer:
            return i
    raise AssertionError(f"mtgauntlet.{package}: in no layer of tests/test_layers.py (add it to LAYERS)")


def allowed(importer: str, imported: str) -> bool:
    a, b = top(importer), top(imported)
    if a == b or layer_of(a) == 0 and layer_of(b) == 0:
        return True
    return layer_of(b) < layer_of(a) or (a, b) in SIDEWAYS


def upward_arrows(graph: dict[str, dict[str, int]]) -> dict[tuple[str, str], int]:
    return {(m, d): line for m, deps in graph.items() for d, line in deps.items() if not allowed(m, d)}


def cycles(graph: dict[str, dict[str, int]]) -> set[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[tuple[str, ...]] = set()
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(graph[w])))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.add(tuple(sorted(comp)))
    return found


def where(graph, package: Path, importer: str, imported: str) -> str:
    rel = importer.replace(".", "/")
    path = package.parent / f"{rel}.py"
    if not path.exists():
        path = package.parent / rel / "__init__.py"
    return f"{path.relative_to(package.parent)}:{graph[importer][imported]}: imports {imported}"


def layering_problems(package: Path = PACKAGE, known=None, known_cycles=None) -> list[str]:
    """One line per upward arrow or module cycle not in ``known``/``known_cycles``, and per entry of those
    that no longer occurs."""
    known = KNOWN if known is None else known
    known_cycles = KNOWN_CYCLES if known_cycles is None else known_cycles
    graph = import_graph(package)
    arrows = upward_arrows(graph)
    found_cycles = cycles(graph)
    out = [
        f"{where(graph, package, m, d)} (upward: {top(m)} may not import {top(d)}, see LAYERS)"
        for m, d in sorted(arrows)
        if (m, d) not in known
    ]
    out += [f"import cycle: {' <-> '.join(c)}" for c in sorted(found_cycles - set(known_cycles))]
    out += [f"KNOWN arrow {m} -> {d} no longer occurs: delete it" for m, d in sorted(set(known) - set(arrows))]
    out += [f"KNOWN cycle {c} no longer occurs: delete it" for c in sorted(set(known_cycles) - found_cycles)]
    return out


def test_imports_run_down_the_layers_without_cycles():
    problems = layering_problems()
    assert not problems, "\n".join(problems)


def test_every_package_has_a_layer():
    packages = {top(m) for m in import_graph()}
    assert {"cli", "api", "recipes", "demo", "builders", "errors"} <= packages
    for package in packages:
        layer_of(package)


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(
        PACKAGE,
        tmp_path / "mtgauntlet",
        ignore=lambda d, names: [
            n for n in names if not n.endswith(".py") and not (Path(d) / n).is_dir() or n == "__pycache__"
        ],
    )
    return tmp_path / "mtgauntlet"


def test_the_check_catches_a_planted_upward_import_and_a_planted_cycle(tmp_path):
    copy = _copy(tmp_path)
    assert layering_problems(copy) == []
    with (copy / "corpora" / "formats.py").open("a", encoding="utf-8") as f:
        f.write("\n\ndef planted():\n    from ..cards import markdown\n")  # corpora (L1) -> cards (L6), lazy
    with (copy / "fileio.py").open("a", encoding="utf-8") as f:
        f.write("\n\ndef planted():\n    import mtgauntlet.atomic\n")
    with (copy / "atomic.py").open("a", encoding="utf-8") as f:
        f.write("\n\ndef planted():\n    from mtgauntlet.fileio import read_json_object\n")
    problems = layering_problems(copy)
    assert len(problems) == 2, problems
    upward, cycle = problems
    assert upward.startswith("mtgauntlet/corpora/formats.py:") and "imports mtgauntlet.cards.markdown" in upward
    assert cycle == "import cycle: mtgauntlet.atomic <-> mtgauntlet.fileio"
    # a KNOWN entry that no longer occurs is reported, so the list only shrinks
    stale = layering_problems(copy, known={**KNOWN, ("mtgauntlet.fileio", "mtgauntlet.cli"): "gone"})
    assert "KNOWN arrow mtgauntlet.fileio -> mtgauntlet.cli no longer occurs: delete it" in stale


def test_the_check_finds_imports_in_functions_from_imports_and_relative_ones():
    source = (
        "import json\n"
        "def f():\n    from mtgauntlet.cli.main import app\n"
        "from mtgauntlet import cli\n"
        "from ..cli import introspect\n"
        "import mtgauntlet.cli.reference as r\n"
        "from . import clip\n"
        "from mtgauntlet.recipes import plan\n"
    )
    found = [(line, m) for line, m in imported_modules(source, "mtgauntlet.api") if top(m) == "cli"]
    assert sorted({line for line, _ in found}) == [3, 4, 5, 6]
    assert module_name(PACKAGE / "api" / "checking.py") == ("mtgauntlet.api.checking", "mtgauntlet.api")
    assert module_name(PACKAGE / "api" / "__init__.py") == ("mtgauntlet.api", "mtgauntlet.api")
    assert not allowed("mtgauntlet.api.checking", "mtgauntlet.cli.main")
    assert not allowed("mtgauntlet.cards.card", "mtgauntlet.releases.release")
    assert allowed("mtgauntlet.releases.release", "mtgauntlet.cards.card")
    assert allowed("mtgauntlet.cli.main", "mtgauntlet.demo") is False and allowed("mtgauntlet.demo", "mtgauntlet.cli")


def _comparable(table) -> dict:
    """An option table with what a recipe uses of each option (a list default as a list; the off-name of a flag
    only where it is used: a flag that defaults to true)."""
    return {
        name: (
            d.type,
            list(d.default) if d.multiple else d.default,
            d.required,
            d.multiple,
            d.min,
            d.max,
            d.off if d.type == "bool" and d.default is True else None,
        )
        for name, d in table.items()
    }


STEP_COMMANDS = {"validate": ("validate", "records"), "audit": ("audit",), "publish": ("publish",)}


def test_recipe_option_tables_read_from_the_api_are_the_cli_options():
    """Recipes read their option tables from the API functions, never from click: the tables are exactly the
    commands' options (names in order, types, defaults, required, lists, ranges), so a recipe is the commands
    written down and its resolved form lists the options as before."""
    from mtgauntlet.builders.methods import REGISTERED
    from mtgauntlet.cli import introspect
    from mtgauntlet.recipes.options import STEP_EXCLUDE, builder_options, step_options

    assert builder_options("smaugg") is None
    for builder in REGISTERED:  # every registered method
        cli = introspect.options("build", builder)
        ours = builder_options(builder)
        # the order of the resolved recipe's keys; --json (how a command prints, ignored in a recipe: last there)
        # and --overwrite (after --dry-run or not) may stand elsewhere on the command line
        placed = ("overwrite", "json")
        assert [k for k in ours if k not in placed] == [k for k in cli if k not in placed], builder
        assert _comparable(ours) == _comparable(cli), builder
    steps = step_options()
    for step, command in STEP_COMMANDS.items():
        cli = introspect.options(*command, exclude=("help", *STEP_EXCLUDE[step]))
        if step == "validate":  # validate: never took --json in a recipe
            cli.pop("json")
        assert list(steps[step]) == list(cli), step
        assert _comparable(steps[step]) == _comparable(cli), step
    ranged = {(b, n): (d.min, d.max) for b in REGISTERED for n, d in builder_options(b).items() if d.min is not None}
    assert ranged[("bandit", "epsilon")] == (0.0, 1.0) and ranged[("subset", "budget")] == (1, None)
    assert steps["audit"]["examples"].min == 0 and steps["audit"]["metric-results"].multiple
    assert builder_options("smaug")["src-lang"].required and builder_options("subset")["max-cost"].type == "float"


# modules that are 400 lines or more today, each with what waits for it; an entry that is under 400 again fails the
# check (delete it), so the list only shrinks
LONG_KNOWN: dict[str, str] = {}


def test_every_module_is_under_400_lines():
    """The house rule (docs/contributing.md, docs/development.md): a module that grows past 400 lines is split by
    meaning."""
    long = {
        p.relative_to(PACKAGE).as_posix(): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) >= 400
    }
    assert set(long) - set(LONG_KNOWN) == set(), f"modules of 400 lines or more: {long}"
    assert set(LONG_KNOWN) <= set(long), f"under 400 lines again, delete from LONG_KNOWN: {set(LONG_KNOWN) - set(long)}"
