"""The release's dataset card (README.md): Hub YAML metadata and the Hub dataset-card sections, filled
from the release manifest, the record schemas and the records themselves."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa

from mtgauntlet.cards.columns import columns_section
from mtgauntlet.cards.methods import GENERIC, METHODS, embedded_llm_limitation
from mtgauntlet.cards.stats import languages, md_table, statistics
from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.layout import hub_configs, kind_sort_key, path_part

SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                   (10_000_000, "1M<n<10M"))


def size_category(n: int) -> str:
    for bound, name in SIZE_CATEGORIES:
        if n < bound:
            return name
    return "10M<n<100M"


def card_data(manifest: dict[str, Any], langs: list[str], pretty_name: str | None):
    from huggingface_hub import DatasetCardData

    lic = manifest["license"]
    builders = sorted({b.get("builder") or "records" for b in manifest["builds"]})
    sources = sorted({"original" if s.get("name", "").startswith("mtgauntlet sample") else s["dataset"]
                      for s in lic["sources"]})
    extra = {"license_name": lic["license_name"]} if lic["license"] == "other" and lic.get("license_name") else {}
    return DatasetCardData(
        pretty_name=pretty_name or manifest["name"], license=lic["license"], language=langs,
        task_categories=["translation"], size_categories=[size_category(manifest["total_rows"])],
        source_datasets=sources or ["original"], tags=["machine-translation", "challenge-set", "mtgauntlet", *builders],
        configs=hub_configs(manifest["configs"]), **extra,
        mtgauntlet={"name": manifest["name"], "version": manifest["version"], "signatures": manifest["signatures"],
                    "kinds": manifest["kinds"]})


def structure_section(manifest: dict[str, Any]) -> str:
    configs = manifest["configs"]
    rows = [[f"`{c['config_name']}`" + (" (default)" if c.get("default") else ""), f"`{c['kind']}`", c["rows"],
             f"`{c['data_files'][0]['path']}`"] for c in configs]
    first = configs[0]["config_name"]
    return f"""Each record kind has its own folder and configs (kinds have different columns); every config has one
`{configs[0]['data_files'][0]['split']}` split.

{md_table(rows, ["config", "record kind", "records", "files"])}

```python
import datasets
ds = datasets.load_dataset("path/to/this/release", "{first}", split="test")      # this folder, or ORG/NAME on the Hub
ds = datasets.load_dataset("parquet", data_files="{configs[0]['data_files'][0]['path']}", split="train")
```

