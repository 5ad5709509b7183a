"""What a release says about itself: provenance and licence from the records, validation only of the
released builds (per kind), column docs for every column, Data Docs for every kind."""

import json

import pytest

from mtgauntlet.cards.licenses import Provenance, decide_license
from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.release import make_release
from mtgauntlet.schema import COLUMN_DOCS, KINDS
from tests.support.card_render import card_text
from tests.support.release_helpers import cli, run_main


@pytest.fixture(scope="module")
def flores_build(tmp_path_factory, shared_data):
    out = tmp_path_factory.mktemp("flores") / "smaug"
    cli(
        "build",
        "smaug",
        "--input",
        shared_data / "flores200-devtest" / "flores200_devtest.tsv.gz",
        "--format",
        "flores",
        "--src-lang",
        "en",
        "--tgt-lang",
        "es",
        "--limit",
        "12",
        "--good-from",
        "reference",
        "--phenomena",
        "num,del,ins",
        "--out",
        out,
    )
    return out


@pytest.fixture(scope="module")
def sample_builds(tmp_path_factory, sample_path):
    root = tmp_path_factory.mktemp("sample")
    cli(
        "build",
        "smaug",
        "--input",
        sample_path,
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
        "--phenomena",
        "num,neg",
        "--out",
        root / "smaug",
    )
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
        "--estimator",
        "length",
        "--budget",
        "6",
        "--out",
        root / "subset",
    )
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
        "--estimator",
        "length",
        "--budget",
        "5",
        "--out",
        root / "subset5",
    )
    return root


def test_flores_release_names_flores_and_its_licence(flores_build, tmp_path, monkeypatch, capsys, shared_data):
    from huggingface_hub import DatasetCard

    flores = shared_data / "flores200-devtest" / "flores200_devtest.tsv.gz"
    code, out, err = run_main(
        monkeypatch,
        capsys,
        "release",
        flores_build,
        "--name",
        "fl",
        "--version",
        "0.1.0",
        "--out",
        tmp_path,
        "--input-file",
        flores,
    )
    assert code == 0, err
    rel = tmp_path / "name=fl" / "version=0.1.0"
    card = DatasetCard.load(rel / "README.md")
    # recognised by the file's sha256, and given in the Hub's form
    assert card.data.license == "cc-by-sa-4.0" and card.data.source_datasets == ["extended|facebook/flores"]
    assert "FLORES-200 (NLLB Team et al. 2022; Goyal et al. 2022), CC BY-SA 4.0" in card_text(card.text)
    m = json.loads((rel / "manifest.json").read_text())
    assert m["license"]["sources"][0]["records"] == m["total_rows"] and not m["license"]["warnings"]
    assert m["license"]["sources"][0]["origin"].startswith("recognised by content: sha256 9d4f3d09")
    croissant = json.loads((rel / "croissant.json").read_text())
    assert croissant["license"] == "cc-by-sa-4.0"
    # --license overrides the id, and the card says what the sources imply
    code, out, err = run_main(
        monkeypatch,
        capsys,
        "release",
        flores_build,
        "--name",
        "fl",
        "--version",
        "0.2.0",
        "--out",
        tmp_path,
        "--license",
        "cc-by-4.0",
        "--input-file",
        flores,
    )
    card = DatasetCard.load(tmp_path / "name=fl" / "version=0.2.0" / "README.md")
    assert card.data.license == "cc-by-4.0" and "the sources imply cc-by-sa-4.0" in card_text(card.text)


def test_licence_derivation_warns_on_non_commercial_and_unknown_sources():
    from mtgauntlet.cards.licenses import KNOWN_DATA

    flores, demetr, wmt = (
        next(k.provenance for k in KNOWN_DATA if k.datasets[0] == n)
        for n in ("flores200-devtest", "demetr", "wmt24-general")
    )
    aces = Provenance("ACES", "cc-by-nc-sa-4.0")
    d = decide_license({"flores200-devtest": 10, "demetr": 5}, {"flores200-devtest": flores, "demetr": demetr})
    assert (d.license, d.warnings) == ("cc-by-sa-4.0", [])
    d = decide_license({"aces": 3, "demetr": 2}, {"aces": aces, "demetr": demetr})
    assert d.license == "cc-by-nc-sa-4.0" and any("no commercial use" in w for w in d.warnings)
    d = decide_license({"wmt24-general": 4}, {"wmt24-general": wmt})
    assert d.hub_fields() == {
        "license": "other",
        "license_name": "wmt-research-use",
        "license_link": "https://www2.statmt.org/",
    }
    assert "research use only" in d.warnings[0]
    d = decide_license({"flores200-devtest": 1, "aces": 1}, {"flores200-devtest": flores, "aces": aces})
    assert d.license == "unknown" and any("cannot be combined" in w for w in d.warnings)
    # names alone say nothing: without a statement or a recognised file every source is unknown
    d = decide_license({"flores200-devtest": 1, "aces_x": 1, "sample_es_en": 1})
    assert d.license == "unknown" and len(d.warnings) == 3
    d = decide_license({"my_corpus": 7, None: 2})
    assert d.license == "unknown" and len(d.warnings) == 2 and "my_corpus" in d.warnings[0]
    d = decide_license({"my_corpus": 7}, override="cc-by-4.0")
    assert d.license == "cc-by-4.0" and d.overridden and d.warnings  # the override never hides the warning


