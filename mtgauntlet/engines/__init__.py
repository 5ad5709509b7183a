"""Execution engines: ``local`` (this process) and ``ray`` (a Ray cluster).

Both score (``score``: a :class:`~mtgauntlet.engines.scoring.ScoreTask` and the columns to score, through the same
fixed shards in a work directory, resumable, the same scores in input order) and run any shard worker
(``map_shards``: a build's shards, the validators' per-record checks; see :mod:`mtgauntlet.shards`), with the same
results in shard order.
"""

from __future__ import annotations

import importlib

from mtgauntlet.errors import GauntletError

ENGINES = {"local": "mtgauntlet.engines.local:LocalEngine", "ray": "mtgauntlet.engines.ray_engine:RayEngine"}


def get_engine(name: str, **kwargs):
    if name not in ENGINES:
        raise GauntletError(f"unknown engine {name!r}; engines: {', '.join(ENGINES)}")
    module, _, cls = ENGINES[name].partition(":")
    return getattr(importlib.import_module(module), cls)(**kwargs)
