"""Grammaticality and naturalness.

- ``lm_naturalness``: a language-model score — the mean token log-probability of the text under the
  embedded LLM (SmolLM2-135M), mapped to 0..100 by a logistic calibrated on English FLORES sentences vs
  the same sentences with shuffled words (data/models/lm_naturalness.json, written by
  ``python -m mtgauntlet.training.naturalness``). It measures fluency as that small, English-centric LM sees
  it; it is not a grammar checker.
- ``llm_judge``: the MT-breaker paper's source-analysis prompt (JSON: grammaticality, naturalness,
  word rarity, syntax complexity, topics) through any ChatLLM.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np

DEFAULT_CALIBRATION = {"midpoint": -4.5, "scale": 0.5}


def calibration() -> dict[str, float]:
    try:
        path = resources.files("mtgauntlet") / "data" / "models" / "lm_naturalness.json"
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, OSError):
        return dict(DEFAULT_CALIBRATION)


def mean_logprobs(texts: Sequence[str], llm=None) -> list[float]:
    from mtgauntlet.models import registry

    llm = llm or registry.load("llm", None)
    return [float(np.mean(v)) if v else -20.0 for v in llm.token_logprobs([t or " " for t in texts])]


def lm_naturalness(texts: Sequence[str], llm=None) -> list[float]:
    cal = calibration()
    return [100.0 / (1.0 + math.exp(-(lp - cal["midpoint"]) / cal["scale"])) for lp in mean_logprobs(texts, llm)]


def llm_judge(texts: Sequence[str], llm) -> list[dict[str, Any] | None]:
    """The paper's source-text analysis prompt on every text (greedy, seed 0, so re-runs are answered from the
    request cache; ``#json=1`` asks for the JSON schema): per text ``{grammaticality, naturalness, word_rarity,
    syntax_complexity: 0..100, topics: [...]}``, or None when the answer does not follow the prompt (counted by
    the caller)."""
    from mtgauntlet.models import prompts, structured

    convs = [[{"role": "user", "content": prompts.SOURCE_ANALYSIS.format(source=t)}] for t in texts]
    return structured.ask(
        llm, convs, structured.SOURCE_ANALYSIS, prompts.parse_source_analysis, max_tokens=512, temperature=0.0, seed=0
    )[1]


def judged_measures(judged: Sequence[dict[str, Any] | None]) -> dict[str, Any]:
    """Means of the judge's 0..100 scores over the usable answers, the number of distinct topics they name (the
    paper's "Diversity (topics)"), and how many answers were unusable."""
    ok = [j for j in judged if j]
    out: dict[str, Any] = {
        key: float(np.mean([j[key] for j in ok])) if ok else None
        for key in ("grammaticality", "naturalness", "word_rarity", "syntax_complexity")
    }
    out["unique_topics"] = len({t for j in ok for t in j["topics"]}) if ok else None
    out["failures"] = len(judged) - len(ok)
    return out
