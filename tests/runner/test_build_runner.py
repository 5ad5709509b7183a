import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pyarrow.parquet as pq
import pytest

from mtgauntlet.atomic import atomic_dir, atomic_path, write_text_atomic
from mtgauntlet.builders.base import Builder, ItemResult, iter_items
from mtgauntlet.errors import BuildStateError
from mtgauntlet.records import load_records
from mtgauntlet.runner import BuildRunner
from mtgauntlet.signature import make_signature, parse_signature

# A builder whose output depends on the per-item RNG: resume must reproduce it exactly.
BUILDER_SRC = textwrap.dedent("""
    import sys, time
    from mtgauntlet.builders.base import Builder, ItemResult, iter_items
    from mtgauntlet.runner.build_runner import BuildRunner

    class SlowBuilder(Builder):
        name, version, kind = "slowtest", "1", "selected_text"
        def __init__(self, delay): self.delay = delay
        def signature_fields(self): return {"src": "en"}
        def config(self): return {"delay": "any"}
        def model_specs(self): return {}
        def process(self, item, rng):
            time.sleep(self.delay)
            if item.index % 7 == 3:
                return ItemResult(rejected=["too_short"])
            return ItemResult(records=[{"text": item.data["text"], "estimator": "rng",
                                        "difficulty": rng.random(), "src_lang": "en"}])

    if __name__ == "__main__":
        out, n, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
        items = iter_items({"text": f"sentence {i}"} for i in range(n))
        s = BuildRunner(SlowBuilder(delay), out, seed=7, shard_size=10, progress=False).run(items)
        print(s.produced)
""")


@pytest.fixture()
def builder_script(tmp_path):
    p = tmp_path / "slow_builder.py"
    p.write_text(BUILDER_SRC)
    return p


def _run(script, out, n, delay):
    return subprocess.run(
        [sys.executable, str(script), str(out), str(n), str(delay)], capture_output=True, text=True, check=True
    )


def test_resume_after_sigkill_equals_uninterrupted(tmp_path, builder_script):
    n = 200
    full = tmp_path / "full"
    _run(builder_script, full, n, 0.0)
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, str(builder_script), str(killed), str(n), "0.01"])
    deadline = time.time() + 60
    while time.time() < deadline and len(list((killed / "data").glob("part-*.parquet"))) < 4:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = {p.name: p.stat().st_mtime_ns for p in (killed / "data").glob("part-*.parquet")}
    assert 4 <= len(done_before) < 20, "the kill must land mid-build"
    assert json.loads((killed / "build.json").read_text())["status"] == "in_progress"
    _run(builder_script, killed, n, 0.0)
    after = {p.name: p.stat().st_mtime_ns for p in (killed / "data").glob("part-*.parquet")}
    assert all(after[name] == mtime for name, mtime in done_before.items()), "finished shards are untouched"
    assert not list((killed / "data").glob(".*.tmp")), "no temp files left behind"
    a, b = load_records(full).to_pandas(), load_records(killed).to_pandas()
    assert len(b) == len(a) == n - sum(1 for i in range(n) if i % 7 == 3)
    assert b["id"].is_unique
    assert (
        a.sort_values("id")[["id", "text", "difficulty"]].values.tolist()
        == b.sort_values("id")[["id", "text", "difficulty"]].values.tolist()
    )
    m = json.loads((killed / "build.json").read_text())
    assert m["status"] == "complete" and m["counts"]["rejected"] == {"too_short": n - len(a)}
    assert m["signature"] == json.loads((full / "build.json").read_text())["signature"]


class _Builder(Builder):
    name, version, kind = "t", "1", "selected_text"

    def __init__(self, fail_at=None):
        self.fail_at = fail_at

    def signature_fields(self):
        return {"src": "en", "estimator": "x"}

    def config(self):
        return {}

    def model_specs(self):
        return {}

    def process(self, item, rng):
        if item.index == self.fail_at:
            raise RuntimeError("boom")
        return ItemResult(
            records=[{"text": item.data["text"], "estimator": "x", "difficulty": rng.random(), "src_lang": "en"}]
        )


