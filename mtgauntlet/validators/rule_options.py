"""The ``options`` of a rules file: which backends and switches the validator rules run with (see
:mod:`mtgauntlet.validators.rules` for the file, :mod:`mtgauntlet.validators.registry` for the rules)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Options:
    embedder: str | None = None
    chrf_word_order: int = 0
    lm: bool = False
    nli: str | None = None
    judge: str | None = None
    max_texts: int = 5000
    gx: bool = False
    grammar: bool = False
    iqr_k: float = 3.0
