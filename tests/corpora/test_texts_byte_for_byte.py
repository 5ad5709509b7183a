"""Issue #17: every text goes from an input file to a build or a scored file byte for byte; skipped rows are
counted by reason; a resume never mixes inputs; one process builds into a directory at a time."""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
import time

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mtgauntlet.corpora.readers import read_rows
from mtgauntlet.records import load_records
from tests.support.cli import REPO, invoke

PIECES = [
    "\t",
    '"',
    '""',
    "'",
    "\r\n",
    "\n",
    "\r",
    "  ",
    " ",
    "\u00a0",
    "\u200b",
    "\u200f",
    "\u200e",
    "\u202b",
    "😀",
    "👩🏽‍💻",
    "ñ",
    "ß",
    "漢字",
    "שלום",
    "مرحبا",
    ",",
    ";",
    "\\",
    "=1+1",
    "NaN",
    "null",
    "-",
    "#",
]


def random_texts(seed: int, n: int) -> list[str]:
    """Texts made of awkward pieces around a word, so none is blank after stripping; all distinct."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        parts = [rng.choice(PIECES) for _ in range(rng.randint(0, 6))]
        parts.insert(rng.randint(0, len(parts)), f"w{len(out)}x{rng.randint(0, 999)}")
        text = "".join(parts)
        if text.strip() and text not in out:
            out.append(text)
    return out


def write_all_formats(tmp_path, texts: list[str]) -> dict[str, object]:
    """The same table written by pandas and by the csv module, to TSV, CSV, JSONL and Parquet."""
    df = pd.DataFrame({"id": [f"r{i}" for i in range(len(texts))], "src": texts})
    paths = {}
    paths["pandas.tsv"] = tmp_path / "pandas.tsv"
    df.to_csv(paths["pandas.tsv"], sep="\t", index=False)
    paths["pandas.csv"] = tmp_path / "pandas.csv"
    df.to_csv(paths["pandas.csv"], index=False)
    paths["pandas.tsv.gz"] = tmp_path / "pandas.tsv.gz"
    df.to_csv(paths["pandas.tsv.gz"], sep="\t", index=False, compression="gzip")
    for name, delim in (("csvmod.tsv", "\t"), ("csvmod.csv", ",")):
        paths[name] = tmp_path / name
        with open(paths[name], "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, delimiter=delim)  # QUOTE_MINIMAL, \r\n line ends
            w.writerow(["id", "src"])
            w.writerows(zip(df["id"], df["src"]))
    paths["pandas.jsonl"] = tmp_path / "pandas.jsonl"
    df.to_json(paths["pandas.jsonl"], orient="records", lines=True, force_ascii=False)
    paths["json.jsonl"] = tmp_path / "json.jsonl"
    paths["json.jsonl"].write_text(
        "".join(json.dumps({"id": i, "src": t}) + "\n" for i, t in zip(df["id"], texts)), encoding="utf-8"
    )
    paths["pandas.parquet"] = tmp_path / "pandas.parquet"
    df.to_parquet(paths["pandas.parquet"])
    return paths


@pytest.mark.parametrize("seed", [1, 2])
def test_awkward_texts_survive_every_format_byte_for_byte(tmp_path, seed):
    texts = random_texts(seed, 40)
    for name, path in write_all_formats(tmp_path, texts).items():
        got = [r["src"] for r in read_rows(path, text_fields=["src"]).rows]
        assert got == texts, name


def test_build_and_score_keep_texts_exact_and_score_output_reads_back(tmp_path):
    texts = random_texts(7, 30)
    paths = write_all_formats(tmp_path, texts)
    for name in ("pandas.tsv", "csvmod.csv", "pandas.jsonl", "pandas.parquet"):
        out = tmp_path / f"build-{name}"
        r = invoke(
            [
                "build",
                "subset",
                "--input",
                paths[name],
                "--src-lang",
                "en",
                "--estimator",
                "length",
                "--budget",
                len(texts),
                "--out",
                out,
            ]
        )
        assert r.exit_code == 0, r
        kept = load_records(out).column("text").to_pylist()
        assert sorted(kept) == sorted(texts), name
    for suffix in ("tsv", "csv", "tsv.gz", "csv.gz", "jsonl", "parquet"):
        scored = tmp_path / f"scored.{suffix}"
        r = invoke(["score", "difficulty", "--input", paths["pandas.tsv"], "--src-lang", "en", "--out", scored])
        assert r.exit_code == 0, r
        back = read_rows(scored, text_fields=["src"]).rows
        assert [row["src"] for row in back] == texts, suffix
        assert [row["id"] for row in back] == [f"r{i}" for i in range(len(texts))]
        # and the scored file is itself a valid input of the next command
        again = tmp_path / f"again.{suffix}.parquet"
        assert invoke(["score", "difficulty", "--input", scored, "--src-lang", "en", "--out", again]).exit_code == 0
        assert pd.read_parquet(again)["src"].tolist() == texts


def test_literal_quotes_still_load_and_quoting_option(tmp_path):
    p = tmp_path / "mqm-like.tsv"
    p.write_text('src\tscore\n"Stop!" he said\t1\nan "open quote\t2\nplain\t3\n', encoding="utf-8")
    rows = read_rows(p, text_fields=["src"])
    assert [r["src"] for r in rows.rows] == ['"Stop!" he said', 'an "open quote', "plain"]
    assert rows.quoting == "none"
    q = tmp_path / "quoted.tsv"
    q.write_text('src\tscore\n"El dijo ""hola"""\t1\n"a\tb"\t2\n', encoding="utf-8")
    assert [r["src"] for r in read_rows(q, text_fields=["src"]).rows] == ['El dijo "hola"', "a\tb"]
    forced = read_rows(q, quoting="none", on_error="skip")  # the user says: quotes are literal
    assert forced.skipped_counts() == {"wrong field count": 1}
    r = invoke(
        ["score", "difficulty", "--input", q, "--src-lang", "es", "--quoting", "none", "--out", tmp_path / "o.tsv"]
    )
    assert r.exit_code == 2 and "--quoting" in r.stderr and "line 3" in r.stderr and "Traceback" not in r.stderr


