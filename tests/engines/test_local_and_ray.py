"""The local and Ray engines: same scores on real FLORES sentences, resume after an interruption, and
`build subset` / `score difficulty` with `--engine ray` equal to the local engine. One Ray session (local
mode, this machine's 2 CPUs) serves the module."""

import pandas as pd
import pyarrow.parquet as pq
import pytest

from mtgauntlet.builders.base import iter_items
from mtgauntlet.builders.options.subset import SubsetOptions
from mtgauntlet.builders.subset import SubsetBuilder
from mtgauntlet.corpora.formats import read_flores
from mtgauntlet.engines import get_engine
from mtgauntlet.engines.scoring import ScoreTask
from mtgauntlet.errors import GauntletError
from mtgauntlet.options import options_of
from mtgauntlet.runner.build_runner import BuildRunner
from tests.support import tiny_models
from tests.support.cli import invoke


@pytest.fixture(scope="module")
def flores(shared_data):
    return shared_data / "flores200-devtest/flores200_devtest.tsv.gz"


@pytest.fixture(scope="module")
def texts(flores):
    return [r["src"] for r in read_flores(flores, src="en", tgt="es").rows]


@pytest.fixture(scope="module")
def ray_session():
    pytest.importorskip("ray")
    import os

    import ray

    from mtgauntlet.engines.ray_engine import start_ray

    os.environ.setdefault("MTGAUNTLET_RAY_CPUS", "2")
    start_ray()
    yield ray
    ray.shutdown()


class Interrupt:
    """An on_shard callback that presses Ctrl-C after ``after`` finished shards."""

    def __init__(self, after: int | None = None):
        self.after, self.seen = after, []

    def __call__(self, start, end):
        self.seen.append((start, end))
        if self.after is not None and len(self.seen) >= self.after:
            raise KeyboardInterrupt


def test_local_engine_resumes_after_interruption(tmp_path, texts):
    task = ScoreTask("difficulty", "rarity", "en", shard_size=250)
    eng = get_engine("local")
    with pytest.raises(KeyboardInterrupt):
        eng.score(task, {"src": texts}, tmp_path / "w", on_shard=Interrupt(after=2))
    again = Interrupt()
    resumed = eng.score(task, {"src": texts}, tmp_path / "w", on_shard=again)
    assert len(again.seen) == 3 and again.seen[0] == (500, 750)  # 1012 rows = 5 shards, 2 were done
    fresh = eng.score(task, {"src": texts}, tmp_path / "fresh")
    assert resumed.tolist() == fresh.tolist() and len(fresh) == len(texts)
    # another input in the same work directory: the old scores are discarded, not mixed in
    other = eng.score(task, {"src": texts[::-1]}, tmp_path / "w")
    assert other.tolist() == fresh.tolist()[::-1]


def test_ray_equals_local_and_resumes_after_interruption(tmp_path, texts, ray_session):
    task = ScoreTask("difficulty", "length", "en", shard_size=100)
    local = get_engine("local").score(task, {"src": texts}, tmp_path / "local")
    ray_eng = get_engine("ray")
    with pytest.raises(KeyboardInterrupt):
        ray_eng.score(task, {"src": texts}, tmp_path / "ray", on_shard=Interrupt(after=1))
    done = len(list((tmp_path / "ray" / "scores").glob("part-*.parquet")))
    assert 1 <= done < 11
    again = Interrupt()
    resumed = ray_eng.score(task, {"src": texts}, tmp_path / "ray", on_shard=again)
    assert len(again.seen) <= 11 - done  # finished shards were not scored again
    assert resumed.tolist() == local.tolist()
    assert not (tmp_path / "ray" / "input").exists()  # staged rows are removed once every shard is scored
    # a user error inside an actor stops the run with its one line (no actor restarts, no Ray traceback)
    with pytest.raises(GauntletError, match="rarity for 'ja' needs the package"):
        ray_eng.score(ScoreTask("difficulty", "rarity", "ja", shard_size=500), {"src": texts}, tmp_path / "ja")


def test_cli_score_and_build_subset_on_ray_equal_local(tmp_path, flores, ray_session):
    scored, selected, signatures = {}, {}, set()
    for engine in ("local", "ray"):
        out = tmp_path / f"{engine}.parquet"
        r = invoke(
            [
                "score",
                "difficulty",
                "--input",
                str(flores),
                "--format",
                "flores",
                "--estimator",
                "rarity",
                "--engine",
                engine,
                "--shard-size",
                "300",
                "--out",
                str(out),
            ]
        )
        assert r.exit_code == 0, r.output
        assert f"1012 rows scored with rarity on {engine} -> {out}" in r.output
        assert not (tmp_path / f"{engine}.parquet.work").exists()
        scored[engine] = pd.read_parquet(out)
        build = tmp_path / f"subset-{engine}"
        r = invoke(
            [
                "build",
                "subset",
                "--input",
                str(flores),
                "--format",
                "flores",
                "--estimator",
                "rarity",
                "--budget",
                "40",
                "--stratify",
                "domain",
                "--engine",
                engine,
                "--out",
                str(build),
            ]
        )
        assert r.exit_code == 0, r.output
        signatures.add(r.stdout.split("signature: ")[1].strip())
        selected[engine] = pq.read_table(
            build / "data" / "part-final.parquet", columns=["id", "text", "domain", "difficulty", "rank"]
        ).to_pandas()
    pd.testing.assert_frame_equal(scored["local"], scored["ray"])
    assert scored["ray"]["difficulty"].notna().all()
    pd.testing.assert_frame_equal(selected["local"], selected["ray"])  # same exact stratified top-B
    assert len(selected["ray"]) == 40 and len(signatures) == 1  # the engine does not change the build


@pytest.mark.slow
def test_build_subset_on_ray_with_a_torch_estimator_equals_local(tmp_path, texts, ray_session):
    model = tiny_models.classifier(tmp_path / "reg", 1)
    rows = [{"src": t, "src_lang": "en"} for t in texts[:300]]
    spec = f"hf:{model}#batch=8"
    records, builders = {}, {}
    for engine in ("local", "ray"):
        b = SubsetBuilder(
            options_of(SubsetOptions, estimator=spec, budget=20, engine=engine, src_lang="en"),
            work_dir=tmp_path / engine / "scores",
            shard_size=50,
        )
        BuildRunner(b, tmp_path / engine, shard_size=100).run(iter_items(rows))
        records[engine] = pq.read_table(tmp_path / engine / "data" / "part-final.parquet").to_pylist()
        builders[engine] = b
    local, ray = records["local"], records["ray"]
    assert [r["id"] for r in ray] == [r["id"] for r in local] and [r["rank"] for r in ray] == list(range(1, 21))
    assert [r["difficulty"] for r in ray] == pytest.approx([r["difficulty"] for r in local], abs=1e-5)
    assert (
        builders["ray"].placement() == builders["local"].placement() == {"device": "cpu", "dtype": "fp32", "batch": 8}
    )
    pids = builders["ray"].engine.last_pids
    assert 1 <= len(pids) <= 2  # 6 shards over at most 2 actors: each actor loaded the model once
    import json

    manifest = json.loads((tmp_path / "ray" / "build.json").read_text())
    assert manifest["config"]["engine"] == "ray" and manifest["config"]["placement"]["dtype"] == "fp32"
    assert "|dtype:fp32|" in manifest["signature"]
