"""Which sets of the catalog the workbench scores, and the items a metric reads from them.

By default every release holding pair sets (``smaug_pair``, ``challenge_pair``) or human-judgment sets
(``human_score``), latest version of each name. ``sets`` narrows that: names (``NAME`` = its latest version,
``NAME@VERSION`` = that version), or a read-only SQL query over the catalog returning ``name`` and ``version``.

An item is one hypothesis a metric scores: a pair record gives two (``good`` and ``bad``), a human-judgment record
one (``tgt``). Its key is the content hash of what a metric reads (source, hypothesis, reference, languages).
"""

from __future__ import annotations

import builtins
import json
from dataclasses import dataclass, field
from typing import Any

from mtgauntlet.errors import GauntletError, UsageError
from mtgauntlet.workbench.item_keys import item_key, item_keys

__all__ = ["HUMAN_KINDS", "PAIR_KINDS", "SET_KINDS", "Items", "SetRef", "item_key", "load_items", "select_sets"]

PAIR_KINDS = ("smaug_pair", "challenge_pair")
HUMAN_KINDS = ("human_score",)
SET_KINDS = PAIR_KINDS + HUMAN_KINDS


@dataclass
class SetRef:
    name: str
    version: str
    kind: str


@dataclass
class Items:
    """The items of one set, column by column (one entry per hypothesis)."""

    set: SetRef
    record_id: list[str] = field(default_factory=list)
    side: list[str] = field(default_factory=list)
    src: list[str] = field(default_factory=list)
    hyp: list[str | None] = field(default_factory=list)
    ref: list[str | None] = field(default_factory=list)
    src_lang: list[str] = field(default_factory=list)
    tgt_lang: list[str] = field(default_factory=list)
    lp: list[str] = field(default_factory=list)
    phenomenon: list[str | None] = field(default_factory=list)  # pairs
    category: list[str | None] = field(default_factory=list)  # challenge_pair: the ACES category
    system: list[str | None] = field(default_factory=list)  # human_score
    seg_id: list[str | None] = field(default_factory=list)  # human_score
    scores: list[dict[str, float | None]] = field(default_factory=list)  # the record's kept scores
    gold_spans: list[list[dict] | None] = field(default_factory=list)  # human_score: annotated error spans
    key: list[str] = field(default_factory=list)
    score_names: builtins.set[str] = field(default_factory=builtins.set)  # the names its records keep in ``scores``
    extra_names: builtins.set[str] = field(default_factory=builtins.set)  # the columns kept as text in ``extra``
    arrays: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # made by `arrow`

    def __len__(self) -> int:
        return len(self.record_id)

    def arrow(self, name: str) -> Any:
        """A column of strings (``key``, ``record_id``, ``side``) as an Arrow array, made once per set (every metric
        of a run stores rows of the same items; the columns are not changed once loaded)."""
        import pyarrow as pa

        if name not in self.arrays:
            self.arrays[name] = pa.array(getattr(self, name), pa.string())
        return self.arrays[name]


def _parse_names(sets: str) -> list[tuple[str, str | None]]:
    out = []
    for part in (p.strip() for p in sets.split(",")):
        if part:
            name, _, version = part.partition("@")
            out.append((name, version or None))
    if not out:
        raise UsageError("--sets: no set named")
    return out


def select_sets(con, sets: str | None) -> list[SetRef]:
    """The (name, version, kind) of every set to score, in name and version order."""
    from mtgauntlet.releases.catalog import check_read_only

    rows = con.execute("SELECT name, version, kinds, latest, version_order FROM releases").fetchall()
    kinds = {(n, v): [k for k in ks if k in SET_KINDS] for n, v, ks, _, _ in rows}
    if not sets:
        chosen = [(n, v) for n, v, _, latest, _ in rows if latest and kinds[(n, v)]]
    elif sets.lstrip().lower().startswith(("select", "with", "from")):
        check_read_only(con, sets)
        import duckdb

        try:
            picked = con.execute(f"SELECT DISTINCT name, version FROM ({sets})").fetchall()
        except duckdb.Error as exc:  # the user's query
            raise UsageError(f"--sets: the query failed: {str(exc).splitlines()[0]}") from None
        chosen = [(str(n), str(v)) for n, v in picked]
        for n, v in chosen:
            if (n, v) not in kinds:
                raise UsageError(f"--sets: the query names {n} {v}, which is not a release of the catalog")
    else:
        chosen = []
        for name, version in _parse_names(sets):
            versions = sorted(((order, v) for n, v, _, _, order in rows if n == name), reverse=True)
            if not versions:
                raise UsageError(f"--sets: no release named {name!r} in the catalog")
            if version is None:
                chosen.append((name, versions[0][1]))
            elif (name, version) in kinds:
                chosen.append((name, version))
            else:
                raise UsageError(f"--sets: {name} has no version {version!r} (has {', '.join(v for _, v in versions)})")
    out = [SetRef(n, v, k) for n, v in sorted(set(chosen)) for k in kinds[(n, v)]]
    if not out:
        raise GauntletError(
            "no pair set (smaug_pair, challenge_pair) or human-judgment set (human_score) to score "
            "in the catalog" + (f" for --sets {sets!r}" if sets else "")
        )
    return out