Or in DuckDB: `gauntlet query --releases DIR "SELECT ... FROM <kind>"` (one view per kind)."""


def validation_section(manifest: dict[str, Any]) -> str:
    v = manifest.get("validation") or {}
    out = []
    for kind in manifest["kinds"]:
        entry = v.get(kind)
        if not entry:
            out.append(f"### `{kind}`: not validated\n\nNo validation report of these builds was attached to the "
                       "release (`gauntlet validate BUILD --report DIR`, then `gauntlet release ... --report DIR`).")
            continue
        failed = not all(r["passed"] for r in entry["reports"])
        status = "FAILED" if failed else ("partly validated" if entry["not_validated"] else "passed")
        lines = [f"### `{kind}`: {status}"]
        if entry["not_validated"]:
            lines.append("Not validated: the builds signed " + ", ".join(f"`{s}`" for s in entry["not_validated"]))
        lines += [_report_md(r) for r in entry["reports"]]
        out.append("\n\n".join(lines))
    notes = build_notes(manifest)
    if notes:
        out.append("### Build notes\n\nWhat the builds themselves flagged (records not checked, reference-free "
                   "modes, failures kept out of selection):\n\n" + "\n".join(f"- {n}" for n in notes))
    return "\n\n".join(out)


def build_notes(manifest: dict[str, Any]) -> list[str]:
    """Each build's own flags (config.flags, e.g. SMAUG's NLI not checked) and failure counts."""
    notes = []
    for b in manifest["builds"]:
        who = f"`{b.get('builder') or 'records'}`"
        for why in ((b.get("config") or {}).get("flags") or {}).values():
            notes.append(f"{who}: {why}")
        for key, n in sorted((b.get("counts") or {}).items()):
            if key.endswith("_failures") and n:
                notes.append(f"{who}: {key} = {n} (steps or pulls without a valid score are never selected)")
    return notes


def audit_link(manifest: dict[str, Any]) -> str:
    if not manifest.get("audit"):
        return ""
    return (f"\nThe audit page [`{manifest['audit']}`]({manifest['audit']}) (one self-contained HTML file, covered by "
            "the manifest) shows the validation, data-quality measures, examples with their edits and the method "
            "plots.\n")


def recipe_section(manifest: dict[str, Any], release: Path) -> str:
    if not manifest.get("recipe"):
        return ("This release was made with individual commands (no recipe); the signatures above name each "
                "build's settings.")
    text = (release / manifest["recipe"]).read_text(encoding="utf-8")
    return (f"Made by `gauntlet run` from the recipe below (`{manifest['recipe']}` in this release, covered by the "
            "manifest: every option explicit, every input pinned by sha256). `gauntlet reproduce <release>` rebuilds "
            f"it and reports whether the records are identical.\n\n```yaml\n{text.rstrip()}\n```")


def _report_md(r: dict[str, Any]) -> str:
    lines = [f"Report `{r['report']}` ({'passed' if r['passed'] else 'FAILED'}) validated the builds signed "
             + ", ".join(f"`{s}`" for s in r["signatures"]) + "."]
    if r["failed_rules"]:
        lines.append("Failed: " + ", ".join(f"`{x}`" for x in r["failed_rules"]))
    lines += [f"Problem: {p}" for p in r.get("problems", [])]
    if r["rules"]:
        lines.append(md_table([[f"`{x['metric']}`", _num(x["value"]), x["threshold"], x["status"]] for x in r["rules"]],
                              ["metric", "value", "threshold", "status"]))
    if r["metrics"]:
        lines.append(md_table([[f"`{k}`", _num(val)] for k, val in r["metrics"].items()], ["metric", "value"]))
    if r["not_checked"]:
        lines.append("Not checked: " + ", ".join(f"`{x}`" for x in r["not_checked"]))
    return "\n\n".join(lines)


def _num(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def licence_section(manifest: dict[str, Any]) -> str:
    lic = manifest["license"]
    how = (f"set with `--license` (the sources imply `{lic['derived']}`)" if lic["overridden"]
           else "derived from the licences of the source datasets below (the most restrictive applies)")
    rows = [[s["dataset"], s["records"], s["license"], s.get("attribution") or "-"] for s in lic["sources"]]
    parts = [f"License: **{lic['license']}**" + (f" ({lic['license_name']})" if lic.get("license_name") else "")
             + f", {how}.", md_table(rows, ["source dataset", "records", "licence", "attribution"])]
    if lic["warnings"]:
        parts.append("\n".join(f"> **Warning:** {w}." for w in lic["warnings"]))
    return "\n\n".join(parts)


def creation_section(manifest: dict[str, Any]) -> str:
    builds = []
    for b in manifest["builds"]:
        models = ", ".join(f"{role} `{spec}`" for role, spec in sorted((b.get("models") or {}).items())) or "none"
        counts = b.get("counts") or {}
        skipped = {**(counts.get("rejected") or {}), **(counts.get("skipped") or {})}
        dropped = (", not kept: " + ", ".join(f"{k} {v}" for k, v in sorted(skipped.items()))) if skipped else ""
        builds.append(f"- `{b.get('builder') or 'records'}` ({', '.join(b.get('kinds', []))}): "
                      f"{counts.get('produced', '?')} records"
                      + (f" from {counts['items']} items" if counts.get("items") is not None else "") + f"{dropped}; "
                      f"models: {models}\n\n      {b.get('signature') or '(no signature)'}")
    dropped = {k: n for k, n in (manifest.get("dropped_duplicates") or {}).items() if n}
    note = ("\n\nDuplicate records (same id in several builds) were dropped, the first kept: "
            + ", ".join(f"{n} {k}" for k, n in sorted(dropped.items())) + ".") if dropped else ""
    return ("Builds, each with its sacrebleu-style signature (it names everything needed to reproduce the build):"
            "\n\n" + "\n".join(builds) + note)


def write_card(release: Path, manifest: dict[str, Any], tables: dict[str, pa.Table],
               pretty_name: str | None = None, extra_figures: Sequence[Path] = ()) -> list[Path]:
    """Write README.md and its plots; returns every file written (plots first)."""
    from huggingface_hub import DatasetCard

    qe_specs: dict[str, list[str]] = {}
    for b in manifest["builds"]:
        qe = (b.get("models") or {}).get("qe")
        for kind in b.get("kinds", []):
            if qe and qe not in qe_specs.setdefault(kind, []):
                qe_specs[kind].append(qe)
    stats, figs = statistics(tables, qe_specs, release)
    for f in extra_figures:
        if Path(f).suffix.lower() != ".png":
            raise GauntletError(f"{f}: figures must be PNG files")
        dst = release / "plots" / f"{path_part(Path(f).stem)}.png"  # the name reaches the card's Markdown
        if dst.exists():
            raise GauntletError(f"{f}: a figure named {dst.name} is already in the release")
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, dst)
        figs.append(dst)
    builders = list(dict.fromkeys(b.get("builder") for b in manifest["builds"] if b.get("builder")))
    methods = [METHODS.get(b, GENERIC) for b in builders] or [GENERIC]
    limitations = [m["limitations"] for m in methods if m["limitations"]]
    limitations += list(dict.fromkeys(x for b in manifest["builds"] if (x := embedded_llm_limitation(b))))
    pretty_name = " ".join(pretty_name.split()) if pretty_name else None  # one line: it is the card's title
    data = card_data(manifest, languages(tables), pretty_name)
    fig_md = "\n\n".join(f"![{p.stem}](plots/{p.name})" for p in figs)
    citations = "\n\n".join(dict.fromkeys(m["citation"] for m in methods if m["citation"]))
    kinds = sorted(manifest["kinds"], key=kind_sort_key)
    body = f"""
