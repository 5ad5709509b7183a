"""sacrebleu-style signature strings: ``key:value|key:value|...|version:X``.

A signature names everything that makes a result reproducible (builder, languages, sizes, seed,
model specs, package version). Keys keep a fixed order given by the caller; ``version`` is last.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mtgauntlet import __version__


def _fmt(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return "+".join(_fmt(v) for v in value)
    return str(value).replace("|", "/").replace(" ", "_")


def make_signature(fields: Mapping[str, Any], version: str = __version__) -> str:
    """Return ``k1:v1|k2:v2|...|version:X`` with the fields in the given order."""
    parts = [f"{k}:{_fmt(v)}" for k, v in fields.items() if k != "version"]
    parts.append(f"version:{version}")
    return "|".join(parts)


def parse_signature(signature: str) -> dict[str, str]:
    """Inverse of :func:`make_signature` (values come back as strings)."""
    out: dict[str, str] = {}
    for part in signature.split("|"):
        key, sep, value = part.partition(":")
        if not sep:
            raise ValueError(f"malformed signature part {part!r} in {signature!r}")
        out[key] = value
    return out
