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
from importlib import resources
from typing import Any, Sequence

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
    """Per text: the parsed JSON attributes, or None when the answer was unusable (counted by the caller)."""
    from mtgauntlet.models import prompts

    out = []
    for t in texts:
        ans = llm.chat([{"role": "user", "content": prompts.SOURCE_ANALYSIS.format(source=t)}], max_tokens=200)
        obj = prompts.parse_json_object(ans)
        if obj is not None:
            obj = {k.replace(" ", "_"): v for k, v in obj.items()}
        out.append(obj)
    return out