def test_unknown_source_warns_loudly_on_release(sample_builds, tmp_path, monkeypatch, capsys):
    src = sample_builds.parent / "mine.tsv"
    src.write_text("text\tdomain\nUn texto bastante largo para medir.\tnews\nOtro texto.\tnews\n", encoding="utf-8")
    cli(
        "build",
        "subset",
        "--input",
        src,
        "--src-col",
        "text",
        "--src-lang",
        "es",
        "--tgt-lang",
        "en",
        "--estimator",
        "length",
        "--budget",
        "2",
        "--out",
        tmp_path / "mine",
    )
    code, out, err = run_main(
        monkeypatch,
        capsys,
        "release",
        tmp_path / "mine",
        "--name",
        "mine",
        "--version",
        "0.1.0",
        "--out",
        tmp_path / "r",
    )
    assert code == 0 and "warning: licence: 2 records come from mine, whose provenance and licence are unknown" in err
    text = (tmp_path / "r" / "name=mine" / "version=0.1.0" / "README.md").read_text()
    assert "\nlicense: unknown\n" in text and "> **Warning:** 2 records come from mine" in text


def test_report_is_accepted_only_for_the_released_builds(sample_builds, tmp_path, monkeypatch, capsys):
    b = sample_builds
    cli("validate", b / "subset", "--report", tmp_path / "rep-subset")
    cli("validate", b / "smaug", "--report", tmp_path / "rep-smaug")
    rep = json.loads((tmp_path / "rep-subset" / "report.json").read_text())
    sig = json.loads((b / "subset" / "build.json").read_text())["signature"]
    assert rep["kinds"]["selected_text"]["signatures"] == [sig]
    # a report of another build of the same kind, and one of a kind the release does not hold
    for builds, report, why in (
        ([b / "subset5"], "rep-subset", "validated other builds"),
        ([b / "subset"], "rep-smaug", "does not hold"),
    ):
        code, out, err = run_main(
            monkeypatch,
            capsys,
            "release",
            *builds,
            "--name",
            "r",
            "--version",
            "0.1.0",
            "--out",
            tmp_path / "out",
            "--report",
            tmp_path / report,
        )
        assert code == 2 and why in err and err.startswith("error: "), err
    assert not (tmp_path / "out" / "name=r" / "version=0.1.0").exists()
    # matching reports, one per kind: the card shows validation per kind
    rel = make_release(
        [b / "smaug", b / "subset"],
        "ok",
        "0.1.0",
        out=tmp_path / "out",
        reports=[
            (
                str(tmp_path / "rep-smaug" / "report.json"),
                json.loads((tmp_path / "rep-smaug" / "report.json").read_text()),
            ),
            (str(tmp_path / "rep-subset" / "report.json"), rep),
        ],
    )
    text = (rel / "README.md").read_text()
    assert "### `smaug_pair`: passed" in text and "### `selected_text`: passed" in text
    assert "Overall" not in text and text.count("validated the builds signed") == 2
    m = json.loads((rel / "manifest.json").read_text())
    assert set(m["validation"]) == {"smaug_pair", "selected_text"}
    assert m["validation"]["selected_text"]["reports"][0]["metrics"]["n"] == 6
    # one report for one kind: the other kind is "not validated", said plainly
    rel = make_release(
        [b / "smaug", b / "subset"],
        "half",
        "0.1.0",
        out=tmp_path / "out",
        reports=[(str(tmp_path / "rep-subset" / "report.json"), rep)],
    )
    text = (rel / "README.md").read_text()
    assert "### `selected_text`: passed" in text and "### `smaug_pair`: not validated" in text
    # two builds of one kind validated separately: both reports count; with one of them the kind is partly validated
    cli("validate", b / "subset5", "--report", tmp_path / "rep-subset5")
    rep5 = json.loads((tmp_path / "rep-subset5" / "report.json").read_text())
    rel = make_release(
        [b / "subset", b / "subset5"],
        "two",
        "0.1.0",
        out=tmp_path / "out",
        reports=[("rep-subset", rep), ("rep-subset5", rep5)],
    )
    text = (rel / "README.md").read_text()
    assert "### `selected_text`: passed" in text and text.count("validated the builds signed") == 2
    rel = make_release(
        [b / "subset", b / "subset5"], "two-half", "0.1.0", out=tmp_path / "out", reports=[("rep-subset5", rep5)]
    )
    text = (rel / "README.md").read_text()
    assert "### `selected_text`: partly validated" in text and f"Not validated: the builds signed `{sig}`" in text
    with pytest.raises(GauntletError, match="already validated by another report"):
        make_release([b / "subset"], "twice", "0.1.0", out=tmp_path / "out", reports=[("a", rep), ("b", rep)])
    old = {
        **rep,
        "kinds": {"selected_text": {k: v for k, v in rep["kinds"]["selected_text"].items() if k != "signatures"}},
    }
    with pytest.raises(GauntletError, match="names no build signature"):
        make_release([b / "subset"], "old", "0.1.0", out=tmp_path / "out", reports=[("old.json", old)])


