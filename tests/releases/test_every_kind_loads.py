"""One set of every built record kind from the shipped sample, released together and each alone: every
config the card declares loads with `datasets` (by release directory and as Parquet data_files), every
Croissant record set iterates with mlcroissant, and rows and nested values equal the builds'."""

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mtgauntlet.schema import checks_dict
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer
from tests.support.release_helpers import cli

pytestmark = pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium not installed")
BUILDERS = ("smaug", "subset", "bandit", "mtbreaker")


def _edit(messages):
    """A deterministic LLM editor over the real OpenAI protocol: appends a word to the last SOURCE."""
    sources = [m["content"] for m in messages if m["role"] == "assistant"]
    last = sources[-1].split("|||")[1] if sources else "The old ledger was kept in the county office."
    return f"SOURCE |||{last} notwithstanding|||"


@pytest.fixture(scope="module")
def builds(tmp_path_factory, sample_path):
    root = tmp_path_factory.mktemp("kinds")
    s = sample_path
    cli(
        "build",
        "smaug",
        "--input",
        s,
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
        "--out",
        root / "smaug",
    )
    cli(
        "build",
        "subset",
        "--input",
        s,
        "--src-col",
        "es",
        "--src-lang",
        "es",
        "--tgt-lang",
        "en",
        "--estimator",
        "length",
        "--budget",
        "8",
        "--domain-col",
        "domain",
        "--out",
        root / "subset",
    )
    cli(
        "build",
        "bandit",
        "--corpus",
        s,
        "--text-column",
        "en",
        "--topic-column",
        "domain",
        "--min-words",
        "5",
        "--budget",
        "6",
        "--k",
        "2",
        "--cap",
        "3",
        "--src-lang",
        "en",
        "--tgt-lang",
        "es",
        "--qe",
        "roundtrip",
        "--out",
        root / "bandit",
    )
    with ScriptedServer(default=_edit) as srv:
        cli(
            "build",
            "mtbreaker",
            "--seeds",
            s,
            "--column",
            "en",
            "--limit",
            "2",
            "--steps",
            "1",
            "--llm",
            f"openai:editor@{srv.url}",
            "--mt",
            "apertium",
            "--qe",
            "roundtrip",
            "--src-lang",
            "en",
            "--tgt-lang",
            "es",
            "--out",
            root / "mtbreaker",
        )
    return root


@pytest.fixture(scope="module")
def releases(builds, tmp_path_factory):
    out = tmp_path_factory.mktemp("rel") / "releases"
    cli("release", *[builds / b for b in BUILDERS], "--name", "every-kind", "--version", "0.1.0", "--out", out)
    paths = {"together": out / "name=every-kind" / "version=0.1.0"}
    for b in BUILDERS:
        cli("release", builds / b, "--name", f"{b}-alone", "--version", "0.1.0", "--out", out)
        paths[b] = out / f"name={b}-alone" / "version=0.1.0"
    return paths


def build_records(build: Path) -> dict[str, dict[str, dict]]:
    """kind -> record key -> record, read straight from the build's Parquet files."""
    from mtgauntlet.schema import kind_of_schema

    out: dict[str, dict[str, dict]] = {}
    for f in sorted(build.glob("*/*.parquet")):
        if f.parent.name == "work":
            continue
        kind = kind_of_schema(pq.read_schema(f))
        for r in pq.read_table(f).to_pylist():
            out.setdefault(kind, {})[_key(r)] = r
    return out


def _key(r: dict) -> str:
    return r["id"] if "id" in r else f"{r['run_id']}:{r['step']}"


def _plain(v):
    """A value as comparable plain Python (mlcroissant gives bytes, numpy arrays, pandas timestamps)."""
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if hasattr(v, "tolist") and not isinstance(v, (str, dict)):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k.rsplit("/", 1)[-1]: _plain(x) for k, x in v.items()}
    if hasattr(v, "to_pydatetime"):
        return v.to_pydatetime()
    return v


def test_layout_one_folder_per_kind_and_configs_never_span_kinds(releases):
    m = json.loads((releases["together"] / "manifest.json").read_text())
    assert m["kinds"] == ["smaug_pair", "breaker_text", "topic_text", "selected_text", "bandit_pull"]
    for f in m["files"]:
        if "kind" in f:
            assert f["path"].startswith(f"data/{f['kind']}/")
    names = [c["config_name"] for c in m["configs"]]
    assert "all" not in names and len(set(names)) == len(names)
    assert {
        "smaug_pair",
        "smaug_pair-es-en",
        "smaug_pair-neg",
        "breaker_text",
        "topic_text-en-es",
        "selected_text",
        "bandit_pull",
    } <= set(names)
    assert all(c["data_files"][0]["path"].startswith(f"data/{c['kind']}/") for c in m["configs"])


