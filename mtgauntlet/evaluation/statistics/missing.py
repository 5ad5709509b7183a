"""Missing scores: ``None`` and NaN both mean "no score"; every statistic reads its input through these helpers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mtgauntlet.errors import GauntletError

Scores = Sequence[Any] | np.ndarray  # one score per item, a list or an array; None or NaN = missing
Matrix = Mapping[str, Scores]  # system -> its scores, the items in the same order for every system


def as_float(values: Scores) -> np.ndarray:
    """A float array with NaN wherever ``values`` holds ``None`` or NaN."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiub":
        return values.astype(float, copy=False).ravel()
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


def matrices(metric: Matrix, human: Matrix) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(systems, metric S×N, human S×N) over the systems both score matrices have, sorted by name; a missing score
    is NaN. Every system must score the same number of items (the same item order is the caller's promise)."""
    systems = sorted(set(metric) & set(human))
    if not systems:
        raise GauntletError("the metric and the human score matrices have no system in common")
    m = [as_float(metric[s]) for s in systems]
    h = [as_float(human[s]) for s in systems]
    sizes = {len(v) for v in m + h}
    if len(sizes) != 1:
        raise GauntletError(f"every system must score the same items; lengths differ: {sorted(sizes)}")
    return systems, np.vstack(m), np.vstack(h)
