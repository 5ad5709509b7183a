import json
import os
import subprocess

import pytest
from typer.testing import CliRunner

from mtgauntlet.cli.main import app
from mtgauntlet.errors import GauntletError
from mtgauntlet.releases import release as release_mod
from mtgauntlet.releases.catalog import run_query
from mtgauntlet.releases.local_hub import LocalGitHub
from mtgauntlet.releases.publish import plan_publish, publish
from mtgauntlet.releases.release import make_release, verify_release

runner = CliRunner()


@pytest.fixture(scope="module")
def builds(tmp_path_factory, sample_path):
    root = tmp_path_factory.mktemp("builds")
    common = ["--input", str(sample_path), "--src-col", "es", "--ref-col", "en", "--src-lang", "es", "--tgt-lang", "en",
              "--good-from", "reference"]
    r = runner.invoke(app, ["build", "smaug", *common, "--phenomena", "ne,num,neg", "--out", str(root / "v1")])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["build", "smaug", *common, "--out", str(root / "v2")])
    assert r.exit_code == 0, r.output
    return root


@pytest.fixture(scope="module")
def releases(builds, tmp_path_factory):
    out = tmp_path_factory.mktemp("rel") / "releases"
    for b, v in (("v1", "0.1.0"), ("v2", "0.2.0")):
        r = runner.invoke(app, ["release", str(builds / b), "--name", "smaug-demo", "--version", v, "--out", str(out)])
        assert r.exit_code == 0, r.output
    return out


def test_release_layout_and_manifest(releases):
    rel = releases / "name=smaug-demo" / "version=0.2.0"
    m = json.loads((rel / "manifest.json").read_text())
    assert m["version"] == "0.2.0" and m["kinds"] == ["smaug_pair"]
    assert {f["path"] for f in m["files"]} == {f"data/es-en/{p}.parquet" for p in ("ne", "num", "neg", "ins", "del")}
    assert all(len(f["sha256"]) == 64 and f["rows"] > 0 for f in m["files"])
    assert m["total_rows"] == sum(f["rows"] for f in m["files"])
    assert m["signatures"][0].startswith("builder:smaug|") and "pyarrow" in m["versions"]
    assert (rel / "plots" / "smaug_pair_phenomena.png").stat().st_size > 1000
    croissant = json.loads((rel / "croissant.json").read_text())
    assert croissant["@type"] == "sc:Dataset" and croissant["recordSet"][0]["name"] == "smaug_pair"


def test_release_loads_with_datasets(releases):
    datasets = pytest.importorskip("datasets")
    rel = releases / "name=smaug-demo" / "version=0.2.0"
    ds = datasets.load_dataset("parquet", data_files=str(rel / "data" / "*" / "*.parquet"), split="train")
    m = json.loads((rel / "manifest.json").read_text())
    assert len(ds) == m["total_rows"] and {"src", "good", "bad", "ref", "phenomenon"} <= set(ds.column_names)


def test_card_yaml_round_trip_and_required_fields(releases):
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(releases / "name=smaug-demo" / "version=0.2.0" / "README.md")
    data = card.data.to_dict()
    for key in ("pretty_name", "license", "language", "task_categories", "size_categories", "configs",
                "source_datasets", "tags"):
        assert data.get(key), key
    assert data["task_categories"] == ["translation"] and set(data["language"]) == {"es", "en"}
    assert {c["config_name"] for c in data["configs"]} == {"all", "es-en"}
    assert DatasetCard(str(card)).data.to_dict() == data
    text = str(card)
    for section in ("## Dataset Description", "## Statistics", "## Validation", "## Bias, Risks, and Limitations",
                    "## Citation", "builder:smaug|", "![smaug_pair_phenomena](plots/smaug_pair_phenomena.png)"):
        assert section in text


def test_refuses_to_overwrite(builds, releases):
    with pytest.raises(GauntletError, match="immutable"):
        make_release([builds / "v2"], "smaug-demo", "0.2.0", out=releases)
    with pytest.raises(GauntletError, match="invalid version"):
        make_release([builds / "v2"], "smaug-demo", "0.2", out=releases)


def test_failure_midway_leaves_no_partial_release(builds, tmp_path, monkeypatch):
    import mtgauntlet.cards.card as card

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(card, "write_card", boom)
    with pytest.raises(RuntimeError):
        make_release([builds / "v1"], "x", "1.0.0", out=tmp_path)
    assert list((tmp_path / "name=x").iterdir()) == []


