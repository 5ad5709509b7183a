"""examples/api_tour.py (issue #27) runs end to end as a script, with the public API only: build -> validate ->
release -> verify -> query -> audit -> score, silently (its stderr is empty: every line is its own print)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[2]
TOUR = REPO / "examples" / "api_tour.py"


def test_the_tour_uses_only_the_public_api():
    code = TOUR.read_text(encoding="utf-8")
    assert re.findall(r"^(?:import|from) (\S+)", code, re.M) == ["sys", "importlib", "pathlib", "pandas", "mtgauntlet"]
    assert "mtgauntlet." not in code.replace('resources.files("mtgauntlet")', "")


def test_the_tour_runs_end_to_end(tmp_path):
    out = tmp_path / "tour"
    env = {**os.environ, "PYTHONPATH": str(REPO), "MTGAUNTLET_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, str(TOUR), str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0 and r.stderr == "", r.stderr[-3000:]
    release = out / "releases" / "name=tour-es-en" / "version=0.1.0"
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["license"]["license"] == "apache-2.0"  # the shipped sample, recognised by its sha256
    assert all(manifest["validation"][k]["passed"] for k in ("smaug_pair", "selected_text"))
    assert f"{release} {manifest['total_rows']} records, licence apache-2.0" in r.stdout
    assert "verified: True" in r.stdout and (out / "audit.html").read_text(encoding="utf-8").startswith("<!")
    counts = dict(re.findall(r"^\s*(num|del)\s+(\d+)$", r.stdout, re.M))
    smaug_rows = sum(
        pq.read_metadata(release / f["path"]).num_rows for f in manifest["files"] if f.get("kind") == "smaug_pair"
    )
    assert set(counts) == {"num", "del"} and sum(map(int, counts.values())) == smaug_rows
