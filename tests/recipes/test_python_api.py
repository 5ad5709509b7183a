"""mg.run / mg.reproduce (issue #27): a recipe runs through the Python API silently and returns the Release
(the plan on a dry run); its release keys reach the card and Croissant (url, creator, stated provenance), and the
builds' input files reach the release, so the shipped sample is recognised by its sha256 (Apache-2.0);
mg.reproduce returns the Reproduction that `gauntlet reproduce` prints."""

from __future__ import annotations

import json
import shutil

import pytest

import mtgauntlet as mg
from tests.support.cli import invoke

RECIPE = """\
recipe: 1
release:
  name: prov
  version: 0.1.0
  url: https://example.org/prov
  creator: [Ana, Ben]
  provenance:
    mine: {license: cc-by-4.0, name: My corpus, url: "https://example.org/mine"}
builds:
  hardest:
    builder: subset
    input: sample.tsv
    src-col: es
    src-lang: es
    budget: 4
  pairs:
    builder: smaug
    input: mine.tsv
    src-col: es
    ref-col: en
    src-lang: es
    tgt-lang: en
    good-from: reference
    phenomena: num
validate: {}
"""


@pytest.fixture()
def recipe(tmp_path, sample_path):
    shutil.copy(sample_path, tmp_path / "sample.tsv")  # the shipped sample's bytes under another name
    (tmp_path / "mine.tsv").write_text(
        "id\tes\ten\n1\tTengo 12 gatos.\tI have 12 cats.\n2\tSon las 3 de la tarde.\tIt is 3 in the afternoon.\n",
        encoding="utf-8",
    )
    (tmp_path / "r.yaml").write_text(RECIPE, encoding="utf-8")
    return tmp_path / "r.yaml"


def test_run_returns_the_release_silently_with_the_recipes_provenance(recipe, tmp_path, capfd, monkeypatch):
    monkeypatch.chdir(tmp_path)
    capfd.readouterr()
    plan = mg.run(recipe, work="w", releases="rel", dry_run=True)
    assert [b["state"] for b in plan.builds] == ["new", "new"] and not (tmp_path / "w").exists()
    assert plan.release == tmp_path.joinpath("rel", "name=prov", "version=0.1.0").relative_to(tmp_path)
    with pytest.warns(mg.GauntletWarning, match="different licences"):
        rel = mg.run(recipe, work="w", releases="rel")
    assert capfd.readouterr() == ("", "")
    assert isinstance(rel, mg.Release) and rel.name == "prov" and mg.verify(rel).ok
    assert rel.not_validated == [] and rel.warnings == [
        "licence: the sources have different licences (apache-2.0, cc-by-4.0); pick the release licence with --license"
    ]  # each source's licence is known: recognised by sha256, or stated in the recipe
    sources = {s["dataset"]: s for s in rel.manifest["license"]["sources"]}
    assert sources["sample"]["license"] == "apache-2.0" and sources["sample"]["origin"].startswith("recognised by")
    assert sources["mine"]["license"] == "cc-by-4.0" and sources["mine"]["name"] == "My corpus"
    assert str(tmp_path) not in json.dumps(rel.manifest["license"])  # no local path reaches the card
    croissant = json.loads((rel.path / "croissant.json").read_text(encoding="utf-8"))
    assert croissant["url"] == "https://example.org/prov"
    assert [c["name"] for c in croissant["creator"]] == ["Ana", "Ben"]
    # the same again: nothing new, the existing release returned; as `gauntlet run` prints it
    again = mg.run(recipe, work="w", releases="rel")
    assert again.path == rel.path and again.manifest == rel.manifest
    r = invoke(["run", recipe, "--work", "w", "--releases", "rel"])
    assert r.exit_code == 0 and "not released again" in r.stdout and "complete and unchanged" in r.stdout, r

    check = mg.reproduce(rel, inputs=tmp_path)
    assert isinstance(check, mg.Reproduction) and check.reproduced and bool(check)
    assert set(check.kinds) == {"selected_text", "smaug_pair"} and check.rebuild is None
    assert capfd.readouterr() == ("", "")
    shown = invoke(["reproduce", rel.path, "--inputs", tmp_path])
    assert shown.exit_code == 0 and shown.stdout.strip() == check.describe(), shown


def test_bad_provenance_in_a_recipe_is_one_error_naming_the_line(recipe, tmp_path):
    recipe.write_text(RECIPE.replace("license: cc-by-4.0", "license: not-a-licence"), encoding="utf-8")
    with pytest.raises(mg.GauntletError, match=r"r.yaml, line 7, field 'release.provenance'.*not-a-licence"):
        mg.run(recipe, work=tmp_path / "w", releases=tmp_path / "rel")
    recipe.write_text(RECIPE.replace("name: My corpus", "nom: My corpus"), encoding="utf-8")
    with pytest.raises(mg.GauntletError, match=r"unknown provenance field 'nom'"):
        mg.run(recipe, work=tmp_path / "w", releases=tmp_path / "rel")
    assert not (tmp_path / "w").exists()
