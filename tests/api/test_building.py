"""mg.build (issue #27): for every builder, the records built through the Python API equal those `gauntlet build`
writes (created_at aside); an in-memory input (DataFrame, list of dicts, datasets.Dataset) named like the file
gives the same records as the file; a default call is silent; errors are raised; out=None is a content-addressed
folder under the cache that the same call finds again."""

from __future__ import annotations

import pandas as pd
import pyarrow.parquet as pq
import pytest

import mtgauntlet as mg
from mtgauntlet.records import load_records_by_kind
from tests.support.cli import invoke
from tests.support.scripted_roles import scripted_stack, seeded_editor

SAMPLE_OPTS = {
    "src_col": "es",
    "ref_col": "en",
    "src_lang": "es",
    "tgt_lang": "en",
    "good_from": "reference",
    "phenomena": "num,del",
}


def _argv(options: dict) -> list[str]:
    """``gauntlet build`` arguments for API keywords (the CLI's long names)."""
    args = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        else:
            args += [flag, str(value)]
    return args


def _records(path) -> dict:
    """Every record kind of a build (and a bandit search's pull log), created_at left out."""
    out = dict(load_records_by_kind(path))
    if (path / "pulls").is_dir():
        out["pulls"] = pq.read_table(path / "pulls")
    return {kind: t.drop([c for c in ("created_at",) if c in t.column_names]) for kind, t in out.items()}


def _same_records(api_build, cli_out):
    a, b = _records(api_build.path), _records(cli_out)
    assert set(a) == set(b) and a
    for kind in a:
        assert a[kind].num_rows > 0 and a[kind].equals(b[kind]), kind


def _both_ways(tmp_path, method: str, **options):
    from mtgauntlet.builders.methods import methods

    built = mg.build(method, out=tmp_path / "api", **options)
    if "input" in options:  # the CLI's name of the input option (--seeds, --corpus)
        options[methods()[method].input] = options.pop("input")
    r = invoke(["build", method, *_argv(options), "--out", tmp_path / "cli"])
    assert r.exit_code == 0, r
    _same_records(built, tmp_path / "cli")
    return built


def test_subset_and_smaug_through_the_api_equal_the_cli(tmp_path, sample_path):
    built = _both_ways(
        tmp_path / "subset",
        "subset",
        input=sample_path,
        src_col="es",
        src_lang="es",
        budget=6,
        estimator="length",
        stratify="domain",
        domain_col="domain",
    )
    assert built.kinds() == ["selected_text"] and len(built.to_pandas()) == 6 and built.run.produced == 6
    built = _both_ways(tmp_path / "smaug", "smaug", input=sample_path, **SAMPLE_OPTS)
    assert built.summary["status"] == "complete" and built.signature.startswith("builder:smaug|")
    assert any(n.startswith("note: good = reference") for n in built.notes)


@pytest.fixture(scope="module")
def roles():
    with scripted_stack(seeded_editor()) as s:
        yield s


def test_mtbreaker_zeroshot_bandit_through_the_api_equal_the_cli(tmp_path, sample_path, roles):
    models = {"mt": roles["mt"], "qe": roles["qe_a"], "src_lang": "en", "tgt_lang": "es"}
    # the CLI's --seeds (and --corpus) through the method-neutral input= and through their own names
    built = _both_ways(
        tmp_path / "mtb", "mtbreaker", input=sample_path, column="en", limit=3, steps=2, llm=roles["llm"], **models
    )
    assert built.summary["counts"]["produced"] == built.run.produced > 0
    _both_ways(tmp_path / "zs", "zeroshot", seeds=sample_path, column="en", limit=3, llm=roles["llm"], **models)
    built = _both_ways(
        tmp_path / "bandit",
        "bandit",
        corpus=sample_path,
        text_column="en",
        topic_column="domain",
        min_words=5,
        budget=6,
        k=2,
        cap=3,
        **models,
    )
    assert built.summary["counts"]["pulls"] == 6 and len(built.summary["top_topics"]) == 2
    assert built.run is None and built.kinds() == ["topic_text"]


@pytest.mark.parametrize("shape", ["dataframe", "records", "dataset"])
def test_in_memory_input_gives_the_records_of_the_file(tmp_path, sample_path, shape):
    frame = pd.read_csv(sample_path, sep="\t", dtype=str, keep_default_na=False)
    if shape == "records":
        data = frame.to_dict("records")
    elif shape == "dataset":
        import datasets

        data = datasets.Dataset.from_pandas(frame, preserve_index=False)
    else:
        data = frame
    by_file = mg.build("smaug", input=sample_path, out=tmp_path / "file", **SAMPLE_OPTS)
    named = mg.build("smaug", input=data, input_name=sample_path.stem, out=tmp_path / "named", **SAMPLE_OPTS)
    _same_records(named, by_file.path)  # every column, source_dataset included
    unnamed = mg.build("smaug", input=data, out=tmp_path / "unnamed", **SAMPLE_OPTS).to_pandas()
    expected = by_file.to_pandas().drop(columns=["created_at", "source_dataset"])
    assert set(unnamed["source_dataset"]) == {shape}  # the default name of an in-memory input
    pd.testing.assert_frame_equal(unnamed.drop(columns=["created_at", "source_dataset"]), expected)


