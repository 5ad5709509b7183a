"""Small file helpers shared by builds, releases, recipes and the audit page: content hashes and JSON reading
with one-line errors."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_json(path: str | Path, what: str, missing: str = "missing") -> Any:
    """A JSON file; missing or unreadable is a one-line GauntletError naming the file."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GauntletError(f"{path}: {missing}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GauntletError(f"{path}: corrupt {what} ({str(exc).splitlines()[0]})") from None


def read_json_object(path: str | Path, what: str, missing: str = "missing") -> dict[str, Any]:
    """:func:`read_json` that must be a JSON object."""
    data = read_json(path, what, missing)
    if not isinstance(data, dict):
        raise GauntletError(f"{path}: not a {what} (expected a JSON object)")
    return data
