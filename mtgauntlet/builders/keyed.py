"""Content-keyed randomness: choices that depend on *what* an item is, never on *where* it sits.

A row's position changes when other rows are added, removed or edited; its content does not. Seeding
every per-item choice from ``(seed, phenomenon, source id, text, ...)`` keeps a record stable under
edits elsewhere in the input. Candidates drawn from a corpus-wide pool are ordered by
:func:`keyed_rank` so that adding or removing other candidates changes the choice only when the chosen
candidate itself is gone.

The hash is BLAKE2b over the UTF-8 of the parts (each length-prefixed, so ``("ab", "c")`` and
``("a", "bc")`` differ), never Python's salted ``hash()``: it is the same in every process and release.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def _digest(seed: Any, parts: tuple[Any, ...]) -> bytes:
    h = hashlib.blake2b(digest_size=16, person=b"mtg-keyed-v1")
    for part in (seed, *parts):
        data = str(part).encode("utf-8")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.digest()


def keyed_rank(seed: Any, *parts: Any) -> int:
    """A stable 128-bit integer for ``(seed, *parts)``: sort candidates by it for an edit-stable order."""
    return int.from_bytes(_digest(seed, parts), "big")


def keyed_rng(seed: Any, *parts: Any) -> random.Random:
    """A ``random.Random`` seeded from ``(seed, *parts)`` (same parts -> same stream, in any process)."""
    return random.Random(keyed_rank(seed, *parts))


def seed_list(builder: Any, items: Iterable[Any]) -> dict[str, Any]:
    """``{"seeds": [{source_id, sha256 of the text}]}`` for a builder that draws from seed texts
    (``records_seeds``: MT-breaker, zero-shot), for build.json: the runner writes it with the first manifest, so a
    stopped or failed build still says which sources it was about. ``{}`` for other builders."""
    if not builder.records_seeds:
        return {}

    def sha(text: Any) -> str:
        return hashlib.sha256(str(text or "").encode("utf-8", "surrogatepass")).hexdigest()

    return {"seeds": [{"source_id": it.data.get("source_id"), "sha256": sha(it.data.get("src"))} for it in items]}
