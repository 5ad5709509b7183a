"""Corpus-wide pools drawn from so that edits elsewhere in the corpus rarely move a choice.

A pool's candidates sit on a hash ring at ``keyed_rank(seed, name, candidate)``; an item draws a point on
the ring from its own content-keyed rng and takes the first valid candidate clockwise. Adding, removing
or editing other rows changes an item's choice only when its chosen candidate is gone or a new candidate
lands between its point and that choice (about one item in ``len(pool)`` per changed candidate), whereas
``rng.choice(sorted(pool))`` moved almost every choice when the pool's size changed. O(log n) per draw.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from mtgauntlet.builders.keyed import keyed_rank
from mtgauntlet.models.base import Doc

RING_BITS = 128  # keyed_rank is a 128-bit integer
POINTS = 16  # places of each candidate on the ring: every candidate gets about the same share of the draws


class KeyedPool:
    """Candidates (strings) ordered on a hash ring keyed by ``(seed, name, identity)``; see the module docstring.

    ``candidates`` is an iterable of strings (each its own identity) or a mapping ``{candidate: identity}``: a
    clause keyed by the id of the row it came from keeps its place on the ring when that row is edited, so
    the edit moves only the choices of that very clause."""

    def __init__(self, candidates: Iterable[str] | Mapping[str, Any], seed: Any = 0, name: str = "pool"):
        keys = candidates if isinstance(candidates, Mapping) else {c: c for c in candidates}
        ring = sorted((keyed_rank(seed, name, key, v), c) for c, key in keys.items() for v in range(POINTS))
        self._points = [p for p, _ in ring]
        self._candidates = [c for _, c in ring]

    def __len__(self) -> int:
        return len(self._candidates) // POINTS

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(set(self._candidates)))

    def pick(self, rng: random.Random, valid: Callable[[str], bool] = lambda c: True) -> str | None:
        """The first valid candidate clockwise from a point drawn from ``rng`` (one draw, always made)."""
        point = rng.getrandbits(RING_BITS)
        n = len(self._candidates)
        start = bisect.bisect_left(self._points, point)
        tried: set[str] = set()
        for i in range(n):
            c = self._candidates[(start + i) % n]
            if c not in tried:
                if valid(c):
                    return c
                tried.add(c)
        return None


def as_pool(candidates: Iterable[str] | KeyedPool, seed: Any = 0, name: str = "pool") -> KeyedPool:
    return candidates if isinstance(candidates, KeyedPool) else KeyedPool(candidates, seed, name)


NAMED_LABELS = {
    "PERSON",
    "PER",
    "ORG",
    "GPE",
    "LOC",
    "NORP",
    "FAC",
    "EVENT",
    "WORK_OF_ART",
    "PRODUCT",
    "LANGUAGE",
    "MISC",
    "LAW",
}


def entities_of(doc: Doc, types: str = "all"):
    """The entities ``ne`` may replace: ``all`` (the paper: every entity the NER finds, DATE, TIME, CARDINAL, MONEY
    ... included) or ``names`` (entities that name things: numeric/temporal labels are left to ``num``)."""
    if types == "names":
        return [e for e in doc.entities if e.label in NAMED_LABELS]
    return list(doc.entities)


def entity_pool(docs: list[Doc], types: str = "all") -> dict[str, set[str]]:
    """Corpus entities per label (1-4 words, starting with a letter or digit, no possessive) to swap in."""
    pool: dict[str, set[str]] = {}
    for d in docs:
        for e in entities_of(d, types):
            if 1 <= len(e.text.split()) <= 4 and e.text[:1].isalnum() and not e.text.endswith(("'s", "’s")):
                pool.setdefault(e.label, set()).add(e.text)
    return pool
