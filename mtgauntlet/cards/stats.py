"""The card's statistics per record kind, and its plots (each titled with its kind and scale)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from mtgauntlet.cards import plots
from mtgauntlet.cards.markdown import md_code, md_text
from mtgauntlet.corpora.langs import hub_language
from mtgauntlet.release_layout import kind_sort_key, path_part

CATEGORY_COLUMNS = ("phenomenon", "method", "topic", "domain", "estimator", "phase")
TOP = 25


def md_table(rows: list[list[Any]], header: list[str]) -> str:
    def cell(v: Any) -> str:
        return str(v).replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def value_counts(column: pa.ChunkedArray) -> dict[str, int]:
    vc = pc.value_counts(column.combine_chunks())
    return {
        ("(null)" if v is None else str(v)): int(n)
        for v, n in zip(vc.field("values").to_pylist(), vc.field("counts").to_pylist())
    }


def languages(tables: dict[str, pa.Table]) -> list[str]:
    langs: set[str] = set()
    for t in tables.values():
        for col in ("src_lang", "tgt_lang"):
            if col in t.column_names:
                langs.update(filter(None, (hub_language(v) for v in pc.unique(t.column(col)).to_pylist() if v)))
    return sorted(langs)


def difficulty_scales(kind: str, table: pa.Table, qe_specs: list[str]) -> list[tuple[str, str, pa.Array]]:
    """(file suffix, scale description, values) for each difficulty scale present in a kind's records."""
    if "difficulty" not in table.column_names:
        return []
    if kind == "selected_text":
        group_col, label = "estimator", "difficulty from estimator {} (its own scale; higher = harder)"
    elif kind == "breaker_text":
        group_col, label = "qe_model", "difficulty = 100 - mean QE by {} (0-100; higher = harder)"
    else:
        group_col = None
        specs = ", ".join(md_code(s) for s in qe_specs) or "the build's QE"
        label = f"difficulty = 100 - mean QE by {specs} (0-100; higher = harder)"
    if group_col is None or group_col not in table.column_names:
        return [("", label, table.column("difficulty").combine_chunks())]
    out = []
    for value in sorted(v for v in pc.unique(table.column(group_col)).to_pylist() if v is not None):
        mask = pc.equal(table.column(group_col), value)
        out.append(
            (
                f"_{path_part(value)}",
                label.format(md_code(value)),
                table.filter(mask).column("difficulty").combine_chunks(),
            )
        )
    return out


def statistics(tables: dict[str, pa.Table], qe_specs: dict[str, list[str]], release: Path) -> tuple[str, list[Path]]:
    """Markdown statistics per kind, and the plot files written under ``release/plots``."""
    import numpy as np

    parts, figs = [], []
    for kind in sorted(tables, key=kind_sort_key):
        t = tables[kind]
        parts.append(f"### `{kind}`: {t.num_rows} records")
        cols = t.column_names
        if "src_lang" in cols and "tgt_lang" in cols:
            lp = pc.binary_join_element_wise(
                pc.fill_null(t.column("src_lang"), "?"), pc.fill_null(t.column("tgt_lang"), "-"), "-"
            )
            parts.append(
                md_table([[md_text(k), n] for k, n in sorted(value_counts(lp).items())], ["language pair", "records"])
            )
        for col in CATEGORY_COLUMNS:
            if col not in cols:
                continue
            counts = value_counts(t.column(col))
            top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
            more = f" (top {TOP} of {len(counts)})" if len(counts) > TOP else ""
            parts.append(
                f"Records per {col}{more}:\n\n" + md_table([[md_text(k), n] for k, n in top], [col, "records"])
            )
            if col == "phenomenon":
                figs.append(
                    plots.bar_counts(
                        counts,
                        release / "plots" / f"{kind}_phenomena.png",
                        f"{kind}: records per SMAUG phenomenon",
                        "phenomenon",
                    )
                )
        for suffix, scale, values in difficulty_scales(kind, t, qe_specs.get(kind, [])):
            vals = values.drop_null().to_numpy(zero_copy_only=False)
            if not len(vals):
                continue
            q = np.percentile(vals, [0, 25, 50, 75, 100])
            parts.append(
                f"{scale[0].upper()}{scale[1:]}:\n\n"
                + md_table([[len(vals)] + [f"{x:.3g}" for x in q]], ["records", "min", "25%", "median", "75%", "max"])
            )
            figs.append(
                plots.histogram(
                    vals,
                    release / "plots" / f"{kind}_difficulty{suffix}.png",
                    f"{kind}: {scale}",
                    "difficulty (higher = harder)",
                )
            )
    return "\n\n".join(parts), figs