def _table_with_every_bad_row(tmp_path):
    tsv = tmp_path / "bad.tsv"
    lines = [
        "id\tsrc",
        "1\tgood text one",
        "2\t   ",
        "3\tgood text two",
        "4\ttoo\tmany",
        "5\t" + "x" * 50,
        "6\tgood text three",
    ]
    raw = ("\n".join(lines) + "\n").encode("utf-8") + b"7\tbad \xff bytes\n8\tgood text four\n"
    tsv.write_bytes(raw)
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text(
        '{"src": "fine one"}\n{"src": 5}\n{"src": \n[1, 2]\n{"src": "fine two"}\n{"src": ""}\n', encoding="utf-8"
    )
    return tsv, jsonl


def test_skip_bad_counts_every_reason_in_build_json_and_summary(tmp_path):
    tsv, jsonl = _table_with_every_bad_row(tmp_path)
    r = invoke(
        [
            "build",
            "subset",
            "--input",
            tsv,
            "--src-lang",
            "en",
            "--max-chars",
            40,
            "--budget",
            2,
            "--out",
            tmp_path / "b1",
        ]
    )
    assert r.exit_code == 2 and "line 8" in r.stderr and "invalid UTF-8" in r.stderr and "--skip-bad" in r.stderr
    r = invoke(
        [
            "build",
            "subset",
            "--input",
            tsv,
            "--src-lang",
            "en",
            "--max-chars",
            40,
            "--budget",
            2,
            "--skip-bad",
            "--out",
            tmp_path / "b1",
        ]
    )
    assert r.exit_code == 0, r
    want = {"empty text": 1, "wrong field count": 1, "text too long": 1, "invalid UTF-8": 1}
    skipped = json.loads((tmp_path / "b1" / "build.json").read_text())["counts"]["skipped"]
    assert skipped == want
    for reason, n in want.items():
        assert f"{reason}={n}" in r.stdout
    r = invoke(
        ["build", "subset", "--input", jsonl, "--src-lang", "en", "--budget", 2, "--skip-bad", "--out", tmp_path / "b2"]
    )
    assert r.exit_code == 0, r
    skipped = json.loads((tmp_path / "b2" / "build.json").read_text())["counts"]["skipped"]
    assert skipped == {"wrong type": 1, "invalid JSON": 1, "not a JSON object": 1, "empty text": 1}
    r = invoke(["build", "subset", "--input", jsonl, "--src-lang", "en", "--budget", 2, "--out", tmp_path / "b3"])
    assert r.exit_code == 2 and "line 2" in r.stderr and "expected string, found int" in r.stderr


