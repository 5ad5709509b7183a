"""The one parser of options that take several model or metric specs (``-m``, ``--qe``, ``--mt``, ``--estimator``,
...): `split_spec_list`.

Specs are separated by commas, but a spec's own options are too (``llm-as-qe:openai:m@URL#price=1/2,json=1``):
a piece after a spec with ``#`` that is only an option (``key=value``, or a bare flag that names no spec) stays
with that spec. A piece after ``col:GOOD`` that names no spec is its second column (``col:GOOD,BAD``). Lists (a
Python list, repeated options) are split the same way, item by item. This module imports nothing of the package:
the callers pass the names a bare piece may be (backend and metric names).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

_OPTION = re.compile(r"^[A-Za-z_][\w-]*=.*$")  # key=value (any value: a path, a price 1/2)
_FLAG = re.compile(r"^[A-Za-z_][\w-]*$")  # a bare word: an option flag, or a spec's name
PAIRED = ("col:",)  # specs that take two comma-separated names (col:GOOD,BAD)


def split_spec_list(
    value: str | Sequence[str] | None, names: Collection[str] = (), *, paired: Sequence[str] = PAIRED
) -> list[str]:
    """``"a#x=1,y=2,b"`` -> ``["a#x=1,y=2", "b"]`` (see the module); ``names``: what a bare word may be as a
    spec of its own (``qe``, ``chrf``); duplicates are kept once, in order."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else [str(v) for v in value]
    out: list[str] = []
    for item in items:
        current: list[str] = []
        for piece in (p.strip() for p in item.split(",")):
            if not piece:
                continue
            if current and _belongs(current[-1], piece, names, paired):
                current[-1] += "," + piece
            else:
                current.append(piece)
        out += current
    return list(dict.fromkeys(out))


def _belongs(spec: str, piece: str, names: Collection[str], paired: Sequence[str]) -> bool:
    """Whether ``piece`` continues ``spec`` (one of its options, or the second column of a paired spec)."""
    bare = _FLAG.match(piece) is not None and piece not in names
    if "#" in spec:
        return _OPTION.match(piece) is not None or bare
    return any(spec.startswith(p) for p in paired) and "," not in spec and bare
