"""One leaderboard row (a ``metric_stat`` record) and which kept scores of a human-judgment set are human ones."""

from __future__ import annotations

import math
import re
from typing import Any

HUMAN_SCORE = re.compile(r"(mqm|esa|da|sqm|da[-_]sqm|psqm|wmt[-_](raw|z))([-_ .].*|\d*)", re.IGNORECASE)


def is_human_score(name: str) -> bool:
    """Whether a kept score of a human-judgment set is a human judgment (mqm, da_sqm, esa, ESA-1, ...)."""
    return bool(HUMAN_SCORE.fullmatch(name))


def number(x: Any) -> float | None:
    """A statistic's value as stored: a float, or None for a missing or NaN value."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def stat_row(
    base: dict[str, Any],
    statistic: str,
    value: Any,
    n: Any,
    ci: tuple[Any, Any] = (None, None),
    **where: Any,
) -> dict[str, Any]:
    """A leaderboard row: ``base`` (metric, metric_signature, set, version, record_kind), ``where`` (phenomenon,
    lp, gold, grouping, system_score, epsilon: ``all`` / ``none`` / null unless given), the statistic, its value,
    interval and count."""
    return {
        **base,
        "phenomenon": "all",
        "lp": "all",
        "gold": None,
        "grouping": "none",
        "system_score": None,
        "epsilon": None,
        "cluster": None,
        **{k: (number(v) if k == "epsilon" else v) for k, v in where.items()},
        "statistic": statistic,
        "value": number(value),
        "ci_low": number(ci[0]),
        "ci_high": number(ci[1]),
        "n": int(n),
    }
