"""Third integrity round (#25) and diff-clean catalog output (#26.3): nothing lost, nothing altered,
nothing escapes — each probe runs through the real `gauntlet` entry point."""

import csv
import io
import json
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.catalog import open_catalog
from mtgauntlet.releases.local_hub import LocalGitHub
from mtgauntlet.releases.version import Version
from tests.support.cli import invoke
from tests.support.release_helpers import cli

REL = ("data", "selected_text", "es-en", "records.parquet")


@pytest.fixture(scope="module")
def build(tmp_path_factory, sample_path):
    out = tmp_path_factory.mktemp("b") / "subset"
    cli(
        "build",
        "subset",
        "--input",
        sample_path,
        "--src-col",
        "es",
        "--src-lang",
        "es",
        "--tgt-lang",
        "en",
        "--domain-col",
        "domain",
        "--budget",
        "6",
        "--stratify",
        "domain",
        "--out",
        out,
    )
    return out


def _release(build, root, version="0.1.0", name="cat"):
    cli("release", build, "--name", name, "--version", version, "--out", root)
    return root / f"name={name}" / f"version={version}"


def _query(root, sql, fmt="json"):
    r = invoke(["query", "-r", root, "-f", fmt, sql])
    assert r.exit_code == 0, r
    return (json.loads(r.stdout) if fmt == "json" else r.stdout), r.stderr


# -- #25.2: two bandit searches keep both pull logs; differing records are never dropped --------------------


def test_two_bandit_searches_with_the_same_qe_keep_both_pull_logs(sample_path, tmp_path):
    for seed in ("1", "2"):
        cli(
            "build",
            "bandit",
            "--corpus",
            sample_path,
            "--text-column",
            "en",
            "--topic-column",
            "domain",
            "--min-words",
            "5",
            "--budget",
            "4",
            "--k",
            "2",
            "--src-lang",
            "en",
            "--tgt-lang",
            "es",
            "--qe",
            "roundtrip",
            "--seed",
            seed,
            "--out",
            tmp_path / f"s{seed}",
        )
    pulls = sum(pq.read_table(f).num_rows for s in ("s1", "s2") for f in (tmp_path / s / "pulls").glob("*.parquet"))
    r = cli("release", tmp_path / "s1", tmp_path / "s2", "--name", "two", "--version", "0.1.0", "--out", tmp_path / "r")
    m = json.loads((tmp_path / "r" / "name=two" / "version=0.1.0" / "manifest.json").read_text())
    assert m["dropped_duplicates"]["bandit_pull"] == 0 and "duplicate bandit_pull" not in r.stderr
    rows, _ = _query(tmp_path / "r", "SELECT count(*) AS n, count(DISTINCT run_id) AS runs FROM bandit_pull")
    assert rows == [{"n": pulls, "runs": 2}] and pulls == 8


def test_records_sharing_an_id_but_differing_are_refused_not_dropped(build, tmp_path):
    other = tmp_path / "edited"
    shutil.copytree(build, other)
    bj = json.loads((other / "build.json").read_text())
    sig = bj["signature"] + "|edited"
    (other / "build.json").write_text(json.dumps({**bj, "signature": sig}))
    for f in (other / "data").glob("*.parquet"):
        t = pq.read_table(f)
        text = t.column("text").to_pylist()
        text[0] = text[0] + " (edited)"
        meta = {**t.schema.metadata, b"mtgauntlet.signature": sig.encode()}
        pq.write_table(
            t.set_column(t.schema.get_field_index("text"), "text", pa.array(text)).replace_schema_metadata(meta), f
        )
    r = invoke(["release", build, other, "--name", "clash", "--version", "0.1.0", "--out", tmp_path / "r"])
    assert r.exit_code == 2 and "share the id" in r.stderr and "text" in r.stderr and len(r.stderr.splitlines()) == 1
    assert not (tmp_path / "r" / "name=clash" / "version=0.1.0").exists()


# -- #25.3: the catalog reads exactly what manifests seal -----------------------------------------------------


def test_a_file_moved_into_a_hive_named_folder_never_becomes_a_column(build, tmp_path):
    root = tmp_path / "releases"
    rel = _release(build, root)
    texts = {r["text"] for r in _query(root, "SELECT text FROM selected_text")[0]}
    evil = rel.joinpath(*REL[:-1], "text=EVIL")
    evil.mkdir()
    shutil.copy(rel.joinpath(*REL), evil / "records.parquet")  # a copy beside the sealed file: not read
    rows, err = _query(root, "SELECT text, name, version FROM selected_text")
    assert {r["text"] for r in rows} == texts and len(rows) == 6 and "EVIL" not in json.dumps(rows)
    assert "text=EVIL/records.parquet: not listed in the manifest" in err
    rel.joinpath(*REL).unlink()  # moved: the release is incomplete, so none of it is read
    rows, err = _query(root, "SELECT count(*) AS n FROM releases")
    assert rows == [{"n": 0}] and "records.parquet: missing" in err
    assert "Catalog Error" in invoke(["query", "-r", root, "SELECT text FROM selected_text"]).stderr
    assert invoke(["verify", rel]).exit_code == 1