def test_verify_catches_a_flipped_byte(builds, tmp_path):
    rel = make_release([builds / "v1"], "flip", "0.1.0", out=tmp_path)
    assert verify_release(rel) == []
    target = rel / "data" / "es-en" / "ne.parquet"
    raw = bytearray(target.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    target.write_bytes(bytes(raw))
    problems = verify_release(rel)
    assert len(problems) == 1 and "ne.parquet: sha256 mismatch" in problems[0]
    r = runner.invoke(app, ["verify", str(rel)])
    assert r.exit_code == 1


def test_catalog_across_versions_from_another_directory(releases, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rel = run_query(releases, "SELECT name, version, major, minor, patch, rows FROM releases ORDER BY version")
    assert rel["version"].tolist() == ["0.1.0", "0.2.0"] and rel["minor"].tolist() == [1, 2]
    counts = run_query(releases, "SELECT version, count(DISTINCT phenomenon) AS n FROM smaug_pair GROUP BY version "
                                 "ORDER BY version")
    assert counts["n"].tolist() == [3, 5]
    latest = run_query(releases, "SELECT DISTINCT version FROM latest_smaug_pair")
    assert latest["version"].tolist() == ["0.2.0"]
    assert run_query(releases, "SELECT typeof(version) AS t FROM smaug_pair LIMIT 1")["t"][0] == "VARCHAR"
    r = runner.invoke(app, ["query", "--releases", str(releases), "-f", "csv", "SELECT count(*) AS n FROM releases"])
    assert r.output.splitlines() == ["n", "2"]


def test_publish_to_local_git_commit_tag_and_refusals(releases, tmp_path):
    repo = tmp_path / "hub.git"
    v1 = releases / "name=smaug-demo" / "version=0.1.0"
    v2 = releases / "name=smaug-demo" / "version=0.2.0"
    plan = publish(v1, f"file:{repo}")
    api = LocalGitHub(repo)
    tags = {t.name: t.target_commit for t in api.list_repo_refs().tags}
    assert tags == {"v0.1.0": plan.commit}
    files = api.list_repo_files(revision=plan.commit)
    assert "README.md" in files and "data/es-en/ne.parquet" in files and "data/es-en/ins.parquet" not in files
    with pytest.raises(GauntletError, match="tag v0.1.0 already exists"):
        publish(v1, f"file:{repo}")
    plan2 = publish(v2, f"file:{repo}")
    log = subprocess.run(["git", "-C", str(repo), "log", "--format=%H %P", "main"], capture_output=True, text=True).stdout
    assert log.splitlines()[0] == f"{plan2.commit} {plan.commit}"  # one commit on top of the previous release
    assert "data/es-en/ins.parquet" in api.list_repo_files(revision="v0.2.0")
    # the tag still points at the first release's commit
    assert {t.name: t.target_commit for t in api.list_repo_refs().tags}["v0.1.0"] == plan.commit
    with pytest.raises(GauntletError, match="moved"):
        api.create_commit("x", [], "stale", parent_commit=plan.commit)


def test_publish_dry_run_offline_prints_operations(releases, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    rel = releases / "name=smaug-demo" / "version=0.2.0"
    r = runner.invoke(app, ["publish", str(rel), "--repo", "my-org/smaug-demo", "--dry-run"])
    assert r.exit_code == 0, r.output
    assert "add    README.md" in r.output and "add    data/es-en/neg.parquet" in r.output
    assert "tag: v0.2.0" in r.output and "nothing was published" in r.output
    plan = plan_publish(rel, "my-org/smaug-demo")
    assert len(plan.operations) == len([p for p in rel.rglob("*") if p.is_file()])
    r = runner.invoke(app, ["publish", str(rel), "--repo", "my-org/smaug-demo"])
    assert r.exit_code != 0  # offline: refused, nothing published
    assert "token" not in r.output.lower() or "hf_" not in r.output


def test_publish_refuses_a_release_that_does_not_verify(builds, tmp_path):
    rel = make_release([builds / "v1"], "broken", "0.1.0", out=tmp_path)
    (rel / "data" / "es-en" / "num.parquet").write_bytes(b"garbage")
    with pytest.raises(GauntletError, match="does not verify"):
        plan_publish(rel, f"file:{tmp_path / 'repo.git'}")
