"""Which sets of the catalog the workbench scores, and the items a metric reads from them.

By default every release holding pair sets (``smaug_pair``, ``challenge_pair``) or human-judgment sets
(``human_score``), latest version of each name. ``sets`` narrows that: names (``NAME`` = its latest version,
``NAME@VERSION`` = that version), or a read-only SQL query over the catalog returning ``name`` and ``version``.

An item is one hypothesis a metric scores: a pair record gives two (``good`` and ``bad``), a human-judgment record
one (``tgt``). Its key is the content hash of what a metric reads (source, hypothesis, reference, languages).
"""

from __future__ import annotations

import builtins
import hashlib
import json
from dataclasses import dataclass, field

from mtgauntlet.errors import GauntletError, UsageError

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

    def __len__(self) -> int:
        return len(self.record_id)


def item_key(src: str | None, hyp: str | None, ref: str | None, src_lang: str | None, tgt_lang: str | None) -> str:
    blob = json.dumps([src, hyp, ref, src_lang, tgt_lang], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


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


def _extra_keys(extra: str | None) -> list[str]:
    try:
        value = json.loads(extra) if extra else {}
    except ValueError:
        return []
    return list(value) if isinstance(value, dict) else []


def load_items(con, ref: SetRef) -> Items:
    """The items of one set, in record id order (good before bad)."""
    from mtgauntlet.releases.catalog import quote_ident, quote_literal

    table = con.sql(
        f"SELECT * FROM {quote_ident(ref.kind)} WHERE name = {quote_literal(ref.name)} "
        f"AND version = {quote_literal(ref.version)} ORDER BY id"
    ).to_arrow_table()
    items = Items(ref)
    for r in table.to_pylist():
        items.score_names.update(s["name"] for s in r.get("scores") or ())
        items.extra_names.update(_extra_keys(r.get("extra")))
        sl, tl = r.get("src_lang"), r.get("tgt_lang")
        lp = r.get("lp") or f"{sl}-{tl}"
        if not sl or not tl:
            sl, _, tl = lp.partition("-")
        sides = (("good", r["good"]), ("bad", r["bad"])) if ref.kind in PAIR_KINDS else (("tgt", r.get("tgt")),)
        for side, hyp in sides:
            items.record_id.append(r["id"])
            items.side.append(side)
            items.src.append(r.get("src") or "")
            items.hyp.append(hyp)
            items.ref.append(r.get("ref"))
            items.src_lang.append(sl)
            items.tgt_lang.append(tl)
            items.lp.append(lp)
            items.phenomenon.append(r.get("phenomenon"))
            items.category.append(r.get("aces_category"))
            items.system.append(r.get("system"))
            items.seg_id.append(r.get("seg_id"))
            items.scores.append(_scores(r.get("scores")))
            items.gold_spans.append(r.get("spans"))
            items.key.append(item_key(items.src[-1], hyp, items.ref[-1], sl, tl))
    return items
