"""The per-record checks of ``gauntlet validate`` on an engine (``--engine local|ray``): the NLI contradiction rules
of SMAUG pairs, the grammar check of the fluent side and LM naturalness, each computed record by record, in the
fixed shards of :mod:`mtgauntlet.shards` (:data:`SHARD_SIZE` records), then summed over the set by the same
functions as before. The local engine runs the shards in this process; the Ray engine in actors that make their own
:class:`RecordChecks` from its arguments and load its models once, so the report is the same on either engine.

What stays local: the schema and value checks and the SMAUG span checks (microseconds a record: shipping them costs
more), the corpus-level measures (chrF and embedding diversity compare texts with each other), and the LLM judge,
whose model calls scale on the server side."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from mtgauntlet.shards import ArgsRecorded, cut, map_here

SHARD_SIZE = 256  # records a shard checks at once (the NLI model sees one shard's pairs per call)


class RecordChecks(ArgsRecorded):
    """A shard worker: for each record, ``nli`` (probabilities of (ref, bad) and (ref, good)), ``grammar`` (the
    check of its fluent side, ``None`` without a checker for its language) and ``lm`` (its main text's LM
    naturalness), as far as they are asked for."""

    batched: ClassVar[bool] = True

    def __init__(
        self,
        *,
        kind_name: str,
        text_col: str | None = None,
        nli: str | None = None,
        grammar: bool = False,
        lm: bool = False,
    ):
        self.kind_name, self.text_col, self.nli_spec, self.grammar, self.lm = kind_name, text_col, nli, grammar, lm
        self.nli = None

    @property
    def idle(self) -> bool:
        return not (self.nli_spec or self.grammar or self.lm)

    def load_backends(self) -> None:
        if self.nli_spec:
            from mtgauntlet.models import registry

            self.nli = registry.load("nli", self.nli_spec)

    def process_batch(self, rows: Sequence[dict[str, Any]], rngs=None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{} for _ in rows]
        if self.nli is not None:
            from mtgauntlet.validators.record_checks import smaug_nli_predictions

            for res, bad, good in zip(out, *smaug_nli_predictions(list(rows), self.nli)):
                res["nli"] = (bad, good)
        if self.grammar:
            from mtgauntlet.validators.grammar import grammar_results

            for res, checked in zip(out, grammar_results(self.kind_name, rows)):
                res["grammar"] = checked
        if self.lm and (col := self.text_col) is not None:  # lm is asked for only when the kind has a main text
            from mtgauntlet.validators.fluency import lm_naturalness

            for res, value in zip(out, lm_naturalness([r.get(col) or "" for r in rows])):
                res["lm"] = value
        return out


def record_results(checks: RecordChecks, rows: Sequence[dict[str, Any]], engine: Any = None) -> list[dict[str, Any]]:
    """``checks`` of every record, in record order, on ``engine`` (``None``: this process)."""
    if checks.idle or not rows:
        return [{} for _ in rows]
    shards = cut(rows, SHARD_SIZE)
    if engine is None or engine.runs_here:  # else every actor loads its own models
        checks.load_backends()
    mapped = map_here(checks, shards, None) if engine is None else engine.map_shards(checks, None, shards, None)
    return [res for _, results in mapped for res in results]
