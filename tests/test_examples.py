"""Issue #25 (6): every shipped example recipe runs end to end and passes its own validation.

The examples name their data relative to the checkout (``../../shared/data``, ``../mtgauntlet/data``): each test
lays out a checkout beside a ``shared/data`` that points at the real data, and runs ``gauntlet run`` on a copy.
The MT-breaker examples (about 40 minutes on 2 cores at full size) run with their sizes scaled down; everything
else in them (builders, models, variants, rules) is as shipped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from mtgauntlet.records import load_records
from tests.support.cli import REPO, invoke

EXAMPLES = sorted(p.name for p in (REPO / "examples").glob("*.yaml") if p.name != "rules.yaml")
MTBREAKER_SMALL = {"seeded": {"limit": 2, "steps": 1}}
SCALED = {"mtbreaker-flores.yaml": MTBREAKER_SMALL, "mtbreaker-flores-en-pt.yaml": MTBREAKER_SMALL}


def test_every_example_is_covered():
    assert set(EXAMPLES) == {
        "bandit-flores.yaml",
        "bandit-flores-en-pt.yaml",
        "demo.yaml",
        "mtbreaker-flores.yaml",
        "mtbreaker-flores-en-pt.yaml",
        "smaug-flores.yaml",
        "smaug-flores-en-pt.yaml",
        "subset-wmt24.yaml",
    }


def _checkout(tmp_path: Path, shared_data: Path) -> Path:
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "examples", checkout / "examples")
    (checkout / "mtgauntlet").symlink_to(REPO / "mtgauntlet")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(shared_data)
    return checkout


@pytest.mark.slow
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs_end_to_end_and_passes_its_rules(tmp_path, request, name):
    needs_shared = "shared/data" in (REPO / "examples" / name).read_text()
    shared = request.getfixturevalue("shared_data") if needs_shared else tmp_path / "no-shared-data"
    recipe = _checkout(tmp_path, shared) / "examples" / name
    doc = yaml.safe_load(recipe.read_text())
    for build, sizes in SCALED.get(name, {}).items():
        doc["builds"][build].update(sizes)
    recipe.write_text(yaml.safe_dump(doc, sort_keys=False))
    r = invoke(["run", recipe, "--work", tmp_path / "work", "--releases", tmp_path / "releases"])
    assert r.exit_code == 0, r
    assert "FAILED" not in r.stdout
    for build in doc["builds"]:
        out = tmp_path / "work" / "builds" / build
        manifest = json.loads((out / "build.json").read_text())
        assert manifest["status"] == "complete", build
        assert load_records(out).num_rows > 0
    release = tmp_path / "releases" / f"name={doc['release']['name']}" / f"version={doc['release']['version']}"
    assert release.is_dir()