def test_wrong_type_parquet_column_is_named(tmp_path):
    p = tmp_path / "ints.parquet"
    pq.write_table(pa.table({"src": [1, 2, 3]}), p)
    for extra in ([], ["--skip-bad"]):
        r = invoke(["build", "subset", "--input", p, "--src-lang", "en", "--out", tmp_path / "o", *extra])
        assert r.exit_code == 2 and "field 'src'" in r.stderr and "expected string, found int64" in r.stderr
        assert not (tmp_path / "o" / "build.json").exists()
    lists = tmp_path / "lists.parquet"
    pq.write_table(pa.table({"src": [["a"], ["b"]]}), lists)
    r = invoke(["score", "difficulty", "--input", lists, "--src-lang", "en", "--out", tmp_path / "x.tsv"])
    assert r.exit_code == 2 and "expected string, found list" in r.stderr


def test_zero_of_n_rows_is_an_error(tmp_path):
    p = tmp_path / "blank.tsv"
    p.write_text("src\n \n\u00a0\n\t\n", encoding="utf-8")
    r = invoke(["build", "subset", "--input", p, "--src-lang", "en", "--skip-bad", "--out", tmp_path / "o"])
    assert r.exit_code == 2 and "no usable rows" in r.stderr and "empty text=2" in r.stderr, r


def _sample_copy(tmp_path, sample_path, edit=None, name="in.tsv"):
    lines = sample_path.read_text(encoding="utf-8").splitlines(keepends=True)
    if edit:
        edit(lines)
    p = tmp_path / name
    p.write_text("".join(lines), encoding="utf-8")
    return p


def _interrupt(out):
    """Leave the state a killed build leaves: the last shard missing, the manifest in progress."""
    shards = sorted((out / "work").glob("part-*.parquet")) or sorted((out / "data").glob("part-*.parquet"))
    shards[-1].unlink()
    (out / "data" / "part-final.parquet").unlink(missing_ok=True)
    m = json.loads((out / "build.json").read_text())
    m["status"] = "in_progress"
    (out / "build.json").write_text(json.dumps(m))


def test_resume_refuses_changed_or_edited_input(tmp_path, sample_path):
    a = _sample_copy(tmp_path, sample_path)

    def edit(lines):
        cols = lines[5].split("\t")
        cols[2] = "EDITED " + cols[2]  # the es column
        lines[5] = "\t".join(cols)

    b = _sample_copy(tmp_path, sample_path, edit, "edited.tsv")
    other = _sample_copy(
        tmp_path, sample_path, lambda ls: ls.__setitem__(slice(1, None), list(reversed(ls[1:]))), "other.tsv"
    )
    out = tmp_path / "out"
    args = [
        "build",
        "subset",
        "--src-col",
        "es",
        "--src-lang",
        "es",
        "--estimator",
        "length",
        "--budget",
        42,
        "--shard-size",
        10,
        "--out",
        out,
    ]
    assert invoke([*args, "--input", a]).exit_code == 0
    _interrupt(out)
    for changed in (b, other):
        r = invoke([*args, "--input", changed])
        assert r.exit_code == 2 and "different input" in r.stderr and "--overwrite" in r.stderr, r
    assert json.loads((out / "build.json").read_text())["status"] == "in_progress"
    r = invoke([*args, "--input", a])  # the same input resumes
    assert r.exit_code == 0 and "resumed" in r.stdout
    r = invoke([*args, "--input", b, "--overwrite"])
    assert r.exit_code == 0
    texts = load_records(out).column("text").to_pylist()
    assert sum(t.startswith("EDITED ") for t in texts) == 1 and len(texts) == 42
    manifest = json.loads((out / "build.json").read_text())
    assert manifest["signature"].count("|input:") == 1 and manifest["status"] == "complete"


