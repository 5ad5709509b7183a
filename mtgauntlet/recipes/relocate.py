"""Find a stored recipe's input files on this machine (for `gauntlet reproduce`).

A resolved recipe keeps its inputs as the recipe wrote them (relative to the recipe's folder) and records
that folder as ``origin`` (relative to the directory `gauntlet run` ran in), so a release reproduces from
that same directory as `run` resolved it. Elsewhere, ``--inputs DIR`` is searched by the recorded path, by
file name, and at last by content: any file under DIR with the pinned sha256 (a renamed or moved copy;
the rebuild reads it through a link with the recorded file name, since records name their source dataset
after it). An input found only with other bytes is used and noted (the comparison then shows what it changed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError
from mtgauntlet.recipes.spec import INPUT_OPTIONS, resolve_in, sha256_file


class _Digests:
    """sha256 of files, each hashed once."""

    def __init__(self):
        self.cache: dict[Path, str] = {}

    def __call__(self, path: Path) -> str:
        key = path.resolve()
        if key not in self.cache:
            self.cache[key] = sha256_file(key)
        return self.cache[key]

    def find(self, folder: Path, digest: str) -> Path | None:
        """A file under ``folder`` whose sha256 is ``digest`` (hidden folders skipped)."""
        for p in sorted(folder.rglob("*")):
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts[:-1]):
                if self(p) == digest:
                    return p
        return None


def _candidates(value: str, origin: str | None, inputs: Path | None) -> list[Path]:
    paths = [resolve_in(Path(origin), value)] if origin is not None else []
    paths.append(Path(value).expanduser())  # releases made before `origin` was recorded: the working directory
    if inputs is not None:
        paths += [inputs / value, inputs / Path(value).name]
    return paths


def _named(path: Path, name: str, folder: Path) -> Path:
    """``path``, or a link to it called ``name`` (the input's recorded file name) in ``folder``."""
    if path.name == name:
        return path
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / name
    link.unlink(missing_ok=True)
    link.symlink_to(path)
    return link


def _stored_builds(data: Any, file: str) -> dict[str, dict]:
    builds = data.get("builds") if isinstance(data, dict) else None
    if not isinstance(builds, dict) or not all(isinstance(b, dict) for b in builds.values()):
        raise GauntletError(f"{file}: not a recipe (no 'builds' mapping of build entries)")
    return builds


def relocate_inputs(data: Any, file: str, inputs: Path | None, links: Path) -> list[str]:
    """Point each build's input files (in the stored recipe ``data``, read from ``file``) at this machine's
    copies (a copy under another name through a link in ``links``); returns notes on inputs whose bytes
    changed (their pins are dropped so the rebuild can run)."""
    if inputs is not None and not inputs.is_dir():
        raise GauntletError(f"--inputs {inputs}: no such folder")
    origin = data.get("origin") if isinstance(data, dict) and isinstance(data.get("origin"), str) else None
    digests, notes = _Digests(), []
    for bid, build in _stored_builds(data, file).items():
        pins = build["sha256"] if isinstance(build.get("sha256"), dict) else {}
        for key in INPUT_OPTIONS:
            value = build.get(key)
            if not isinstance(value, str) or value.startswith("hf:"):
                continue
            found = [c for c in _candidates(value, origin, inputs) if c.is_file()]
            want = pins.get(key)
            path = next((c for c in found if want and digests(c) == want), None)
            if path is None and want and inputs is not None:
                path = digests.find(inputs, want)
            if path is None and found:
                path = found[0]
            if path is None:
                raise GauntletError(
                    f"input {value} of build {bid} is not on this machine; pass --inputs DIR "
                    f"holding {Path(value).name} (or a copy with the same bytes)"
                )
            build[key] = str(_named(path.resolve(), Path(value).name, links / bid / key))
            digest = digests(path)
            if want and want != digest:
                notes.append(f"{bid}: input {path.name} changed (sha256 {want[:12]} -> {digest[:12]})")
                pins.pop(key)
    return notes
