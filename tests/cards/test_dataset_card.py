"""The dataset card and its metadata: hostile strings stay text (rendered with raw HTML allowed, as the Hub does),
licences are Hub ids, provenance is stated or recognised by content (never by a name), and what `datasets`,
`mlcroissant` and the Hub read from a release is right."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.card_render import Elements, card_text, render, render_python_markdown
from tests.support.headless_chromium import chromium, load_page
from tests.support.release_helpers import cli, run_main

SCRIPT = "<script>window.__pwned = 1</script>"
IMG = '<img src="x" onerror="window.__pwned = 2">'
PAYLOADS = {
    "pretty": f"Nice {SCRIPT} set",
    "description": f"About {IMG} [click](javascript:window.__pwned=3) ![i](javascript:alert(1)) ``` </code>{SCRIPT}",
    "licence": f"Terms {IMG}",
    "domain": f"news{SCRIPT}",
    "citation": f"Doe ` {SCRIPT} ``` {IMG}",
}
ALLOWED = {
    "h1",
    "h2",
    "h3",
    "h4",
    "p",
    "ul",
    "li",
    "ol",
    "strong",
    "em",
    "code",
    "pre",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "blockquote",
    "img",
    "a",
}


def release(rel_root: Path, build: Path, *args) -> Path:
    cli("release", build, "--name", "evil", "--version", "0.1.0", "--out", rel_root, *args)
    return rel_root / "name=evil" / "version=0.1.0"


@pytest.fixture(scope="module")
def hostile_release(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    src = root / "<img src=x onerror=alert(1)>.tsv"  # the file name becomes the records' source_dataset
    src.write_text(
        "text\tdomain\n"
        f"Un texto bastante largo para medir la dificultad.\t{PAYLOADS['domain']}\n"
        "Otro texto, algo más corto.\t[x](javascript:alert(1))\n",
        encoding="utf-8",
    )
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
        root / "b",
    )
    name = "<img src=x onerror=alert(1)>"
    rel = release(
        root / "r",
        root / "b",
        "--pretty-name",
        PAYLOADS["pretty"],
        "--description",
        PAYLOADS["description"],
        "--license",
        "other",
        "--license-name",
        PAYLOADS["licence"],
        "--license-link",
        "https://example.org/t",
        "--provenance",
        f"{name}:license=cc-by-4.0",
        "--provenance",
        f"{name}:citation={PAYLOADS['citation']}",
        "--provenance",
        f"{name}:url=https://example.org/x)](javascript:window.__pwned=4)",
    )
    return rel


def assert_inert(html: str) -> Elements:
    page = Elements(html)
    tags = {t for t, _ in page.elements}
    assert tags <= ALLOWED, tags - ALLOWED
    for tag, attrs in page.elements:
        assert not [k for k in attrs if k.startswith("on")], (tag, attrs)
        for k in ("href", "src"):
            assert not attrs.get(k, "").strip().lower().startswith("javascript"), (tag, attrs)
        if tag == "img":
            assert attrs["src"].startswith("plots/") and attrs["src"].endswith(".png"), attrs
    return page


def test_hostile_strings_render_as_text(hostile_release):
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(hostile_release / "README.md")
    for html in (render(card.text), render_python_markdown(card.text)):
        assert_inert(html)
    shown = card_text(card.text)
    for key in ("pretty", "domain", "licence"):  # shown, as the text it is
        assert PAYLOADS[key] in shown, key
    assert "onerror=alert(1)>" in shown and "https://example.org/x)](javascript:window.__pwned=4)" in shown
    # the YAML header holds each string exactly (yaml quoting), the title on one line
    assert card.data.pretty_name == PAYLOADS["pretty"] and card.data.license_name == PAYLOADS["licence"]
    assert card.data.license == "other" and card.data.license_link == "https://example.org/t"
    assert card.data.source_datasets == ["extended|other"]  # a name that is no Hub id is no Hub link


@pytest.mark.skipif(
    chromium() is None,
    reason="Debian's chromium is not installed (make setup installs it where "
    "apt works): the rendered card is not run in a real browser",
)
def test_hostile_card_runs_nothing_in_a_browser(hostile_release, tmp_path):
    from huggingface_hub import DatasetCard

    page = tmp_path / "card.html"
    page.write_text(
        "<!doctype html><meta charset=utf-8><body>"
        + render(DatasetCard.load(hostile_release / "README.md").text)
        + "</body>",
        encoding="utf-8",
    )
    run = load_page(
        page,
        evaluate={
            "pwned": "window.__pwned || 0",
            "scripts": "document.scripts.length",
            "imgs": "Array.from(document.images).map(i => i.getAttribute('src'))",
        },
    )
    assert run.values["pwned"] == 0 and run.values["scripts"] == 0
    assert all(src.startswith("plots/") for src in run.values["imgs"])


def test_licence_is_a_hub_id_and_other_needs_name_and_link(tmp_path, monkeypatch, capsys, sample_path):
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
        "3",
        "--out",
        tmp_path / "b",
    )
    base = ["release", tmp_path / "b", "--name", "l", "--version", "0.1.0", "--out", tmp_path / "r"]
    for args, why in (
        (["--license", "MIT<script>"], "is not a Hugging Face Hub licence id"),
        (["--license", "other"], "needs the licence's name and a link"),
        (["--license", "other", "--license-name", "x"], "needs the licence's name and a link"),
        (["--provenance", "sample_es_en:license=apache"], "is not a Hugging Face Hub licence id"),
        (["--provenance", "sample_es_en:url=https://x"], "no licence stated for sample_es_en"),
        (["--provenance", "sample_es_en=cc-by-4.0"], "expected DATASET:FIELD=VALUE"),
        (["--license", "cc-by-4.0", "--url", "javascript:alert(1)"], "give the http(s) address"),
    ):
        code, out, err = run_main(monkeypatch, capsys, *base, *args)
        assert code == 2 and err.startswith("error: ") and why in err and err.count("\n") == 1, (args, err)
    assert not (tmp_path / "r").exists()


@pytest.fixture(scope="module")
def own_files(tmp_path_factory, sample_path):
    """Files whose names look like known data but whose content is the user's own."""
    root = tmp_path_factory.mktemp("names")
    text = sample_path.read_text(encoding="utf-8").replace("museo", "mueso")  # one word changed: other content
    builds = {}
    for name in ("sample_es_en_v2.tsv", "flores_mine.tsv", "aces_mine.tsv", "copy/sample_es_en.tsv"):
        f = root / name
        f.parent.mkdir(exist_ok=True)
        f.write_text(text, encoding="utf-8")
        out = root / "b" / name.replace("/", "_")
        cli(
            "build",
            "subset",
            "--input",
            f,
            "--format",
            "parallel",
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--estimator",
            "length",
            "--budget",
            "3",
            "--out",
            out,
        )
        builds[name] = (f, out)
    return root, builds


