"""A wheel built from the project is a complete package: every subpackage, the shipped models and sample, and the
example recipes (installed under <prefix>/share/mtgauntlet/examples), so that `python -m mtgauntlet.demo` runs
after `pip install mtgauntlet-*.whl` outside a checkout (issue #27.3)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from tests.support.cli import REPO


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The project's wheel, built from a copy of the checkout (no network, no build isolation: the checkout gets
    no build/ or egg-info) and installed into a fresh prefix."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    top = {
        ".venv",
        ".git",
        "build",
        "site",
        "demo-output",
        "releases",
        "gauntlet-work",
        ".mypy_cache",  # at the root
        ".ruff_cache",
    }

    def ignore(folder, names):
        return {
            n
            for n in names
            if n == "__pycache__" or n.endswith(".egg-info") or (os.path.samefile(folder, REPO) and n in top)
        }

    shutil.copytree(REPO, src, ignore=ignore)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # pip must not see the checkout's package
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp), str(src)],
        check=True,
        capture_output=True,
        timeout=600,
        cwd=tmp,
        env=env,
    )
    wheel = next(tmp.glob("mtgauntlet-*.whl"))
    prefix = tmp / "prefix"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--ignore-installed",
            "--prefix",
            str(prefix),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=600,
        cwd=tmp,
        env=env,
    )
    site = next(prefix.glob("lib/python*/site-packages"))
    return wheel, prefix, site


def test_wheel_holds_every_package_the_models_and_the_examples(installed):
    wheel, prefix, site = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = {
        str(p.parent.relative_to(REPO)) for p in (REPO / "mtgauntlet").rglob("*.py") if "__pycache__" not in p.parts
    }
    missing = sorted(p for p in packages if f"{p}/__init__.py" not in names)
    assert not missing, f"subpackages missing from the wheel: {missing}"
    for data in (
        "mtgauntlet/data/sample_es_en.tsv",
        "mtgauntlet/data/models/qe.npz",
        "mtgauntlet/data/models/learned_difficulty.npz",
    ):
        assert data in names, data
    examples = sorted(p.name for p in (REPO / "examples").glob("*.yaml"))
    assert sorted(p.name for p in (prefix / "share" / "mtgauntlet" / "examples").glob("*.yaml")) == examples


def test_installed_package_finds_its_examples_outside_a_checkout(installed, tmp_path):
    _, prefix, site = installed
    env = {**os.environ, "PYTHONPATH": str(site)}
    code = "import mtgauntlet, mtgauntlet.demo as d; print(mtgauntlet.__file__); print(d.examples_dir())"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=True
    ).stdout.splitlines()
    assert out[0].startswith(str(site)) and out[1] == str(prefix / "share" / "mtgauntlet" / "examples")


@pytest.mark.slow
def test_demo_runs_from_the_installed_wheel(installed, tmp_path):
    _, _, site = installed
    env = {**os.environ, "PYTHONPATH": str(site), "MTGAUNTLET_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "mtgauntlet.demo"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (tmp_path / "demo-output" / "releases" / "name=demo-es-en" / "version=0.1.0" / "manifest.json").exists()