def _items(n):
    return iter_items({"text": f"t{i}"} for i in range(n))


def test_failure_keeps_finished_shards_and_leaves_no_partial(tmp_path):
    with pytest.raises(RuntimeError):
        BuildRunner(_Builder(fail_at=25), tmp_path, shard_size=10, progress=False).run(_items(40))
    names = sorted(p.name for p in (tmp_path / "data").iterdir())
    assert names == ["part-00000000-00000010.parquet", "part-00000010-00000020.parquet"]
    failed = json.loads((tmp_path / "build.json").read_text())
    assert failed["status"] == "failed" and failed["error"] == "RuntimeError: boom"  # not left "in_progress"
    s = BuildRunner(_Builder(), tmp_path, shard_size=10, progress=False).run(_items(40))
    assert s.produced == 40 and s.resumed_shards == 2
    done = json.loads((tmp_path / "build.json").read_text())
    assert done["status"] == "complete" and "error" not in done


def test_signature_determinism_and_mismatch(tmp_path):
    s1 = BuildRunner(_Builder(), tmp_path / "a", seed=3, progress=False).run(_items(5))
    s2 = BuildRunner(_Builder(), tmp_path / "b", seed=3, progress=False).run(_items(5))
    assert s1.signature == s2.signature
    fields = parse_signature(s1.signature)
    assert fields["builder"] == "t" and fields["n"] == "5" and fields["seed"] == "3"
    assert list(fields)[-1] == "version"
    t1 = load_records(tmp_path / "a").to_pandas()
    t2 = load_records(tmp_path / "b").to_pandas()
    assert t1.drop(columns="created_at").equals(t2.drop(columns="created_at"))
    meta = pq.read_schema(next((tmp_path / "a" / "data").glob("*.parquet"))).metadata
    assert meta[b"mtgauntlet.signature"].decode() == s1.signature
    with pytest.raises(BuildStateError, match="different build"):
        BuildRunner(_Builder(), tmp_path / "a", seed=4, progress=False).run(_items(5))
    s3 = BuildRunner(_Builder(), tmp_path / "a", seed=4, progress=False, overwrite=True).run(_items(5))
    assert parse_signature(s3.signature)["seed"] == "4"
    assert make_signature({"a": 1, "b": [1, 2], "c": None}, version="9") == "a:1|b:1+2|c:none|version:9"


def test_atomic_writes(tmp_path):
    target = tmp_path / "f.txt"
    write_text_atomic(target, "old")
    with pytest.raises(ValueError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise ValueError("crash")
    assert target.read_text() == "old" and list(tmp_path.iterdir()) == [target]
    d = tmp_path / "rel"
    with pytest.raises(ValueError):
        with atomic_dir(d) as tmp:
            (tmp / "x").write_text("1")
            raise ValueError("crash")
    assert not d.exists() and list(tmp_path.iterdir()) == [target]
    with atomic_dir(d) as tmp:
        (tmp / "x").write_text("1")
    assert (d / "x").read_text() == "1"
    with pytest.raises(FileExistsError):
        with atomic_dir(d):
            pass


def test_progress_lines_when_not_a_terminal(tmp_path, capsys):
    BuildRunner(_Builder(), tmp_path / "a", shard_size=2, progress=False).run(_items(5))
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("build t:")]
    assert lines and lines[-1].startswith("build t: 5/5 items")
    # resumed runs count what was already done
    with pytest.raises(RuntimeError):
        BuildRunner(_Builder(fail_at=3), tmp_path / "b", shard_size=2, progress=False).run(_items(5))
    capsys.readouterr()
    BuildRunner(_Builder(), tmp_path / "b", shard_size=2, progress=False).run(_items(5))
    assert "build t: 5/5 items" in capsys.readouterr().err
