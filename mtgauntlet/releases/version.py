"""Semantic versions of releases (MAJOR.MINOR.PATCH)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mtgauntlet.errors import GauntletError

_SEMVER = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> "Version":
        m = _SEMVER.fullmatch(text) if isinstance(text, str) else None
        if not m:
            raise GauntletError(f"invalid version {text!r}: expected MAJOR.MINOR.PATCH, e.g. 0.1.0")
        return cls(int(m.group(1)), int(m.group(2)), int(m.group(3)))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"

    @property
    def tag(self) -> str:
        return f"v{self}"


def check_name(name: str) -> str:
    """A release name: letters, digits, '.', '_' and '-', starting with a letter or digit; nothing else,
    not even a trailing newline (names reach paths, SQL and the Hub)."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name) or ".." in name:
        raise GauntletError(f"invalid release name {name!r}: letters, digits, '.', '_' and '-' only")
    return name