def _scores(value) -> dict[str, float | None]:
    return {s["name"]: s["value"] for s in value} if value else {}


def _array(table, name: str) -> Any:
    """A column as one Arrow array (all nulls where the table has no such column)."""
    import pyarrow as pa

    if name not in table.column_names:
        return pa.nulls(table.num_rows, pa.string())
    return table.column(name).combine_chunks()


def _interleave(columns: list[list], sides: int) -> list:
    """[a0, b0, a1, b1, ...] of columns [a, b] (each record's sides together, in side order)."""
    if sides == 1:
        return list(columns[0])
    out = [None] * (len(columns[0]) * sides)
    for k, column in enumerate(columns):
        out[k::sides] = column
    return out


def _extra_keys(extra: str | None) -> list[str]:
    try:
        value = json.loads(extra) if extra else {}
    except ValueError:
        return []
    return list(value) if isinstance(value, dict) else []


def _languages(table) -> tuple[Any, Any, Any]:
    """(src_lang, tgt_lang, lp) arrays of a set's records: ``lp`` = ``SRC-TGT`` where the record names none; a
    record without both languages takes them from its ``lp``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    sl, tl, lp = (_array(table, c).cast(pa.string()) for c in ("src_lang", "tgt_lang", "lp"))
    named = pc.fill_null(pc.greater(pc.utf8_length(lp), 0), False)
    both = all(a.null_count == 0 and (not len(a) or pc.min(pc.utf8_length(a)).as_py() > 0) for a in (sl, tl))
    if both:  # the usual case, column-wise
        return sl, tl, pc.if_else(named, lp, pc.binary_join_element_wise(sl, tl, "-"))
    sls, tls, lps = [], [], []
    for a, b, pair in zip(sl.to_pylist(), tl.to_pylist(), lp.to_pylist()):
        pair = pair or f"{a}-{b}"
        if not a or not b:
            a, _, b = pair.partition("-")
        lps.append(pair)
        sls.append(a)
        tls.append(b)
    return pa.array(sls, pa.string()), pa.array(tls, pa.string()), pa.array(lps, pa.string())


def load_items(con, ref: SetRef) -> Items:
    """The items of one set, in record id order (good before bad), read column by column."""
    import pyarrow.compute as pc

    from mtgauntlet.releases.catalog import quote_ident, quote_literal

    table = con.sql(
        f"SELECT * FROM {quote_ident(ref.kind)} WHERE name = {quote_literal(ref.name)} "
        f"AND version = {quote_literal(ref.version)} ORDER BY id"
    ).to_arrow_table()
    pairs = ref.kind in PAIR_KINDS
    side_names = ("good", "bad") if pairs else ("tgt",)
    n = len(side_names)
    ids = _array(table, "id").to_pylist()
    src = pc.fill_null(_array(table, "src"), "")
    refs = _array(table, "ref")
    sls, tls, lps = _languages(table)
    hyps = [_array(table, side) for side in side_names]
    keys = item_keys(src, hyps, refs, sls, tls)

    def each(column: Any) -> list:
        """A record's value for each of its items (a column of nulls: None for every item, without reading it)."""
        if not isinstance(column, list) and column.null_count == len(column):
            return [None] * (len(column) * n)
        values = column if isinstance(column, list) else column.to_pylist()
        return _interleave([values] * n, n)

    items = Items(ref)
    raw_scores = _array(table, "scores")
    if raw_scores.null_count < len(raw_scores):
        names = pc.list_flatten(raw_scores).field("name")
        items.score_names.update(pc.unique(names).to_pylist())
        items.scores = each([_scores(v) for v in raw_scores.to_pylist()])
    else:
        items.scores = [{}] * (len(ids) * n)  # no record keeps a score: one empty dict (scores are only read)
    for extra in pc.unique(_array(table, "extra")).to_pylist():  # each distinct text once
        items.extra_names.update(_extra_keys(extra))
    items.record_id = each(ids)
    items.side = list(side_names) * len(ids)
    items.src = each(src)
    items.hyp = _interleave([h.to_pylist() for h in hyps], n)
    items.ref = each(refs)
    items.src_lang, items.tgt_lang, items.lp = each(sls), each(tls), each(lps)
    items.phenomenon = each(_array(table, "phenomenon"))
    items.category = each(_array(table, "aces_category"))
    items.system = each(_array(table, "system"))
    items.seg_id = each(_array(table, "seg_id"))
    items.gold_spans = each(_array(table, "spans"))
    items.key = _interleave(keys, n)
    return items