def test_default_call_is_silent_progress_is_shown_when_asked(tmp_path, sample_path, capfd):
    capfd.readouterr()
    built = mg.build("smaug", input=sample_path, out=tmp_path / "quiet", **SAMPLE_OPTS)
    assert capfd.readouterr() == ("", "") and built.run.produced > 0
    mg.build("subset", input=sample_path, src_col="es", src_lang="es", budget=4, out=tmp_path / "shown", progress=True)
    out, err = capfd.readouterr()
    assert out == "" and "subset" in err


def test_out_none_is_content_addressed_and_the_same_call_resumes(tmp_path, sample_path, monkeypatch):
    from mtgauntlet.api.inputs import cache_dir

    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache"))
    opts = {"src_col": "es", "src_lang": "es", "budget": 5}
    first = mg.build("subset", input=sample_path, **opts)
    assert first.path.parent == cache_dir() / "builds" and first.path.name.startswith("subset-")
    assert len(first.path.name) == len("subset-") + 16
    again = mg.build("subset", input=sample_path, concurrency=2, **opts)  # how fast is no part of what is built
    assert again.path == first.path and again.run.resumed_shards >= 1
    assert again.to_arrow().drop(["created_at"]).equals(first.to_arrow().drop(["created_at"]))
    other = mg.build("subset", input=sample_path, **{**opts, "budget": 4})
    copy = tmp_path / "renamed.tsv"
    copy.write_bytes(sample_path.read_bytes())
    renamed = mg.build("subset", input=copy, **opts)  # another name: another source_dataset, another folder
    assert len({first.path, other.path, renamed.path}) == 3


def test_errors_are_raised_not_printed(tmp_path, sample_path, capfd, roles, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache"))  # no answer cached by another test
    capfd.readouterr()
    with pytest.raises(mg.UsageError, match=r"^--budget: must be >= 1"):
        mg.build("subset", input=sample_path, src_lang="es", budget=0, out=tmp_path / "a")
    with pytest.raises(mg.UsageError, match=r"^build subset: unknown option 'budgett'"):
        mg.build("subset", input=sample_path, src_lang="es", budgett=3, out=tmp_path / "a")
    with pytest.raises(mg.UsageError, match=r"^--format: 'xls' is not one of"):
        mg.build("subset", input=sample_path, src_lang="es", format="xls", out=tmp_path / "a")
    with pytest.raises(mg.UsageError, match=r"^give --topics FILE"):
        mg.build("bandit", input=sample_path, text_column="en", out=tmp_path / "a")
    with pytest.raises(mg.InputError, match=r"sample_es_en.tsv.*'nope'"):
        mg.build("subset", input=sample_path, src_col="nope", src_lang="es", out=tmp_path / "a")
    assert not (tmp_path / "a").exists()
    # a spent budget: BudgetSpent (exit 3 on the CLI), and the same call resumes
    opts = {"column": "en", "limit": 2, "steps": 2, "llm": roles["llm"], "mt": roles["mt"], "qe": roles["qe_a"]}
    with pytest.raises(mg.BudgetSpent):
        mg.build("mtbreaker", input=sample_path, out=tmp_path / "paid", max_requests=1, **opts)
    assert capfd.readouterr() == ("", "")
    r = invoke(
        ["build", "mtbreaker", "--seeds", sample_path, *_argv(opts), "--out", tmp_path / "paid", "--max-requests", "1"]
    )
    assert r.exit_code == 3 and r.stderr.strip().splitlines()[-1].startswith("error: "), r
    done = mg.build("mtbreaker", input=sample_path, out=tmp_path / "paid", **opts)
    assert done.summary["status"] == "complete"


def test_dry_run_returns_the_plan_and_writes_nothing(tmp_path, sample_path, roles):
    plan = mg.build(
        "bandit",
        input=sample_path,
        text_column="en",
        topic_column="domain",
        min_words=5,
        budget=6,
        mt=roles["mt"],
        qe=roles["qe_a"],
        out=tmp_path / "b",
        dry_run=True,
    )
    assert plan.plan is not None and not (tmp_path / "b").exists()
    r = invoke(
        [
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
            "6",
            "--mt",
            roles["mt"],
            "--qe",
            roles["qe_a"],
            "--out",
            tmp_path / "b",
            "--dry-run",
        ]
    )
    assert r.exit_code == 0 and r.stdout.strip() == plan.describe().strip(), r