def test_every_config_loads_both_ways_with_builds_rows(releases, builds, tmp_path):
    datasets = pytest.importorskip("datasets")
    want = {b: build_records(builds / b) for b in BUILDERS}
    every = {k: recs for per_build in want.values() for k, recs in per_build.items()}
    for label, rel in releases.items():
        m = json.loads((rel / "manifest.json").read_text())
        kinds = set(every) if label == "together" else set(want[label])
        assert set(m["kinds"]) == kinds
        for c in m["configs"]:
            by_dir = datasets.load_dataset(str(rel), c["config_name"], split="test", cache_dir=str(tmp_path / "hf"))
            files = str(rel / c["data_files"][0]["path"])
            by_files = datasets.load_dataset("parquet", data_files=files, split="train", cache_dir=str(tmp_path / "hf"))
            assert len(by_dir) == len(by_files) == c["rows"] > 0, (label, c["config_name"])
            if c["config_name"] != c["kind"]:
                continue
            expected = every[c["kind"]]
            assert len(by_dir) == len(expected)
            for row in by_dir:
                assert row == expected[_key(row)], (label, c["config_name"])  # nested columns intact


def test_every_croissant_record_set_iterates(releases, builds):
    mlc = pytest.importorskip("mlcroissant")
    want = {k: recs for b in BUILDERS for k, recs in build_records(builds / b).items()}
    for label, rel in releases.items():
        meta = json.loads((rel / "croissant.json").read_text())
        assert "@article" in meta["citeAs"] or "@inproceedings" in meta["citeAs"] or "@misc" in meta["citeAs"]
        ds = mlc.Dataset(jsonld=str(rel / "croissant.json"))
        assert not ds.metadata.ctx.issues.errors
        for rs in meta["recordSet"]:
            kind = rs["@id"]
            got = [_plain(r) for r in ds.records(record_set=kind)]
            assert len(got) == len(want[kind]), (label, kind)
            for r in got:
                assert r == want[kind][_key(r)], (label, kind)


def test_nested_values_survive_the_release(releases, builds):
    rel = releases["together"]
    smaug = pq.read_table(rel / "data" / "smaug_pair" / "es-en" / "ne.parquet").to_pylist()
    assert all(checks_dict(r["checks"]).get("differs") == 1.0 for r in smaug)
    breaker = pq.read_table(rel / "data" / "breaker_text" / "en-es" / "records.parquet").to_pylist()
    assert len(breaker) == 2 and all(
        r["trajectory"][0]["step"] == 0 and r["trajectory"][1]["source"].endswith("notwithstanding") for r in breaker
    )
    pulls = pa.concat_tables(pq.read_table(p) for p in (builds / "bandit" / "pulls").glob("*.parquet"))
    assert pq.read_table(rel / "data" / "bandit_pull" / "all" / "records.parquet").num_rows == pulls.num_rows == 6


def test_evaluate_accepts_a_release_directory(releases):
    m = json.loads((releases["together"] / "manifest.json").read_text())
    r = invoke(["evaluate", "metric", "--set", str(releases["together"]), "--metric", "chrf", "--json"])
    assert r.exit_code == 0, r.output
    per_cell = [x for x in json.loads(r.stdout)["results"] if "all" not in (x["phenomenon"], x["lp"])]
    assert sum(x["n"] for x in per_cell) == m["rows"]["smaug_pair"]
    r = invoke(["evaluate", "breaker", "--set", str(releases["mtbreaker"]), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["items"] == 2


def test_card_names_each_scale_and_the_embedded_editor_limitation(builds, releases, tmp_path):
    from mtgauntlet.releases.release import make_release

    text = (releases["together"] / "README.md").read_text()
    assert "Difficulty from estimator `length` (its own scale" in text
    assert "Difficulty = 100 - mean QE by `roundtrip`" in text
    assert {p.name for p in (releases["together"] / "plots").glob("*.png")} >= {
        "smaug_pair_phenomena.png",
        "selected_text_difficulty_length.png",
        "breaker_text_difficulty_roundtrip.png",
        "topic_text_difficulty.png",
    }
    assert "embedded editor" not in text  # this editor was served over the OpenAI protocol
    embedded = tmp_path / "mtbreaker-embedded"  # the manifest an embedded-editor build writes (llm smollm2)
    shutil.copytree(builds / "mtbreaker", embedded)
    bj = json.loads((embedded / "build.json").read_text())
    (embedded / "build.json").write_text(json.dumps({**bj, "models": {**bj["models"], "llm": "smollm2"}}))
    rel = make_release([embedded], "emb", "0.1.0", out=tmp_path / "r")
    text = (rel / "README.md").read_text()
    assert "**Built with the embedded editor (`smollm2`, SmolLM2-135M).**" in text
    assert "an edit beat its seed on only 9 of 30" in text
