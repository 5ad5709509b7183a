"""Registry-wide tests of the build methods (mtgauntlet/builders/methods.py): every registered method, with the
example its record supplies, builds the same records through ``mg.build`` and ``gauntlet build``, dry-runs without
writing, has a command, an API keyword list and a recipe table made of its options, and a card text. A method added
by one module and one registration line is tested here as the five shipped ones are."""

from __future__ import annotations

import pytest

import mtgauntlet as mg
from mtgauntlet.builders.methods import REGISTERED, methods
from mtgauntlet.cards.methods import method_text
from mtgauntlet.options import declared
from tests.api.test_building import _argv, _same_records
from tests.support.cli import invoke
from tests.support.scripted_roles import scripted_stack, seeded_editor


@pytest.fixture(scope="module")
def roles():
    with scripted_stack(seeded_editor()) as s:
        yield s


def _filled(value, places: dict[str, str]):
    """The example with its placeholders (``{sample}``, ``{llm}``, ``{mt}``, ``{qe}``) filled in."""
    if isinstance(value, str):
        return value.format(**places)
    if isinstance(value, (list, tuple)):
        return [_filled(v, places) for v in value]
    return value


def test_the_registry_lists_every_method_once_with_its_record():
    assert list(methods()) == list(REGISTERED)
    for name, record in methods().items():
        assert record.name == name and record.input in {o.name for o in declared(record.options)}
        assert isinstance(record.builder_class, type), name
        assert record.example.get(record.input), f"{name}: its record's example must name an input"


@pytest.mark.parametrize("name", list(REGISTERED))
def test_every_method_builds_its_example_alike_through_the_api_and_the_cli(name, tmp_path, sample_path, roles):
    record = methods()[name]
    places = {"sample": str(sample_path), "llm": roles["llm"], "mt": roles["mt"], "qe": roles["qe_a"]}
    options = {key: _filled(value, places) for key, value in record.example.items()}

    planned = mg.build(name, out=tmp_path / "dry", dry_run=True, **options)
    assert planned.plan is not None and not (tmp_path / "dry").exists()  # the dry run writes nothing

    built = mg.build(name, out=tmp_path / "api", **options)
    assert built.summary["builder"] == name and built.summary["status"] == "complete"
    assert built.signature.startswith(f"builder:{name}|")
    r = invoke(["build", name, *_argv(options), "--out", tmp_path / "cli"])
    assert r.exit_code == 0, r
    _same_records(built, tmp_path / "cli")

    text = method_text(name)  # what the card says of the method comes from the record
    assert text == record.text and text.title and text.description