def test_gx_data_docs_keep_every_kind(sample_builds, tmp_path):
    """`gauntlet validate --gx` runs every kind through one DataDocs; the site must index them all."""
    pytest.importorskip("great_expectations")
    from mtgauntlet.records import load_records
    from mtgauntlet.schema import get_kind
    from mtgauntlet.validators.gx import DataDocs

    docs = DataDocs(tmp_path / "gx-docs")
    for build, kind in (("smaug", "smaug_pair"), ("subset", "selected_text")):
        result = docs.run_suite(load_records(sample_builds / build).to_pandas(), get_kind(kind))
        assert result["success"] and any(
            e["type"] == "expect_column_values_to_be_unique" for e in result["expectations"]
        )
    index = (tmp_path / "gx-docs" / "index.html").read_text()
    assert "mtgauntlet-smaug_pair" in index and "mtgauntlet-selected_text" in index
    suites = {p.stem for p in (tmp_path / "gx-docs" / "expectations").glob("*.html")}
    assert suites == {"mtgauntlet-smaug_pair", "mtgauntlet-selected_text"}


def test_every_column_of_every_kind_has_a_description():
    for name, kind in KINDS.items():
        docs = COLUMN_DOCS[name]
        assert set(docs) == set(kind.column_names), name
        assert all(len(docs[c]) > 10 for c in kind.column_names), name


def test_provenance_statements_are_checked_before_anything_is_written(sample_builds, tmp_path, monkeypatch, capsys):
    base = [
        "release",
        sample_builds / "subset",
        "--name",
        "p",
        "--version",
        "0.1.0",
        "--out",
        tmp_path / "r",
        "--provenance",
        "sample_es_en:license=cc-by-4.0",
    ]
    for args, why in (
        (
            ["--provenance", "sample_es_em:license=mit"],
            "--provenance sample_es_em: no released record comes from "
            "'sample_es_em' (the records' source_dataset values: "
            "sample_es_en)",
        ),
        (["--provenance", "sample_es_en:url=javascript:alert(1)"], "url must be an http(s) address"),
        (["--provenance", "sample_es_en:url=ftp://example.org/x"], "url must be an http(s) address"),
        (["--provenance", "sample_es_en:license_link=javascript:alert(1)"], "license_link must be an http(s)"),
        (["--provenance", "sample_es_en:hub_id=../../x"], "hub_id must be a Hugging Face Hub dataset id"),
        (["--provenance", "sample_es_en:hub_id=org/a--b"], "hub_id must be a Hugging Face Hub dataset id"),
        (["--provenance", "sample_es_en:hub_id=a/b/c"], "hub_id must be a Hugging Face Hub dataset id"),
    ):
        code, out, err = run_main(monkeypatch, capsys, *base, *args)
        assert code == 2 and err.startswith("error: ") and why in err and err.count("\n") == 1, (args, err)
    assert not (tmp_path / "r").exists()
    code, out, err = run_main(
        monkeypatch,
        capsys,
        *base,
        "--provenance",
        "sample_es_en:hub_id=my-org/my_data.v2",
        "--provenance",
        "sample_es_en:url=https://example.org/data",
    )
    assert code == 0, err
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(tmp_path / "r" / "name=p" / "version=0.1.0" / "README.md")
    assert card.data.source_datasets == ["extended|my-org/my_data.v2"]


def test_an_unrecognised_input_file_is_named_by_its_file_name_not_its_path(
    sample_builds, tmp_path, monkeypatch, capsys
):
    mine = tmp_path / "private" / "place" / "mine.tsv"
    mine.parent.mkdir(parents=True)
    mine.write_text("text\nUn texto.\n", encoding="utf-8")
    code, out, err = run_main(
        monkeypatch,
        capsys,
        "release",
        sample_builds / "subset",
        "--name",
        "f",
        "--version",
        "0.1.0",
        "--out",
        tmp_path / "r",
        "--input-file",
        mine.resolve(),
    )
    assert code == 0 and "mine.tsv (sha256 " in err, err
    rel = tmp_path / "r" / "name=f" / "version=0.1.0"
    m = json.loads((rel / "manifest.json").read_text())
    assert any(w.startswith("mine.tsv (sha256 ") for w in m["license"]["warnings"])
    for f in (rel / "manifest.json", rel / "README.md", rel / "croissant.json"):
        assert str(mine.parent) not in f.read_text(encoding="utf-8"), f
