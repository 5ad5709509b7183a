"""The contributing walkthroughs (docs/contributing.md), followed as written in a temporary copy of the repository:
a section's code blocks are read from the guide, the new module is written, the registration line is added after
its anchor line, and the copy's own tests run there (the registry-wide ones included)."""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.cli import REPO

GUIDE = REPO / "docs" / "contributing.md"
BLOCK = re.compile(r'```python title="([^"]+)"\n(.*?)```', re.S)
COPIED = ("mtgauntlet", "tests", "docs", "examples", "pyproject.toml", "mkdocs.yml", "README.md")


def section(heading: str) -> str:
    """The text of the guide's ``## heading`` section."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def blocks(heading: str) -> list[tuple[str, str]]:
    """(title, code) of the section's titled Python blocks, in order."""
    return BLOCK.findall(section(heading))


def repo_copy(tmp_path: Path) -> Path:
    """A copy of the repository's package, tests and docs under ``tmp_path``, as a contributor's checkout is: with its
    ``__pycache__`` folders (bytecode and numba's compiled kernels, each checked against its source's time and size,
    so what the walkthrough changes is compiled again), without pytest's cache."""
    root = tmp_path / "repo"
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns(".pytest_cache"))
        elif source.exists():
            root.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, root / name)
    return root


def follow(root: Path, heading: str, anchor: str) -> list[str]:
    """Apply the section's two blocks to the copy ``root``: the first is a new file (its title is its path), the
    second a line added after the line of the second block's file that starts with ``anchor``. The files of the
    package that differ from the checkout's afterwards."""
    (module_path, module), (registry_path, line) = blocks(heading)
    target = root / module_path
    assert not target.exists(), module_path
    target.write_text(module, encoding="utf-8")
    registry = root / registry_path
    text = registry.read_text(encoding="utf-8")
    after = next(s for s in text.splitlines(keepends=True) if s.strip().startswith(anchor))
    registry.write_text(text.replace(after, after + line, 1), encoding="utf-8")
    return changed_files(REPO / "mtgauntlet", root / "mtgauntlet")


def changed_files(original: Path, copy: Path) -> list[str]:
    def walk(cmp: filecmp.dircmp, prefix: str) -> list[str]:
        out = [prefix + n for n in cmp.left_only + cmp.right_only + cmp.diff_files if n != "__pycache__"]
        for name, sub in cmp.subdirs.items():
            if name != "__pycache__":
                out += walk(sub, f"{prefix}{name}/")
        return out

    return sorted(walk(filecmp.dircmp(original, copy, ignore=["__pycache__"]), ""))


def environment(root: Path, tmp_path: Path) -> dict[str, str]:
    """What a run in the copy sees: the copy first on the path, offline, its own cache and home."""
    from tests.conftest import SHARED_DATA

    return {
        "PYTHONPATH": str(root),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "MTGAUNTLET_CACHE_DIR": str(tmp_path / "cache"),
        "MTGAUNTLET_SHARED_DATA": str(SHARED_DATA),
        "HOME": str(tmp_path),
    }


def run_tests(root: Path, tmp_path: Path, *args: str, timeout: int = 1200) -> subprocess.CompletedProcess:
    """``pytest ARGS`` in the copy (verbose: one line per test with its outcome)."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
        env=environment(root, tmp_path),
        cwd=root,
        timeout=timeout,
    )


def passed(run: subprocess.CompletedProcess, test_id: str) -> bool:
    """Whether the verbose run's line of ``test_id`` (``path::name[param]``) says PASSED."""
    return any(line.startswith(test_id + " PASSED") for line in run.stdout.splitlines())