def test_loose_parquet_and_outside_symlinks_do_not_change_any_query(build, tmp_path):
    root = tmp_path / "releases"
    rel = _release(build, root)
    _release(build, root, "0.2.0")
    shutil.copy(rel.joinpath(*REL), root / "loose.parquet")
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(rel.joinpath(*REL), outside / "x.parquet")
    (root / "link.parquet").symlink_to(outside / "x.parquet")
    (root / "linkdir").symlink_to(outside)
    rows, err = _query(root, "SELECT name, version, count(*) AS n FROM selected_text GROUP BY ALL ORDER BY version")
    assert rows == [{"name": "cat", "version": "0.1.0", "n": 6}, {"name": "cat", "version": "0.2.0", "n": 6}]
    assert _query(root, "SELECT DISTINCT version FROM latest_selected_text")[0] == [{"version": "0.2.0"}]
    skipped = {r["path"]: r["reason"] for r in _query(root, "SELECT * FROM catalog_skipped")[0]}
    assert set(skipped) == {"loose.parquet", "link.parquet", "linkdir"}
    assert "not in a release" in skipped["loose.parquet"] and "symbolic link" in skipped["linkdir"]
    assert err.count("warning: catalog: skipped") == 3
    # a sealed file replaced by a symbolic link to an identical copy outside the root: the release is not read
    target = root / "name=cat" / "version=0.2.0" / "/".join(REL)
    target.unlink()
    target.symlink_to(outside / "x.parquet")
    rows, err = _query(root, "SELECT version FROM releases")
    assert rows == [{"version": "0.1.0"}] and "symbolic link" in err