# {data.pretty_name}

## Dataset Description

{manifest.get('description') or ''}

{chr(10).join(f"- **{m['title']}.** {m['description']}" for m in methods)}

- **Version:** {manifest['version']} (immutable; `gauntlet publish` tags it `v{manifest['version']}` on the Hub)
- **Built with:** mtgauntlet {manifest['mtgauntlet_version']}
- **Records:** {manifest['total_rows']} ({', '.join(f"{manifest['rows'][k]} {k}" for k in kinds)})
- **License:** {manifest['license']['license']} (see Licensing)

## Dataset Structure

{structure_section(manifest)}

### Columns

Generated from the record schemas (`mtgauntlet/schema.py`), the single source of truth for the files.

{columns_section({k: tables[k].schema for k in kinds})}

## Dataset Creation

{creation_section(manifest)}

### Recipe

{recipe_section(manifest, release)}

## Statistics

{stats}

{fig_md}

## Validation

{validation_section(manifest)}
{audit_link(manifest)}
## Licensing

{licence_section(manifest)}

## Bias, Risks, and Limitations

{chr(10).join(f"- {x}" for x in limitations) or "- None recorded."}

## Citation

```bibtex
{citations}
```
"""
    path = release / "README.md"
    DatasetCard(f"---\n{data.to_yaml()}\n---\n{body}").save(path)
    return figs + [path]
