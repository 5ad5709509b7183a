"""Google's MQM error weights (Freitag et al. 2021), shared by the span import (``gauntlet import mqm-spans``) and
the LLM judge's error spans (``llm-as-qe:…#spans=1``), so that a metric's MQM score and the gold one are on one
scale. This module imports nothing of the package."""

from __future__ import annotations

SEVERITIES = ("critical", "major", "minor")


def mqm_weight(category: str, severity: str) -> float:
    """Google's MQM weight of one error (Freitag et al. 2021): Major 5, Minor 1, Minor Fluency/Punctuation 0.1,
    Non-translation 25, Neutral / No-error 0; Critical (which Google's scheme folds into Major) 5."""
    sev, cat = severity.strip().lower(), category.strip().lower()
    if sev in ("no-error", "neutral") or cat == "no-error":
        return 0.0
    if cat.startswith("non-translation"):
        return 25.0
    if sev == "major" or sev == "critical":
        return 5.0
    if sev == "minor":
        return 0.1 if cat == "fluency/punctuation" else 1.0
    return 0.0