def test_a_second_process_on_the_same_out_is_refused(tmp_path, sample_path):
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; "
            "from mtgauntlet.runner.build_runner import build_lock\n"
            "with build_lock(Path(sys.argv[1])):\n print('locked', flush=True); time.sleep(60)",
            str(out),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        r = invoke(
            [
                "build",
                "subset",
                "--input",
                sample_path,
                "--src-col",
                "es",
                "--src-lang",
                "es",
                "--budget",
                3,
                "--out",
                out,
            ]
        )
        assert r.exit_code == 2 and "being built by pid" in r.stderr, r
        assert not (out / "build.json").exists()
    finally:
        holder.kill()
        holder.wait()
    time.sleep(0.1)
    r = invoke(
        ["build", "subset", "--input", sample_path, "--src-col", "es", "--src-lang", "es", "--budget", 3, "--out", out]
    )
    assert r.exit_code == 0, r


def test_spec_typo_leaves_no_build_behind(tmp_path, sample_path):
    out = tmp_path / "o"
    args = [
        "build",
        "subset",
        "--input",
        sample_path,
        "--src-col",
        "es",
        "--src-lang",
        "es",
        "--budget",
        3,
        "--out",
        out,
    ]
    r = invoke([*args, "--estimator", "lenght"])
    assert r.exit_code == 2 and "lenght" in r.stderr and "Traceback" not in r.output
    assert not (out / "build.json").exists()
    assert invoke([*args, "--estimator", "length"]).exit_code == 0


def test_language_codes_are_normalised_once(tmp_path, sample_path):
    out = tmp_path / "o"
    r = invoke(
        ["build", "subset", "--input", sample_path, "--src-col", "es", "--src-lang", "ES", "--budget", 3, "--out", out]
    )
    assert r.exit_code == 0, r
    sig = json.loads((out / "build.json").read_text())["signature"]
    assert "|src:es|" in sig and "|tgt:none|" in sig
    recs = load_records(out).to_pylist()
    assert {x["src_lang"] for x in recs} == {"es"} and {x["tgt_lang"] for x in recs} == {None}


def test_named_layouts_follow_the_declared_direction(tmp_path, shared_data):
    ps = shared_data / "parallel-samples/parallel_samples.tsv.gz"
    from mtgauntlet.corpora.load import CorpusRequest, load_corpus

    en_es = load_corpus(
        CorpusRequest(str(ps), format="parallel-samples", lp="en-es", src_lang="en", tgt_lang="es", limit=5)
    )
    assert all(r["src"] == r["en"] and r["ref"] == r["xx"] and r["src_lang"] == "en" for r in en_es.rows)
    es_en = load_corpus(CorpusRequest(str(ps), format="parallel-samples", src_lang="es", tgt_lang="en", limit=5))
    assert all(r["src"] == r["xx"] and r["lp"] == "en-es" and r["tgt_lang"] == "en" for r in es_en.rows)
    wmt = shared_data / "wmt24-general-testset/wmt24_general_testset.tsv.gz"
    r = invoke(
        [
            "build",
            "smaug",
            "--input",
            wmt,
            "--format",
            "wmt24",
            "--lp",
            "en-de",
            "--src-lang",
            "en",
            "--tgt-lang",
            "es",
            "--out",
            tmp_path / "w",
        ]
    )
    assert r.exit_code == 2 and "--tgt-lang" in r.stderr and "Traceback" not in r.output
    rows = load_corpus(CorpusRequest(str(wmt), src_lang="en", tgt_lang="de", limit=3))
    assert {(x["src_lang"], x["tgt_lang"]) for x in rows.rows} == {("en", "de")}
