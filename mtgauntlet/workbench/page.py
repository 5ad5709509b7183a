"""The leaderboard page of a results folder (``gauntlet leaderboard``): the sealed statistics read here, the page
rendered by ``mtgauntlet.cards.leaderboard`` (which reads no file itself)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mtgauntlet.atomic import write_text_atomic
from mtgauntlet.cards.leaderboard.page import render


def write_leaderboard(
    results: Path, out: Path, releases: str | Path | None = None, title: str | None = None
) -> dict[str, Any]:
    from mtgauntlet.workbench.store import read_stats, sealed_files

    sealed_files(results)  # a results folder whose files all match its manifest, or a one-line error
    stats = read_stats(results).to_pylist()
    sizes = None
    if releases is not None:
        from mtgauntlet.releases.catalog import open_catalog

        con = open_catalog(releases)
        try:
            sizes = {(n, v): int(r) for n, v, r in con.execute("SELECT name, version, rows FROM releases").fetchall()}
        finally:
            con.close()
    html = render(stats, title or "Metric leaderboard", str(results), sizes)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, html)
    return {
        "out": str(out),
        "rows": len(stats),
        "metrics": sorted({r["metric"] for r in stats}),
        "sets": sorted({f"{r['set']}@{r['version']}" for r in stats}),
    }
