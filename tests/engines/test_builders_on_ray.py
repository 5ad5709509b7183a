"""Issue #35 (5): every builder's shards run through one engine interface (``map_shards``). `build smaug --engine
ray` gives the records of the local engine (tables, ids, signatures; build.json apart from its times), also when
the driver is SIGKILLed mid-build and the same command is run again; what runs locally only is refused in one
line. Real SMAUG builds (spaCy) on the FLORES-like parallel samples; Ray in local mode on this machine's CPUs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

import mtgauntlet as mg
from mtgauntlet.builders.base import Builder, ItemResult, iter_items
from mtgauntlet.errors import GauntletError, UsageError
from mtgauntlet.runner.build_runner import BuildRunner
from tests.engines.test_local_and_ray import ray_session  # noqa: F401 (the fixture: one local Ray session for this module)
from tests.engines.test_ray_watchdog import _in_session, _running
from tests.support.cli import REPO, invoke

SMAUG = ["--src-col", "es", "--ref-col", "en", "--src-lang", "es", "--tgt-lang", "en", "--good-from", "reference"]
# the build.json fields two builds of the same records may differ in: their times, and the versions of the libraries
# the building process had imported (torch, spacy, ...: a pytest process that ran other tests has more)
RUNTIME = ("created_at", "finished_at", "versions")


def _records(out):
    """The build's records without ``created_at`` (each build stamps its own start), and the shard files' names."""
    files = sorted((out / "data").glob("part-*.parquet"))
    table = pq.read_table(files).drop(["created_at"])
    return table, [f.name for f in files]


def _manifest(out):
    manifest = json.loads((out / "build.json").read_text(encoding="utf-8"))
    return {k: v for k, v in manifest.items() if k not in RUNTIME}


def _ray_env():
    return {**os.environ, "PYTHONPATH": str(REPO), "MTGAUNTLET_RAY_CPUS": "2"}


@pytest.mark.slow  # ~65 s here: two Ray clusters and three builds
def test_build_smaug_on_ray_resumes_after_a_sigkill_and_equals_local(tmp_path, sample_path):
    args = ["build", "smaug", "--input", str(sample_path), *SMAUG, "--shard-size", "1"]
    local = tmp_path / "local"
    r = invoke([*args, "--out", local])
    assert r.exit_code == 0, r.output
    out = tmp_path / "ray"
    cmd = [sys.executable, "-m", "mtgauntlet.cli.main", *map(str, args), "--engine", "ray", "--out", str(out)]
    proc = subprocess.Popen(cmd, env=_ray_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 180
    while not list((out / "data").glob("part-*.parquet")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)  # the driver, mid-build: its actors end with it (engines/ray_watchdog.py)
    proc.communicate(timeout=60)
    kept = len(list((out / "data").glob("part-*.parquet")))
    left = _in_session(proc.pid)  # what the driver started (its Ray cluster) ends soon after it
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = _running(_in_session(proc.pid))
    assert not left, left
    assert 1 <= kept < 42, kept  # killed after its first shard and before its last (42 rows, one per shard)
    again = subprocess.run(cmd, env=_ray_env(), capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 0, again.stderr
    assert f"resumed {kept} finished shard(s)" in again.stdout
    (ray_table, ray_files), (local_table, local_files) = _records(out), _records(local)
    assert ray_files == local_files and ray_table.num_rows > 100
    assert ray_table.equals(local_table)  # every column of every record, ids and signatures included
    assert _manifest(out) == _manifest(local)


@pytest.mark.usefixtures("ray_session")
def test_api_build_smaug_on_ray_equals_local(tmp_path, sample_path):
    options = {
        "src_col": "es",
        "ref_col": "en",
        "src_lang": "es",
        "tgt_lang": "en",
        "phenomena": "ne,num,ins",
        "good_from": "reference",
        "shard_size": 7,
        "seed": 5,
    }
    local = mg.build("smaug", input=str(sample_path), out=tmp_path / "local", **options)
    ray = mg.build("smaug", input=str(sample_path), out=tmp_path / "ray", engine="ray", actors=2, **options)
    assert _records(tmp_path / "ray") == _records(tmp_path / "local")
    assert ray.summary["signature"] == local.summary["signature"]
    assert _manifest(tmp_path / "ray") == _manifest(tmp_path / "local")
    # the engine is no part of what is built: the same call without out= finds the same folder
    from mtgauntlet.api.building import default_out

    assert default_out("smaug", {**options, "engine": "ray", "input": str(sample_path)}) == default_out(
        "smaug", {**options, "input": str(sample_path)}
    )


class FailsAtItem(Builder):
    """A builder whose third item is a user error (as a bad model answer would be)."""

    name, version, kind = "fails_at_item", "1", "selected_text"

    def __init__(self, *, bad: int):
        self.bad = bad

    def signature_fields(self):
        return {"bad": self.bad}

    def config(self):
        return {"bad": self.bad}

    def model_specs(self):
        return {}

    def process(self, item, rng):
        if item.index == self.bad:
            raise GauntletError(f"item {item.index}: cannot be built")
        return ItemResult(
            records=[
                {
                    "text": item.data["src"],
                    "src_lang": "en",
                    "source_dataset": "t",
                    "source_id": str(item.index),
                    "estimator": "rng",
                    "difficulty": rng.random(),
                }
            ]
        )


class Remembers(FailsAtItem):
    stateful = True


@pytest.mark.usefixtures("ray_session")
def test_an_actor_error_is_one_line_and_the_shards_before_it_are_kept(tmp_path):
    from mtgauntlet.engines import get_engine

    items = iter_items({"src": f"text {i}"} for i in range(6))
    engine = get_engine("ray", actors=2)
    with pytest.raises(GauntletError, match=r"^item 3: cannot be built$"):
        BuildRunner(FailsAtItem(bad=3), tmp_path / "ray", shard_size=2, engine=engine).run(items)
    assert sorted(p.name for p in (tmp_path / "ray" / "data").glob("*.parquet")) == ["part-00000000-00000002.parquet"]
    # the per-item rngs come from the runner: the same numbers on either engine
    BuildRunner(FailsAtItem(bad=99), tmp_path / "ray", shard_size=2, engine=engine, overwrite=True).run(items)
    BuildRunner(FailsAtItem(bad=99), tmp_path / "local", shard_size=2).run(items)
    assert _records(tmp_path / "ray") == _records(tmp_path / "local")
    assert 1 <= len(engine.last_pids) <= 2


def test_what_runs_locally_only_is_refused_in_one_line(tmp_path):
    from mtgauntlet.engines import get_engine

    with pytest.raises(GauntletError, match="carries state from item to item and runs in this process only"):
        BuildRunner(Remembers(bad=1), tmp_path, engine=get_engine("ray"))
    with pytest.raises(UsageError, match="build mtbreaker: no engine option: its steps are sequential per item"):
        mg.build("mtbreaker", input=["a"], engine="ray")
    r = invoke(["build", "zeroshot", "--seeds", "x.tsv", "--engine", "ray", "--out", tmp_path / "z"])
    assert (
        r.exit_code == 2
        and "No such option: --engine; this command runs in this process: its steps are sequential per item" in r.output
    ), r.output
    r = invoke(["build", "smaug", "--input", "x.tsv", *SMAUG, "--engine", "spark", "--out", tmp_path / "x"])
    assert r.exit_code == 2 and "Invalid value for '--engine': unknown engine 'spark' (one of local, ray)" in r.output


@pytest.mark.slow  # ~32 s here: a build, two validations with embeddings, Ray actors loading the NLI model
@pytest.mark.usefixtures("ray_session")
def test_validate_per_record_checks_on_ray_give_the_same_report(tmp_path, sample_path, monkeypatch):
    """NLI (a tiny local model), grammar (Harper) and the record checks of a real SMAUG build, on both engines, in
    shards of 40 records (4 shards over 2 actors)."""
    from mtgauntlet.validators import record_engine
    from tests.support import tiny_models

    monkeypatch.setattr(record_engine, "SHARD_SIZE", 40)

    nli = tiny_models.classifier(tmp_path / "nli", 3, {0: "entailment", 1: "neutral", 2: "contradiction"})
    r = invoke(["build", "smaug", "--input", str(sample_path), *SMAUG, "--out", tmp_path / "b"])
    assert r.exit_code == 0, r.output
    rules = tmp_path / "rules.yaml"
    rules.write_text("version: 1\noptions:\n  grammar: true\nthresholds:\n  grammar.error_rate: {max: 50}\n")
    reports = {}
    for engine in ("local", "ray"):
        r = invoke(
            [
                "validate",
                tmp_path / "b",
                "--rules",
                rules,
                "--nli",
                f"hf:{nli}",
                "--engine",
                engine,
                "--actors",
                "2",
                "--json",
            ]
        )
        assert r.exit_code in (0, 1), r.output
        reports[engine] = json.loads(r.stdout)
    metrics = reports["ray"]["kinds"]["smaug_pair"]["metrics"]
    assert "smaug.nli.bad_contradicts_ref_rate" in metrics and "grammar.error_rate" in metrics
    assert metrics["grammar.unchecked"] == 0 and metrics["n"] > 100
    assert reports["ray"] == reports["local"]