def test_licence_never_comes_from_a_file_name(own_files, monkeypatch, capsys):
    root, builds = own_files
    for i, (name, (f, build)) in enumerate(builds.items()):
        code, out, err = run_main(
            monkeypatch,
            capsys,
            "release",
            build,
            "--name",
            "own",
            "--version",
            f"0.{i}.0",
            "--out",
            root / "r",
            "--input-file",
            f,
        )
        assert code == 0, err
        rel = root / "r" / "name=own" / f"version=0.{i}.0"
        m = json.loads((rel / "manifest.json").read_text())
        assert m["license"]["license"] == "unknown", name  # not apache-2.0, cc-by-sa-4.0 or cc-by-nc-sa-4.0
        assert [s["origin"] for s in m["license"]["sources"]] == ["unknown"]
        assert "is not data mtgauntlet recognises" in err and "provenance and licence are unknown" in err
        assert "\nlicense: unknown\n" in (rel / "README.md").read_text()


def test_provenance_stated_or_recognised_by_sha256(own_files, sample_path, tmp_path, monkeypatch, capsys):
    root, builds = own_files
    f, build = builds["sample_es_en_v2.tsv"]
    code, out, err = run_main(
        monkeypatch,
        capsys,
        "release",
        build,
        "--name",
        "st",
        "--version",
        "0.1.0",
        "--out",
        tmp_path,
        "--provenance",
        "sample_es_en_v2:license=cc-by-4.0",
        "--provenance",
        "sample_es_en_v2:name=My sentences",
        "--provenance",
        "sample_es_en_v2:url=https://example.org/mine",
        "--provenance",
        "sample_es_en_v2:citation=Doe (2024)",
    )
    assert code == 0 and "warning" not in err, err
    m = json.loads((tmp_path / "name=st" / "version=0.1.0" / "manifest.json").read_text())
    (src,) = m["license"]["sources"]
    assert m["license"]["license"] == "cc-by-4.0" and src["origin"].startswith("stated")
    assert (src["name"], src["url"], src["citation"]) == ("My sentences", "https://example.org/mine", "Doe (2024)")
    # the shipped sample, renamed: recognised by its content
    renamed = tmp_path / "renamed.tsv"
    shutil.copyfile(sample_path, renamed)
    cli(
        "build",
        "subset",
        "--input",
        renamed,
        "--src-col",
        "es",
        "--src-lang",
        "es",
        "--tgt-lang",
        "en",
        "--estimator",
        "length",
        "--budget",
        "3",
        "--out",
        tmp_path / "b",
    )
    code, out, err = run_main(
        monkeypatch,
        capsys,
        "release",
        tmp_path / "b",
        "--name",
        "rec",
        "--version",
        "0.1.0",
        "--out",
        tmp_path,
        "--input-file",
        renamed,
    )
    assert code == 0 and "warning" not in err, err
    rel = tmp_path / "name=rec" / "version=0.1.0"
    m = json.loads((rel / "manifest.json").read_text())
    assert m["license"]["license"] == "apache-2.0"
    assert (
        "sha256" in m["license"]["sources"][0]["origin"] and "sample_es_en.tsv" in m["license"]["sources"][0]["origin"]
    )
    from huggingface_hub import DatasetCard

    assert DatasetCard.load(rel / "README.md").data.source_datasets == ["original"]


