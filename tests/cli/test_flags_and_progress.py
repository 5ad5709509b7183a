"""Issue #26 point 4, conventions a user's hands expect: progress on stderr only, -h / -V / -q, shell completion,
checked --format choices, language tags through langcodes, --json on every command that reports something, and
progress that moves inside a shard with an ETA that waits for evidence."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading

import pytest
import yaml

from tests.support.cli import REPO, invoke, invoke_subprocess


def _subset(sample_path, out, *extra):
    return [
        "build",
        "subset",
        "--input",
        sample_path,
        "--src-col",
        "es",
        "--src-lang",
        "es",
        "--budget",
        "5",
        "--out",
        out,
        *extra,
    ]


def test_progress_goes_to_stderr_when_stdout_is_redirected(tmp_path, sample_path):
    """stderr a terminal (a pty), stdout a pipe: the bar is drawn on the terminal, stdout holds the result only."""
    master, slave = os.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "120", "TERM": "xterm"}
    env.pop("MTGAUNTLET_QUIET", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "mtgauntlet.cli.main", *map(str, _subset(sample_path, tmp_path / "o"))],
        stdout=subprocess.PIPE,
        stderr=slave,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    os.close(slave)
    chunks: list[bytes] = []

    def drain():
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    stdout, _ = proc.communicate(timeout=300)
    reader.join(timeout=10)
    os.close(master)
    terminal = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0, (stdout, terminal)
    assert "build subset" in terminal and "5 records from 42 items" not in terminal
    out = stdout.decode()
    assert out.startswith("5 records from 42 items") and "build subset" not in out and "\x1b[" not in out, out


def test_short_help_version_and_quiet(tmp_path, sample_path):
    r = invoke(["-h"])
    assert r.exit_code == 0 and r.stdout.startswith("Usage: gauntlet") and "--quiet" in r.stdout
    r = invoke(["build", "subset", "-h"])
    assert r.exit_code == 0 and "--budget" in r.stdout
    r = invoke_subprocess(["-V"])
    assert r.exit_code == 0 and re.fullmatch(r"mtgauntlet \S+\n", r.stdout), r
    # without -q a log (stderr not a terminal) gets the progress line; with -q nothing but the result
    env = {"MTGAUNTLET_PROGRESS_EVERY": "0"}
    loud = invoke(_subset(sample_path, tmp_path / "a"), env=env)
    assert loud.exit_code == 0 and "build subset: 42/42 items" in loud.stderr, loud
    quiet = invoke(["-q", *_subset(sample_path, tmp_path / "b")], env=env)
    assert quiet.exit_code == 0 and quiet.stderr == "" and quiet.stdout == loud.stdout.replace("/a/", "/b/"), quiet
    assert invoke(_subset(sample_path, tmp_path / "c"), env=env).stderr  # -q did not stay on in this process
    err = invoke(["--quiet", *_subset(sample_path, tmp_path / "d"), "--limit", "0"])
    assert err.exit_code == 2 and err.stderr.startswith("error: ") and "--limit" in err.stderr  # errors still print


def test_completion_script_and_the_answers_it_asks_for():
    r = invoke(["completion", "bash"])
    assert r.exit_code == 0 and "_GAUNTLET_COMPLETE=complete_bash" in r.stdout and "complete " in r.stdout
    assert invoke(["completion", "zsh"]).stdout.startswith("#compdef gauntlet")
    r = invoke(["completion", "tcsh"])
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1 and "tcsh" in r.stderr
    # what the installed script runs when the user presses TAB
    r = invoke_subprocess(
        [], env={"_GAUNTLET_COMPLETE": "complete_bash", "COMP_WORDS": "gauntlet bu", "COMP_CWORD": "1"}
    )
    assert r.exit_code == 0 and r.stdout.split() == ["build"], r
    r = invoke_subprocess(
        [], env={"_GAUNTLET_COMPLETE": "complete_bash", "COMP_WORDS": "gauntlet build sub", "COMP_CWORD": "2"}
    )
    assert r.stdout.split() == ["subset"], r


@pytest.mark.parametrize(
    "args",
    [
        ["query", "--releases", "{tmp}", "--format", "xml", "SELECT 1"],
        ["score", "qe", "--input", "{sample}", "--out", "{tmp}/q.tsv", "--format", "xls"],
        [
            "score",
            "difficulty",
            "--input",
            "{sample}",
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--out",
            "{tmp}/d.tsv",
            "--format",
            "tsvv",
        ],
        [
            "build",
            "subset",
            "--input",
            "{sample}",
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--out",
            "{tmp}/o",
            "--format",
            "flores-200",
        ],
        ["evaluate", "dec", "--judgments", "{sample}", "--format", "mqm"],
        ["validate", "diversity", "--input", "{sample}", "--column", "es", "--format", "excel"],
    ],
)
def test_unknown_format_is_a_usage_error_before_any_work(tmp_path, sample_path, args):
    r = invoke([a.format(tmp=tmp_path, sample=sample_path) for a in args])
    assert r.exit_code == 2 and r.stdout == "", r
    lines = r.stderr.strip().splitlines()
    assert (
        len(lines) == 1 and lines[0].startswith("error: ") and "unknown format" in lines[0] and "--format" in lines[0]
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_language_tags_are_validated_and_normalised_once(tmp_path, sample_path):
    """ISO 639-3 codes and script subtags are accepted (langcodes), written in one canonical BCP-47 form, and the
    card's `language:` keeps the ISO 639 codes the Hub wants."""
    from mtgauntlet.records import load_records

    out = tmp_path / "b"
    r = invoke(
        [
            "build",
            "subset",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--src-lang",
            "arb_Arab",
            "--tgt-lang",
            "npi_Deva",
            "--budget",
            "4",
            "--out",
            out,
            "--json",
        ]
    )
    assert r.exit_code == 0, r
    recs = load_records(out).to_pylist()
    assert {(x["src_lang"], x["tgt_lang"]) for x in recs} == {("arb-Arab", "npi-Deva")}
    assert "|src:arb-Arab|" in json.loads(r.stdout)["signature"]
    r = invoke(["release", out, "--name", "langs", "--version", "1.0.0", "--out", tmp_path / "rel"])
    assert r.exit_code == 0, r
    card = (tmp_path / "rel" / "name=langs" / "version=1.0.0" / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(card.split("---")[1])
    assert sorted(meta["language"]) == ["arb", "npi"]
    for code, canonical in (("ckb", "ckb"), ("swh", "swh"), ("DEU", "de"), ("pt_br", "pt-BR")):
        r = invoke(
            [
                "build",
                "subset",
                "--input",
                sample_path,
                "--src-col",
                "es",
                "--src-lang",
                code,
                "--budget",
                "2",
                "--out",
                tmp_path / code,
                "--json",
            ]
        )
        assert r.exit_code == 0 and f"|src:{canonical}|" in json.loads(r.stdout)["signature"], (code, r)
    for bad in ("xx", "en-x-private", "arb_Arabic"):
        r = invoke(
            ["build", "subset", "--input", sample_path, "--src-col", "es", "--src-lang", bad, "--out", tmp_path / "bad"]
        )
        lines = r.stderr.strip().splitlines()
        assert r.exit_code == 2 and len(lines) == 1 and bad in lines[0] and "--src-lang" in lines[0], (bad, r)
    assert not (tmp_path / "bad").exists()


def _json(r):
    assert r.exit_code == 0, r
    return json.loads(r.stdout)  # the whole of stdout is one JSON object


def test_json_on_every_command_that_reports(tmp_path, sample_path):
    import shutil

    build = _json(invoke(_subset(sample_path, tmp_path / "b", "--json")))
    assert build["records"] == 5 and build["items"] == 42 and build["signature"].startswith("builder:subset|")
    scored = _json(
        invoke(
            [
                "score",
                "difficulty",
                "--input",
                sample_path,
                "--src-col",
                "es",
                "--src-lang",
                "es",
                "--out",
                tmp_path / "d.tsv",
                "--json",
            ]
        )
    )
    assert scored["rows"] == 42 and scored["without_score"] == 0 and (tmp_path / "d.tsv").is_file()
    rel = _json(
        invoke(["release", tmp_path / "b", "--name", "j", "--version", "0.1.0", "--out", tmp_path / "r", "--json"])
    )
    assert rel["records"] == 5 and rel["not_validated"] == ["selected_text"]
    ok = _json(invoke(["verify", rel["release"], "--json"]))
    assert ok == {"release": rel["release"], "ok": True, "problems": []}
    plan = _json(invoke(["publish", rel["release"], "--repo", f"file:{tmp_path / 'hub'}", "--dry-run", "--json"]))
    assert plan["dry_run"] and plan["tag"] == "v0.1.0" and {"op": "add", "path": "manifest.json"} in plan["operations"]
    page = _json(invoke(["audit", tmp_path / "b", "--out", tmp_path / "a.html", "--json"]))
    assert page["audit"] == str(tmp_path / "a.html") and (tmp_path / "a.html").is_file()
    broken = tmp_path / "broken"
    shutil.copytree(rel["release"], broken)
    (broken / "README.md").write_text("edited", encoding="utf-8")
    r = invoke(["verify", broken, "--json"])
    bad = json.loads(r.stdout)
    assert r.exit_code == 1 and not bad["ok"] and any("README.md" in p for p in bad["problems"])
    shutil.copy(sample_path, tmp_path / "sample.tsv")
    (tmp_path / "recipe.yaml").write_text(
        "recipe: 1\nrelease:\n  name: rj\n  version: 0.1.0\nbuilds:\n  hard:\n    builder: subset\n"
        "    input: sample.tsv\n    src-col: es\n    src-lang: es\n    budget: 3\n",
        encoding="utf-8",
    )
    run = _json(
        invoke(["run", tmp_path / "recipe.yaml", "--work", tmp_path / "w", "--releases", tmp_path / "rr", "--json"])
    )
    assert run["release_exists"] and run["builds"][0]["before"] == "new" and run["builds"][0]["now"] == "done"


def test_breaker_progress_moves_inside_a_shard(tmp_path):
    """One shard of two seeds: the progress lines move step by step, not only when the shard ends."""
    from tests.support.scripted_roles import scripted_stack

    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\nThe dog barks.\nTax law is complicated.\n", encoding="utf-8")
    with scripted_stack() as stack:
        r = invoke(
            [
                "build",
                "mtbreaker",
                "--seeds",
                seeds,
                "--llm",
                stack["llm"],
                "--mt",
                stack["mt"],
                "--qe",
                stack["qe_a"],
                "--no-language-guard",
                "--steps",
                "4",
                "--out",
                tmp_path / "o",
            ],
            env={"MTGAUNTLET_PROGRESS_EVERY": "0"},
        )
    assert r.exit_code == 0, r
    counts = [float(m) for m in re.findall(r"build mtbreaker: ([\d.]+)/2 items", r.stderr)]
    assert counts[-1] == 2 and len([c for c in counts if 0 < c < 2]) >= 4, r.stderr
    assert counts == sorted(counts)


def test_score_progress_moves_inside_a_shard(tmp_path):
    """One 3000-row shard: the score's progress lines move per chunk of rows, not only when the shard ends; the
    scores are those of an unchunked run (every backend scores a row as it would alone)."""
    import pandas as pd

    from mtgauntlet.engines.scoring import CHUNK

    src = tmp_path / "c.tsv"
    n = 2 * CHUNK + 500
    src.write_text("src\n" + "".join(f"row {i} has {'word ' * (i % 17)}end\n" for i in range(n)), encoding="utf-8")
    r = invoke(
        [
            "score",
            "difficulty",
            "--input",
            src,
            "--src-lang",
            "en",
            "--estimator",
            "length",
            "--shard-size",
            n,
            "--out",
            tmp_path / "s.parquet",
        ],
        env={"MTGAUNTLET_PROGRESS_EVERY": "0"},
    )
    assert r.exit_code == 0, r
    counts = [float(m) for m in re.findall(rf"score difficulty \(local\): ([\d.]+)/{n} items", r.stderr)]
    assert [c for c in counts if 0 < c < n] == [CHUNK, 2 * CHUNK], r.stderr
    df = pd.read_parquet(tmp_path / "s.parquet")
    assert df["difficulty"].tolist() == [float(4 + i % 17) for i in range(n)]  # row, i, has, end + words


def test_eta_waits_for_evidence_and_ignores_the_warm_up():
    """The first item took 100 s (a model load), the next ones 1 s each: no ETA from one item, then ~1 s/item."""
    from mtgauntlet.core.progress import Eta

    eta = Eta(window=60.0, min_items=2, min_seconds=3.0)
    eta.add(0.0, 0)
    eta.add(100.0, 1)
    assert eta.left(1, 50) is None  # one item: no estimate (the old display said ~4900 s)
    t = 100.0
    for done in range(2, 11):
        t += 1.0
        eta.add(t, done)
    assert eta.left(10, 50) == pytest.approx(40.0)
    for done in range(11, 101):  # later the items take 2 s each: the window follows
        t += 2.0
        eta.add(t, done)
    assert eta.left(100, 110) == pytest.approx(20.0)
