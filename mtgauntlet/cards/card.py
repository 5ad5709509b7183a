"""The release's dataset card (README.md): huggingface_hub DatasetCard with Hub YAML metadata and sections
from the Hub dataset-card template, filled from the release manifest and the records themselves."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa

from mtgauntlet.cards import plots
from mtgauntlet.cards.methods import GENERIC, METHODS

SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                   (10_000_000, "1M<n<10M"))


def size_category(n: int) -> str:
    for bound, name in SIZE_CATEGORIES:
        if n < bound:
            return name
    return "10M<n<100M"


def card_data(manifest: dict[str, Any], languages: list[str], pretty_name: str | None):
    from huggingface_hub import DatasetCardData

    configs = sorted({f["config"] for f in manifest["files"]})
    cfg = [{"config_name": "all", "data_files": [{"split": "test", "path": "data/*/*.parquet"}], "default": True}]
    cfg += [{"config_name": c, "data_files": [{"split": "test", "path": f"data/{c}/*.parquet"}]} for c in configs
            if c != "all"]
    builders = sorted({b.get("builder") or "records" for b in manifest["builds"]})
    sources = sorted({d for b in manifest["builds"] for d in ((b.get("config") or {}).get("source_datasets") or [])})
    return DatasetCardData(
        pretty_name=pretty_name or manifest["name"], license=manifest.get("license", "cc-by-sa-4.0"),
        language=languages, task_categories=["translation"], size_categories=[size_category(manifest["total_rows"])],
        source_datasets=sources or ["original"], tags=["machine-translation", "challenge-set", "mtgauntlet", *builders],
        configs=cfg, mtgauntlet={"version": manifest["version"], "signatures": manifest["signatures"],
                                 "kinds": manifest["kinds"]})


def _table(rows: list[list[Any]], header: list[str]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def statistics(tables_by_kind: dict[str, list[pa.Table]], release: Path) -> tuple[str, list[str], list[Path]]:
    """Markdown statistics, the languages seen, and the plot files written under release/plots."""
    parts, langs, figs = [], set(), []
    for kind, tables in sorted(tables_by_kind.items()):
        t = pa.concat_tables(tables, promote_options="default")
        cols = t.column_names
        parts.append(f"### `{kind}`: {t.num_rows} records")
        if "src_lang" in cols:
            src, tgt = t.column("src_lang").to_pylist(), t.column("tgt_lang").to_pylist()
            langs.update(x.split("-")[0] for x in src + tgt if x)
            lp = Counter(f"{s}-{g}" for s, g in zip(src, tgt))
            parts.append(_table([[k, v] for k, v in sorted(lp.items())], ["language pair", "records"]))
        for col, label in (("phenomenon", "phenomenon"), ("topic", "topic"), ("domain", "domain"), ("method", "method")):
            if col in cols:
                c = Counter(t.column(col).to_pylist())
                top = sorted(c.items(), key=lambda kv: (-kv[1], str(kv[0])))[:25]
                parts.append(_table([[k, v] for k, v in top], [label, "records"]))
                if col == "phenomenon":
                    figs.append(plots.bar_counts([str(x) for x in t.column(col).to_pylist()],
                                                 release / "plots" / f"{kind}_phenomena.png", "records per phenomenon"))
        if "difficulty" in cols:
            vals = [v for v in t.column("difficulty").to_pylist() if v is not None]
            if vals:
                import numpy as np

                q = np.percentile(vals, [0, 25, 50, 75, 100])
                parts.append(_table([[f"{x:.3g}" for x in q]], ["min", "25%", "median", "75%", "max"]))
                figs.append(plots.histogram(vals, release / "plots" / f"{kind}_difficulty.png",
                                            "difficulty distribution", "difficulty (higher = harder)"))
    return "\n\n".join(parts), sorted(langs), figs


def validation_section(manifest: dict[str, Any]) -> str:
    v = manifest.get("validation")
    if not v:
        return "No validation report was attached to this release (run `gauntlet validate` and pass `--report`)."
    lines = [f"Overall: **{'passed' if v.get('passed') else 'FAILED'}**."]
    if v.get("failed_rules"):
        lines.append("Failed rules: " + ", ".join(f"`{r}`" for r in v["failed_rules"]))
    metrics = v.get("metrics") or {}
    if metrics:
        lines.append(_table([[k, f"{val:.4g}" if isinstance(val, float) else val] for k, val in sorted(metrics.items())],
                            ["metric", "value"]))
    return "\n\n".join(lines)


def write_card(release: Path, manifest: dict[str, Any], tables_by_kind: dict[str, list[pa.Table]],
               pretty_name: str | None = None, extra_figures: Sequence[Path] = ()) -> Path:
    from huggingface_hub import DatasetCard

    stats, langs, figs = statistics(tables_by_kind, release)
    for f in extra_figures:
        dst = release / "plots" / Path(f).name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, dst)
        figs.append(dst)
    builders = [b.get("builder") for b in manifest["builds"] if b.get("builder")]
    methods = [METHODS.get(b, GENERIC) for b in dict.fromkeys(builders)] or [GENERIC]
    data = card_data(manifest, langs, pretty_name)
    signatures = "\n".join(f"    {s}" for s in manifest["signatures"]) or "    (no signature)"
    models = "\n".join(f"- {role}: `{spec}`" for role, spec in sorted(manifest.get("models", {}).items())) or "- none"
    fig_md = "\n\n".join(f"![{p.stem}](plots/{p.name})" for p in figs)
    body = f"""
# {data.pretty_name}

## Dataset Description

{' '.join(m['description'] for m in methods)}

- **Version:** {manifest['version']} (immutable; `gauntlet publish` tags it `v{manifest['version']}` on the Hub)
- **Built with:** mtgauntlet {manifest['mtgauntlet_version']}
- **Records:** {manifest['total_rows']}
- **License:** {manifest.get('license')}

## Dataset Structure

Configs are language pairs (`all` = every file); each config has one `test` split. Load with
`datasets.load_dataset("parquet", data_files="data/*/*.parquet")` or by config name from the Hub.

## Dataset Creation

Build signatures (sacrebleu-style; they name everything needed to reproduce the build):

{signatures}

Models:

{models}

## Statistics

{stats}

{fig_md}

## Validation

{validation_section(manifest)}

## Bias, Risks, and Limitations

{' '.join(m['limitations'] for m in methods)}

## Citation

```bibtex
{chr(10).join(m['citation'] for m in methods)}
```
"""
    card = DatasetCard(f"---\n{data.to_yaml()}\n---\n{body}")
    path = release / "README.md"
    card.save(path)
    return path
