"""Semantic versions of releases: ``MAJOR.MINOR.PATCH`` with an optional pre-release (``1.0.0-rc.1``).

Every number (and every numeric pre-release identifier) has at most 9 digits, so a version fits any
integer column, tag or path; the pre-release is at most 64 characters; build metadata (``+...``) is
refused, since semver ignores it when ordering and two releases would then be neither older nor newer
than each other. Versions order by semver precedence (§11): numbers numerically, a pre-release before
its release, pre-release identifiers one by one (numeric < alphanumeric, numbers numerically, text in
ASCII order, a shorter list first when all else is equal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mtgauntlet.errors import GauntletError

MAX_DIGITS = 9
_NUM = rf"(?:0|[1-9][0-9]{{0,{MAX_DIGITS - 1}}})"
_PRE_ID = rf"(?:{_NUM}|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
_SEMVER = re.compile(rf"({_NUM})\.({_NUM})\.({_NUM})(?:-({_PRE_ID}(?:\.{_PRE_ID})*))?")
MAX_PRERELEASE = 64
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


@dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    prerelease: str = ""

    @classmethod
    def parse(cls, text: str) -> Version:
        m = _SEMVER.fullmatch(text) if isinstance(text, str) else None
        if not m or len(m.group(4) or "") > MAX_PRERELEASE:
            raise GauntletError(
                f"invalid version {str(text)[:80]!r}: expected MAJOR.MINOR.PATCH with an optional "
                f"-PRERELEASE, e.g. 0.1.0 or 1.0.0-rc.1 (numbers of at most {MAX_DIGITS} digits "
                f"without leading zeros, pre-release at most {MAX_PRERELEASE} characters of "
                "letters, digits, '-' and '.', no +build metadata)"
            )
        return cls(int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4) or "")

    def __str__(self) -> str:
        core = f"{self.major}.{self.minor}.{self.patch}"
        return f"{core}-{self.prerelease}" if self.prerelease else core

    @property
    def tag(self) -> str:
        return f"v{self}"

    def precedence(self) -> tuple:
        """A sort key in semver precedence order."""
        if not self.prerelease:
            pre: tuple = (1,)  # a release comes after all of its pre-releases
        else:
            pre = (0, tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in self.prerelease.split(".")))
        return (self.major, self.minor, self.patch, pre)

    def __lt__(self, other: Version) -> bool:
        return self.precedence() < other.precedence()

    def __le__(self, other: Version) -> bool:
        return self.precedence() <= other.precedence()

    def __gt__(self, other: Version) -> bool:
        return self.precedence() > other.precedence()

    def __ge__(self, other: Version) -> bool:
        return self.precedence() >= other.precedence()


def check_name(name: str) -> str:
    """A release name: letters, digits, '.', '_' and '-', starting with a letter or digit; nothing else,
    not even a trailing newline (names reach paths, SQL and the Hub)."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name) or ".." in name:
        raise GauntletError(f"invalid release name {name!r}: letters, digits, '.', '_' and '-' only")
    return name