def test_names_and_versions_come_from_the_manifest_and_every_byte_is_checked(build, tmp_path):
    root = tmp_path / "releases"
    rel = _release(build, root)
    renamed = root / "name=cat" / "version=9.9.9"
    shutil.copytree(rel, renamed)  # the path lies about the version
    rows, err = _query(root, "SELECT version FROM releases")
    assert rows == [{"version": "0.1.0"}] and "its path says cat 9.9.9 but its manifest cat 0.1.0" in err
    shutil.rmtree(renamed)
    plain = tmp_path / "download"  # a release outside any name=/version= tree (a download)
    shutil.copytree(rel, plain / "anywhere")
    assert _query(plain, "SELECT name, version, count(*) AS n FROM selected_text GROUP BY ALL")[0] == [
        {"name": "cat", "version": "0.1.0", "n": 6}
    ]
    empty = root / "name=cat" / "version=0.2.0"  # a later version without this kind: latest_ holds none of it
    shutil.copytree(rel, empty)
    shutil.rmtree(empty / "data")
    m = json.loads((empty / "manifest.json").read_text())
    (empty / "manifest.json").write_text(
        json.dumps({**m, "version": "0.2.0", "kinds": [], "files": [f for f in m["files"] if not f.get("kind")]})
    )
    assert _query(root, "SELECT count(*) AS n FROM latest_selected_text")[0] == [{"n": 0}]
    assert _query(root, "SELECT count(*) AS n FROM selected_text")[0] == [{"n": 6}]
    shutil.rmtree(empty)
    data = rel.joinpath(*REL)
    raw = bytearray(data.read_bytes())
    raw[len(raw) // 3] ^= 0x01
    data.write_bytes(bytes(raw))
    rows, err = _query(root, "SELECT count(*) AS n FROM releases")
    assert rows == [{"n": 0}] and "changed since the release" in err


# -- #25.4: publish uploads exactly the bytes it verified ---------------------------------------------------


def _blob_sha256(repo, rev, path):
    import hashlib

    out = subprocess.run(["git", "-C", str(repo), "cat-file", "blob", f"{rev}:{path}"], capture_output=True, check=True)
    return hashlib.sha256(out.stdout).hexdigest()


def test_a_file_changed_after_verify_is_never_published(build, tmp_path, monkeypatch):
    rel = _release(build, tmp_path / "releases")
    data = rel.joinpath(*REL)
    good = data.read_bytes()
    repo = tmp_path / "hub.git"
    real = LocalGitHub.list_repo_refs

    def tamper_then_list(self, *a, **k):  # runs after verify, before the upload
        data.write_bytes(good[:-8] + b"tampered")
        return real(self, *a, **k)

    monkeypatch.setattr(LocalGitHub, "list_repo_refs", tamper_then_list)
    r = invoke(["publish", rel, "--repo", f"file:{repo}"])
    assert r.exit_code == 2 and "changed after it was verified" in r.stderr and "nothing was published" in r.stderr
    assert len(r.stderr.splitlines()) == 1 and not repo.exists()
    # a change once the verified copy is made does not reach the upload either
    monkeypatch.setattr(LocalGitHub, "list_repo_refs", real)
    data.write_bytes(good)
    real_commit = LocalGitHub.create_commit

    def tamper_then_commit(self, *a, **k):
        data.write_bytes(good[:-8] + b"tampered")
        return real_commit(self, *a, **k)

    monkeypatch.setattr(LocalGitHub, "create_commit", tamper_then_commit)
    r = invoke(["publish", rel, "--repo", f"file:{repo}"])
    assert r.exit_code == 0, r
    manifest = json.loads((rel / "manifest.json").read_text())
    for f in manifest["files"]:
        assert _blob_sha256(repo, "v0.1.0", f["path"]) == f["sha256"], f["path"]
    assert "<- " + str(rel) in r.stdout  # the plan shown names the release's files, not the private copy


# -- #25.12: a downloaded copy verifies -------------------------------------------------------------------


def test_a_git_clone_or_hub_download_of_a_release_verifies(build, tmp_path):
    rel = _release(build, tmp_path / "releases")
    repo = tmp_path / "hub.git"
    cli("publish", rel, "--repo", f"file:{repo}")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--branch", "v0.1.0", str(repo), str(clone)], check=True, capture_output=True)
    r = invoke(["verify", clone])
    assert r.exit_code == 0 and r.stdout.startswith("OK"), r
    assert _query(tmp_path / "clone", "SELECT count(*) AS n FROM selected_text")[0] == [{"n": 6}]
    snap = tmp_path / "snapshot"  # what huggingface_hub's snapshot_download(local_dir=...) leaves beside the files
    shutil.copytree(rel, snap)
    (snap / ".gitattributes").write_text("*.parquet filter=lfs diff=lfs merge=lfs -text\n")
    meta = snap / ".cache" / "huggingface" / "download" / "data" / "selected_text" / "es-en"
    meta.mkdir(parents=True)
    (meta / "records.parquet.metadata").write_text("0123abcd\n")
    assert invoke(["verify", snap]).exit_code == 0
    (clone / ".git" / "hooks" / "x").write_text("x")  # inside .git: still metadata
    assert invoke(["verify", clone]).exit_code == 0
    for release, extra in (
        (clone, ".gitmodules"),
        (clone, "data/.git"),
        (snap, ".cache/x"),
        (snap, "data/.gitattributes"),
    ):
        (release / extra).write_text("x\n")
        r = invoke(["verify", release])
        assert r.exit_code == 1 and f"{extra}: extra file" in r.stderr, (extra, r)
        (release / extra).unlink()


# -- #25.8: versions -------------------------------------------------------------------------------------


def test_versions_are_bounded_and_ordered_by_semver_precedence(build, tmp_path):
    root = tmp_path / "releases"
    for bad in ("1.0.99999999999999999999999", "1.0.0+build.5", "01.0.0", "1.0.0-", "1.0.0-01", "1.0.0-" + "a" * 65):
        r = invoke(["release", build, "--name", "v", "--version", bad, "--out", root])
        assert r.exit_code == 2 and "invalid version" in r.stderr and len(r.stderr.splitlines()) == 1, (bad, r)
    assert not root.exists()
    spec = [
        "0.1000001.0",
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
    ]  # semver §11's example, after a release with a long minor
    for v in reversed(spec):
        _release(build, root, v)
    rows, _ = _query(root, "SELECT version, version_order, latest, prerelease FROM releases ORDER BY version_order")
    assert [r["version"] for r in rows] == spec and [r["version_order"] for r in rows] == list(range(1, 10))
    assert [r["version"] for r in rows if r["latest"]] == ["1.0.0"] and rows[1]["prerelease"] == "alpha"
    assert _query(root, "SELECT DISTINCT version FROM latest_selected_text")[0] == [{"version": "1.0.0"}]
    assert sorted(spec, key=Version.parse) == spec
    # a hand-made release with an unbounded version is skipped with a warning; every other query still runs
    other = root / "name=cat" / "version=1.0.0"
    big = root / "name=huge" / "version=1.0.99999999999999999999999"
    shutil.copytree(other, big)
    m = json.loads((big / "manifest.json").read_text())
    (big / "manifest.json").write_text(json.dumps({**m, "name": "huge", "version": "1.0.99999999999999999999999"}))
    rows, err = _query(root, "SELECT count(*) AS n FROM latest_selected_text")
    assert rows == [{"n": 6}] and "invalid version" in err
    with pytest.raises(GauntletError):
        Version.parse("1.0.1000000000")


# -- #26.3: exact, typed, documented catalog output --------------------------------------------------------


def test_query_output_round_trips_every_value(build, tmp_path):
    root = tmp_path / "releases"
    _release(build, root)
    exact = pq.read_table(root / "name=cat" / "version=0.1.0" / "/".join(REL)).column("difficulty").to_pylist()
    rows, _ = _query(root, "SELECT difficulty FROM selected_text")
    assert sorted(r["difficulty"] for r in rows) == sorted(exact)
    sql = (
        "SELECT 1::DOUBLE / 3 AS third, 'nan'::DOUBLE AS notanumber, NULL::DOUBLE AS nul, '-inf'::DOUBLE AS ninf, "
        "[0.1::DOUBLE, NULL] AS l, {'a': 'two' || chr(10) || 'lines'} AS s, NULL::VARCHAR AS v, NULL::BIGINT AS i, "
        "NULL::VARCHAR[] AS nl"
    )
    rows, _ = _query(root, sql)
    assert rows == [
        {
            "third": 1 / 3,
            "notanumber": "NaN",
            "nul": None,
            "ninf": "-Infinity",
            "l": [0.1, None],
            "s": {"a": "two\nlines"},
            "v": None,
            "i": None,
            "nl": None,
        }
    ]
    text, _ = _query(root, sql, "csv")
    header, row = list(csv.reader(io.StringIO(text)))
    assert float(row[0]) == 1 / 3 and row[1:4] == ["NaN", "", "-Infinity"]
    assert json.loads(row[4]) == [0.1, None] and json.loads(row[5]) == {"a": "two\nlines"}
    assert text.count("\n") == 2  # the line break inside the struct is escaped by JSON, not written raw
    table, _ = _query(root, sql, "table")
    assert (
        table.count("NULL") == 4
        and "NaN" in table
        and "nan" not in table
        and "None" not in table
        and "<NA>" not in table
    )


def test_catalog_tables_are_typed_and_versioned(build, tmp_path):
    root = tmp_path / "releases"
    _release(build, root)
    types = _query(
        root,
        "SELECT typeof(created) AS c, typeof(kinds) AS k, typeof(signatures) AS s, "
        "typeof(latest) AS l, typeof(version) AS v FROM releases",
    )[0]
    assert types == [{"c": "TIMESTAMP", "k": "VARCHAR[]", "s": "VARCHAR[]", "l": "BOOLEAN", "v": "VARCHAR"}]
    info = _query(root, "SELECT catalog_version, reads, skipped FROM catalog_info")[0]
    assert info == [{"catalog_version": 2, "reads": "releases", "skipped": 0}]
    files = _query(root, "SELECT kind, lp, rows FROM catalog_files")[0]
    assert files == [{"kind": "selected_text", "lp": "es-en", "rows": 6}]
    page = (Path(__file__).resolve().parents[2] / "docs" / "catalog.md").read_text()
    section = page[page.index("## Tables and views") :]
    con = open_catalog(root)  # the catalog page documents every column of every table with its DuckDB type
    try:
        for table in ("releases", "catalog_info", "catalog_files", "catalog_skipped"):
            columns = con.execute(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ?", [table]
            ).fetchall()
            assert columns
            for name, typ in columns:
                assert f"`{name}` {typ}" in section, (table, name, typ)
    finally:
        con.close()


def test_release_parquet_has_bounded_row_groups_and_a_page_index(build, tmp_path, monkeypatch):
    import mtgauntlet.release_layout as layout

    rel = _release(build, tmp_path / "default")
    meta = pq.ParquetFile(rel.joinpath(*REL)).metadata
    assert all(meta.row_group(0).column(i).has_offset_index for i in range(meta.num_columns))
    limit = pq.read_table(rel.joinpath(*REL)).nbytes // 3  # as if the release were three times the viewer's bound
    monkeypatch.setattr(layout, "ROW_GROUP_BYTES", limit)
    rel = _release(build, tmp_path / "small")
    f = pq.ParquetFile(rel.joinpath(*REL))
    assert f.metadata.num_row_groups >= 3 and f.metadata.num_rows == 6
    for i in range(f.metadata.num_row_groups):
        group = f.read_row_group(i)
        assert group.num_rows == 1 or group.nbytes <= limit
        assert f.metadata.row_group(i).column(0).has_offset_index
    assert invoke(["verify", rel]).exit_code == 0
    assert pq.read_table(rel.joinpath(*REL)).equals(
        pq.read_table(tmp_path.joinpath("default", "name=cat", "version=0.1.0", *REL))
    )
