"""A release out, in the field's formats: pair sets (challenge_pair, smaug_pair) as the WMT challenge TSV or the
ACES TSV (or ACES JSON lines: an ``--out`` path with ``.jsonl``), human-judgment sets (human_score) in the mt-metrics-eval layout, metric results (metric_score) as WMT
``*.seg.score`` / ``*.sys.score`` files.

Records are read as the catalog reads them (:mod:`mtgauntlet.releases.sealed_records`): of a release or a results
folder, exactly the files its manifest seals, each checked against it, so an edited, deleted or planted file never
reaches an export. Records are written in a stable order: by source_dataset, then source_id (numbers numerically), so a set imported,
exported and imported again gets its rows back in their order (and, from a file, the same row numbers).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mtgauntlet.atomic import atomic_dir, atomic_path
from mtgauntlet.errors import GauntletError, UsageError

EXPORT_FORMATS = ("wmt-challenge", "aces", "mtme", "seg-score")
PAIR_KINDS = ("challenge_pair", "smaug_pair")


def _order(r: dict[str, Any]) -> tuple:
    sid = r.get("source_id") or ""
    return (
        r.get("source_dataset") or "",
        0 if sid.isdigit() else 1,
        int(sid) if sid.isdigit() else 0,
        sid,
        r.get("lp") or "",
        r.get("seg_id") or "",
        r.get("system") or "",
        r["id"],
    )


def _records(release: str | Path, kinds: tuple[str, ...], fmt: str) -> list[tuple[str, list[dict[str, Any]]]]:
    from mtgauntlet.releases.sealed_records import load_sealed_by_kind

    tables = load_sealed_by_kind(release)
    found = [(k, sorted(tables[k].to_pylist(), key=_order)) for k in kinds if k in tables]
    if not found:
        raise GauntletError(
            f"{release}: no {' or '.join(kinds)} records to export as {fmt} (it holds {', '.join(tables) or 'nothing'})"
        )
    return found


def _new_path(out: str | Path) -> Path:
    p = Path(out)
    if p.exists():
        raise GauntletError(f"{p} already exists: export to a new path")
    return p


def score_items(scores: list[dict[str, Any]], releases: str | Path) -> dict[str, tuple[str, str, str]]:
    """record id -> (lp, system, seg) of every record the scores name, read from the sets' releases."""
    from mtgauntlet.releases.release import release_dir
    from mtgauntlet.releases.sealed_records import load_sealed

    items: dict[str, tuple[str, str, str]] = {}
    for name, version, kind in sorted({(s["set"], s["version"], s["record_kind"]) for s in scores}):
        rel = release_dir(releases, name, version)
        if not (rel / "manifest.json").is_file():
            raise GauntletError(f"scores of {name} {version}: no such release under {releases} (give --releases)")
        for r in load_sealed(rel, kind).to_pylist():
            lp = r.get("lp") or "-".join(x for x in (r.get("src_lang"), r.get("tgt_lang")) if x)
            items[r["id"]] = (lp, r.get("system") or "", r.get("seg_id") or r["id"])
    return items


def export_release(fmt: str, release: str | Path, out: str | Path, releases: str | Path = "releases") -> dict:
    """Write ``release`` (for seg-score: metric_score Parquet files) as ``fmt`` to ``out``; returns a summary
    (format, out, records, files)."""
    if fmt not in EXPORT_FORMATS:
        raise UsageError(f"export format {fmt!r}: choose one of {', '.join(EXPORT_FORMATS)}")
    if fmt in ("wmt-challenge", "aces"):
        from mtgauntlet.sets.formats.challenge_tsv import write_pairs

        found = _records(release, PAIR_KINDS, fmt)
        if len(found) > 1:
            raise GauntletError(
                f"{release}: holds both challenge_pair and smaug_pair records; export each release of one kind"
            )
        kind, records = found[0]
        path = _new_path(out)
        with atomic_path(path) as tmp:  # nothing is left behind when a text cannot be written
            n = write_pairs(tmp, fmt, kind, records, jsonl=".jsonl" in path.name)
        return {"format": fmt, "out": str(path), "records": n, "files": [str(path)]}
    if fmt == "mtme":
        from mtgauntlet.sets.formats.mtme import write_mtme

        ((_, records),) = _records(release, ("human_score",), fmt)
        root = _new_path(out)
        with atomic_dir(root) as tmp:
            n = write_mtme(tmp, records)
        return {
            "format": fmt,
            "out": str(root),
            "records": n,
            "files": sorted(str(p) for p in root.rglob("*") if p.is_file()),
        }
    from mtgauntlet.releases.results_files import conform
    from mtgauntlet.releases.sealed_records import load_sealed
    from mtgauntlet.sets.formats.seg_score import seg_score_lines, write_seg_scores

    scores = conform(load_sealed(release, "metric_score"), "metric_score").to_pylist()
    root = _new_path(out)
    lines = seg_score_lines(scores, score_items(scores, releases))
    with atomic_dir(root) as tmp:
        names = [p.name for p in write_seg_scores(tmp, lines)]
    return {"format": fmt, "out": str(root), "records": len(scores), "files": [str(root / n) for n in names]}
