"""The chunks a set's new items are scored in, and the answers of one chunk.

A chunk is up to ``size`` items of one language pair (item indices, in index order). Its answers come column by
column: the score of each item (None: none), its failure (why there is no score, else None) and its spans (None
for a metric without spans), so that a chunk's stored rows are made without a tuple per item.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, cast

from mtgauntlet.workbench.file_metric import FileScorer, file_values
from mtgauntlet.workbench.metrics import Scorer, check_answer
from mtgauntlet.workbench.sets import PAIR_KINDS, Items

Chunk = tuple[list[int], str, str]  # item indices, src_lang, tgt_lang


class Answers(NamedTuple):
    """The answers of one chunk, one entry per item of it."""

    scores: list[float | None]
    failures: list[str | None]
    spans: list[Any]


def chunks(items: Items, todo: list[int], size: int) -> list[Chunk]:
    """``todo`` (increasing item indices) cut into chunks of at most ``size`` items of one language pair, by
    language pair (sorted) then position."""
    if len(set(items.src_lang)) == 1 and len(set(items.tgt_lang)) == 1:  # one language pair: no grouping
        by_lang = {(items.src_lang[0], items.tgt_lang[0]): todo} if todo else {}
    else:
        by_lang = {}
        for i in todo:
            by_lang.setdefault((items.src_lang[i], items.tgt_lang[i]), []).append(i)
    return [(idx[k : k + size], sl, tl) for (sl, tl), idx in sorted(by_lang.items()) for k in range(0, len(idx), size)]


def _columns(answers: Sequence[tuple[Any, ...]]) -> Answers:
    """(score, failure[, spans]) per item -> `Answers`."""
    return Answers([a[0] for a in answers], [a[1] for a in answers], [a[2] if len(a) > 2 else None for a in answers])


def col_values(column: str, items: Items, idx: Sequence[int]) -> list[tuple[float | None, str | None]]:
    """A ``col:`` metric's values: the records' kept scores (``col:GOOD,BAD`` on pairs, ``col:NAME`` on a human set)."""
    from mtgauntlet.workbench.metrics import clean

    names = column.split(",")
    out: list[tuple[float | None, str | None]] = []
    for i in idx:
        name = (names[0] if items.side[i] == "good" else names[-1]) if items.set.kind in PAIR_KINDS else names[0]
        if len(names) == 2 and items.set.kind not in PAIR_KINDS:
            out.append((None, f"col:{column}: a human-judgment set takes col:NAME"))
            continue
        value = clean(items.scores[i].get(name))
        out.append((value, None if value is not None else f"no numeric {name!r} in the record"))
    return out


def score_chunk(scorer: Scorer, items: Items, chunk: Chunk) -> Answers:
    """The answers of the chunk's items: an item without a translation (or without the reference the metric
    needs) is not sent to the metric and fails saying so."""
    idx, sl, tl = chunk
    if isinstance(scorer, FileScorer):
        return _columns(file_values(scorer, items, idx))
    if scorer.column is not None:
        return _columns(col_values(scorer.column, items, idx))
    score = scorer.score
    assert score is not None, "a scorer without a column has a score function"
    hyps, ref = [items.hyp[i] for i in idx], [items.ref[i] for i in idx]
    if None not in hyps and (not scorer.needs_ref or all(ref)):  # every item goes to the metric
        ok: list[int] = idx
        hyp = cast(list[str], hyps)
    else:
        ok = [i for i in idx if items.hyp[i] is not None and (items.ref[i] or not scorer.needs_ref)]
        hyp, ref = [items.hyp[i] or "" for i in ok], [items.ref[i] for i in ok]
    got = score([items.src[i] for i in ok], hyp, ref, sl, tl) if ok else []
    marks: list[Any] = [None] * len(ok)
    if scorer.gives_spans:  # (score, spans) per item
        got = list(got) if got is not None else None
        marks = [g[1] if isinstance(g, tuple) else None for g in got or []] or marks
        got = None if got is None else [g[0] if isinstance(g, tuple) else g for g in got]
    values = check_answer(scorer.name, got, len(ok)) if ok else []
    no_score = f"{scorer.name} returned no score"
    if ok is idx:
        if scorer.gives_spans:
            failures = [no_score if v is None and m is None else None for v, m in zip(values, marks)]
        else:
            failures = (
                [None] * len(values) if None not in values else [None if v is not None else no_score for v in values]
            )
        return Answers(values, failures, marks)
    answers = dict(zip(ok, zip(values, marks)))
    out = Answers([], [], [])
    for i in idx:
        value, marked = answers.get(i, (None, None))
        if items.hyp[i] is None:
            failure: str | None = "no translation"
        elif scorer.needs_ref and not items.ref[i]:
            failure = f"{scorer.name} needs a reference; the item has none"
        elif scorer.gives_spans:
            failure = no_score if value is None and marked is None else None
        else:
            failure = None if value is not None else no_score
        out.scores.append(value)
        out.failures.append(failure)
        out.spans.append(marked)
    return out