@pytest.mark.parametrize(
    "n, bucket",
    [
        (0, "n<1K"),
        (999, "n<1K"),
        (1000, "1K<n<10K"),
        (9_999, "1K<n<10K"),
        (10_000, "10K<n<100K"),
        (99_999, "10K<n<100K"),
        (100_000, "100K<n<1M"),
        (999_999, "100K<n<1M"),
        (1_000_000, "1M<n<10M"),
        (9_999_999, "1M<n<10M"),
        (10_000_000, "10M<n<100M"),
        (10**8, "100M<n<1B"),
        (10**9, "1B<n<10B"),
        (10**10, "10B<n<100B"),
        (10**11, "100B<n<1T"),
        (10**12 - 1, "100B<n<1T"),
        (10**12, "n>1T"),
    ],
)
def test_size_category_boundaries(n, bucket):
    from mtgauntlet.cards.card_metadata import size_category

    assert size_category(n) == bucket


@pytest.fixture(scope="module")
def plain_release(tmp_path_factory, sample_path):
    root = tmp_path_factory.mktemp("plain")
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
        "4",
        "--out",
        root / "b",
    )
    cli(
        "release",
        root / "b",
        "--name",
        "demo-set",
        "--version",
        "1.2.3",
        "--out",
        root / "r",
        "--description",
        "Hard Spanish sentences.",
        "--input-file",
        sample_path,
        "--creator",
        "Ann Example",
        "--url",
        "https://huggingface.co/datasets/org/demo-set",
    )
    cli("release", root / "b", "--name", "demo-set", "--version", "1.2.4", "--out", root / "r")
    return root / "r" / "name=demo-set"


def test_datasets_load_dataset_says_which_release(plain_release, tmp_path):
    import datasets

    ds = datasets.load_dataset(
        str(plain_release / "version=1.2.3"), "selected_text", split="test", cache_dir=str(tmp_path / "hf")
    )
    assert len(ds) == 4 and str(ds.info.version) == "1.2.3" and ds.info.config_name == "selected_text"
    assert ds.info.description.startswith(
        "mtgauntlet release demo-set 1.2.3: 4 selected_text records. Hard Spanish sentences."
    )
    assert ds.info.license == "apache-2.0"


def test_croissant_url_creator_and_datetime_with_mlcroissant(plain_release):
    mlc = pytest.importorskip("mlcroissant")
    for version, url, creators in (
        ("1.2.3", "https://huggingface.co/datasets/org/demo-set", ["Ann Example"]),
        ("1.2.4", "./", ["mtgauntlet"]),
    ):
        path = plain_release / f"version={version}" / "croissant.json"
        ds = mlc.Dataset(jsonld=str(path))
        assert ds.metadata.url == url and [c.name for c in ds.metadata.creators] == creators
        doc = json.loads(path.read_text())
        (created,) = [f for rs in doc["recordSet"] for f in rs["field"] if f["name"] == "created_at"]
        assert created["dataType"] == "sc:DateTime"
        rec = next(iter(ds.records("selected_text")))
        assert rec["selected_text/created_at"].tzinfo is not None  # a time of day, not a date
