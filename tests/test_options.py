"""The declaration mechanism (mtgauntlet/options.py): the order of a command's options (groups a dataclass inherits,
trailing groups last) and the flags derived from a field's name."""

from __future__ import annotations

import dataclasses

import typer
import typer.main
from typer.testing import CliRunner

from mtgauntlet.builders.options.groups import BuildRun, ParallelInput
from mtgauntlet.cli.declared import command
from mtgauntlet.options import declared, option, trailing


@trailing
@dataclasses.dataclass(kw_only=True, frozen=True)
class Closing:
    last: int = option(1, help="A trailing group's option.")
    very_last: bool = option(False, help="Another.")


@dataclasses.dataclass(kw_only=True, frozen=True)
class Opening:
    first: str = option("a", help="A leading group's option.")


@dataclasses.dataclass(kw_only=True, frozen=True)
class Command(Closing, Opening):
    own: str = option("b", help="The command's own option.")
    last: int = option(2, help="Declared again: another default, the group's place.")
    dry_run: bool = option(False, help="A bool declared without flags.")
    keep: bool = option(True, flags=("--keep/--drop",), help="A declared pair.")


def test_a_trailing_group_comes_after_the_commands_own_options_whatever_the_bases_order():
    assert [o.name for o in declared(Command)] == ["first", "own", "dry_run", "keep", "last", "very_last"]
    assert {o.name: o.default for o in declared(Command)}[
        "last"
    ] == 2  # the command's declaration, in the group's place


def test_a_method_on_the_shipped_groups_has_the_corpus_options_then_its_own_then_the_run_options():
    @dataclasses.dataclass(kw_only=True, frozen=True)
    class Method(BuildRun, ParallelInput):
        min_words: int = option(3, help="Its own option.")

    names = [o.name for o in declared(Method)]
    corpus = [o.name for o in declared(ParallelInput)]
    run = ["seed", "shard_size", "concurrency", "max_cost", "max_requests", "dry_run", "overwrite"]
    assert names == [*corpus, "min_words", *run]


def test_a_field_without_flags_is_its_name_with_dashes_and_a_bool_one_a_switch():
    app = typer.Typer()
    command(app, "cmd", Command, lambda values: print(sorted(values.items())))
    command(app, "other", Opening, lambda values: None)  # two commands: typer names the subcommand
    params = {p.name: p for p in typer.main.get_command(app).commands["cmd"].params}
    assert params["first"].opts == ["--first"] and params["very_last"].opts == ["--very-last"]
    assert (params["dry_run"].opts, params["dry_run"].secondary_opts, params["dry_run"].is_flag) == (
        ["--dry-run"],
        [],
        True,
    )
    assert (params["keep"].opts, params["keep"].secondary_opts) == (["--keep"], ["--drop"])
    r = CliRunner().invoke(app, ["cmd", "--dry-run", "--drop", "--very-last"])
    assert r.exit_code == 0, r.output
    assert "('dry_run', True)" in r.output and "('keep', False)" in r.output and "('very_last', True)" in r.output
    assert CliRunner().invoke(app, ["cmd", "--no-dry-run"]).exit_code == 2  # a switch: no --no-NAME
