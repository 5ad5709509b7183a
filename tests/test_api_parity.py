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
from mtgauntlet.cli import introspect

# CLI options every command may have that the API has no use for: the API returns objects instead of printing
CLI_ONLY = {"json_out", "help"}

API_OF = {  # CLI command path -> (public function of mtgauntlet, options only the CLI has, beyond CLI_ONLY)
    "release": ("release", ()),
    "verify": ("verify", ()),
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
    "simulate bandit": ("mtgauntlet.api.evaluating:simulate_bandit", ()),
    "models": ("mtgauntlet.api.evaluating:list_models", ()),  # mg.list_models (mtgauntlet.models is a package)
    "run": ("run", ()),
    "reproduce": ("reproduce", ()),
    **{f"build {m}": (f"mtgauntlet.api.building:build_{m}", ()) for m in ("subset", "smaug", "mtbreaker", "zeroshot",
                                                                           "bandit")},
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
    from mtgauntlet.api import building

    assert sorted(building.BUILDERS) == sorted(c.split()[1] for c in API_OF if c.startswith("build "))
    with pytest.raises(mg.UsageError, match=r"^method: 'smaugg' is not one of subset, smaug, mtbreaker"):
        mg.build("smaugg", input="x.tsv", out=tmp_path / "o")
    with pytest.raises(mg.UsageError, match=r"^build subset: unknown option 'src_coll' \(did you mean src_col or src_lang\?\)"):
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
