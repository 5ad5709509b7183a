"""Issue #25: ids and texts of the input are kept as written (id 0 is an id), and user errors are one line."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from mtgauntlet.records import load_records
from tests.support.cli import invoke

TEXTS = ["The first sentence has words.", "A second one, also with words.", "And a third sentence here."]


def _subset(path, out, *extra):
    return invoke(
        [
            "build",
            "subset",
            "--input",
            path,
            "--src-lang",
            "en",
            "--estimator",
            "length",
            "--budget",
            len(TEXTS),
            "--out",
            out,
            *extra,
        ]
    )


def _source_ids(out) -> dict[str, str]:
    t = load_records(out)
    return dict(zip(t.column("text").to_pylist(), t.column("source_id").to_pylist()))


@pytest.mark.parametrize("ids", [[0, 1, 2], ["0", "1", "2"], [2, 0, 1]])
def test_id_zero_is_kept_in_jsonl(tmp_path, ids):
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"id": i, "src": t}) + "\n" for i, t in zip(ids, TEXTS)), encoding="utf-8")
    r = _subset(path, tmp_path / "out")
    assert r.exit_code == 0, r
    assert _source_ids(tmp_path / "out") == {t: str(i) for i, t in zip(ids, TEXTS)}


@pytest.mark.parametrize("ids", [[0, 1, 2], ["0", "1", "2"]])
def test_id_zero_is_kept_in_parquet(tmp_path, ids):
    path = tmp_path / "in.parquet"
    pd.DataFrame({"id": ids, "src": TEXTS}).to_parquet(path)
    r = _subset(path, tmp_path / "out")
    assert r.exit_code == 0, r
    assert _source_ids(tmp_path / "out") == {t: str(i) for i, t in zip(ids, TEXTS)}


def test_source_id_column_zero_wins_over_id(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(
        "".join(json.dumps({"source_id": n, "id": f"x{n}", "src": t}) + "\n" for n, t in enumerate(TEXTS)),
        encoding="utf-8",
    )
    assert _subset(path, tmp_path / "out").exit_code == 0
    assert sorted(_source_ids(tmp_path / "out").values()) == ["0", "1", "2"]


@pytest.mark.parametrize("blank", ["", "  ", None])
def test_blank_id_is_one_line_error_naming_file_line_and_field(tmp_path, blank):
    path = tmp_path / "in.jsonl"
    ids = [0, blank, 2]
    path.write_text("".join(json.dumps({"id": i, "src": t}) + "\n" for i, t in zip(ids, TEXTS)), encoding="utf-8")
    r = _subset(path, tmp_path / "out")
    assert r.exit_code == 2, r
    assert r.stderr.strip().count("\n") == 0 and "Traceback" not in r.stderr
    assert str(path) in r.stderr and "line 2" in r.stderr and "field 'id'" in r.stderr and "empty id" in r.stderr
    # skipping bad rows counts it instead
    r = _subset(path, tmp_path / "out2", "--skip-bad")
    assert r.exit_code == 0, r
    assert sorted(_source_ids(tmp_path / "out2").values()) == ["0", "2"]
    manifest = json.loads((tmp_path / "out2" / "build.json").read_text())
    assert manifest["counts"]["skipped"] == {"empty id": 1}


def test_tsv_id_zero_and_named_layout_ids(tmp_path):
    path = tmp_path / "in.tsv"
    path.write_text("id\tsrc\n" + "".join(f"{i}\t{t}\n" for i, t in enumerate(TEXTS)), encoding="utf-8")
    assert _subset(path, tmp_path / "out").exit_code == 0
    assert sorted(_source_ids(tmp_path / "out").values()) == ["0", "1", "2"]
    flores = tmp_path / "flores200_devtest.tsv"
    flores.write_text(
        "id\tdomain\ttopic\teng\n" + "".join(f"{i}\twiki\tt\t{t}\n" for i, t in enumerate(TEXTS)), encoding="utf-8"
    )
    r = invoke(
        [
            "build",
            "subset",
            "--input",
            flores,
            "--format",
            "flores",
            "--src-lang",
            "en",
            "--budget",
            3,
            "--out",
            tmp_path / "fl",
        ]
    )
    assert r.exit_code == 0, r
    assert sorted(_source_ids(tmp_path / "fl").values()) == ["0", "1", "2"]


def _one_line_error(r, code: int = 2) -> str:
    assert r.exit_code == code, r
    err = r.stderr.strip()
    assert err.startswith("error: ") and "\n" not in err and "internal error" not in err, r
    return err


@pytest.mark.parametrize(
    "args, says",
    [
        (["--topics", 0, "--budget", 10], "--topics"),
        (["--topics", 100, "--budget", -5], "--budget"),
        (["--topics", 100, "--budget", 0], "--budget"),
        (["--topics", 5, "--budget", 10], "--k"),
        (["--topics", 100, "--budget", 10, "--epsilon", 1.5], "--epsilon"),
        (["--topics", 100, "--budget", 10, "--algorithms", "eps-greedy,bogus"], "bogus"),
        (["--topics", 100, "--budget", 10, "--fit", "/nonexistent/search"], "--fit"),
    ],
)
def test_simulate_bandit_bad_options_are_one_line_errors(args, says):
    r = invoke(["simulate", "bandit", *args])
    assert says in _one_line_error(r) and "nan" not in r.stdout


def test_hf_estimator_that_is_not_a_model_is_a_user_error(tmp_path, sample_path):
    not_a_model = tmp_path / "not-a-model"
    not_a_model.mkdir()
    (not_a_model / "config.json").write_text("{}")
    for spec in ("hf:/nonexistent", f"hf:{not_a_model}"):
        r = invoke(
            [
                "build",
                "subset",
                "--input",
                sample_path,
                "--src-col",
                "en",
                "--src-lang",
                "en",
                "--estimator",
                spec,
                "--out",
                tmp_path / "out",
            ]
        )
        assert spec[3:] in _one_line_error(r)
        assert not (tmp_path / "out" / "data").exists()


def test_texts_without_words_are_skipped_and_counted_as_empty_rate_counts_them(tmp_path):
    texts = [*TEXTS, "📉", "🙌 !!", "…"]
    path = tmp_path / "in.tsv"
    path.write_text("id\tsrc\n" + "".join(f"{i}\t{t}\n" for i, t in enumerate(texts)), encoding="utf-8")
    out = tmp_path / "out"
    r = invoke(
        [
            "build",
            "subset",
            "--input",
            path,
            "--src-lang",
            "en",
            "--estimator",
            "random",
            "--budget",
            len(texts),
            "--out",
            out,
        ]
    )
    assert r.exit_code == 0, r
    assert sorted(load_records(out).column("text").to_pylist()) == sorted(TEXTS)
    assert json.loads((out / "build.json").read_text())["counts"]["skipped"] == {"no words": 3}
    assert "no words=3" in r.stdout
    r = invoke(["validate", out, "--report", tmp_path / "report"])
    assert "text.empty_rate = 0 " in r.stdout, r
