"""The release's dataset card (README.md): the Hub dataset-card sections under its YAML metadata
(`mtgauntlet.cards.card_metadata`), filled from the release manifest, the record schemas and the records themselves."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from mtgauntlet.cards.card_metadata import card_data, card_yaml
from mtgauntlet.cards.columns import columns_section
from mtgauntlet.cards.markdown import md_code, md_fence, md_text
from mtgauntlet.cards.methods import GENERIC, embedded_llm_limitation, method_text
from mtgauntlet.cards.stats import languages, md_table, statistics
from mtgauntlet.errors import GauntletError
from mtgauntlet.release_layout import kind_sort_key, path_part


def structure_section(manifest: dict[str, Any]) -> str:
    configs = manifest["configs"]
    rows = [
        [
            md_code(c["config_name"]) + (" (default)" if c.get("default") else ""),
            md_code(c["kind"]),
            c["rows"],
            md_code(c["data_files"][0]["path"]),
        ]
        for c in configs
    ]
    first = configs[0]["config_name"]
    return f"""Each record kind has its own folder and configs (kinds have different columns); every config has one
`{configs[0]["data_files"][0]["split"]}` split.

{md_table(rows, ["config", "record kind", "records", "files"])}

```python
import datasets
ds = datasets.load_dataset("path/to/this/release", "{first}", split="test")      # this folder, or ORG/NAME on the Hub
ds = datasets.load_dataset("parquet", data_files="{configs[0]["data_files"][0]["path"]}", split="train")
```

Or in DuckDB: `gauntlet query --releases DIR "SELECT ... FROM <kind>"` (one view per kind)."""


def validation_section(manifest: dict[str, Any]) -> str:
    v = manifest.get("validation") or {}
    out = []
    for kind in manifest["kinds"]:
        entry = v.get(kind)
        if not entry:
            out.append(
                f"### `{kind}`: not validated\n\nNo validation report of these builds was attached to the "
                "release (`gauntlet validate BUILD --report DIR`, then `gauntlet release ... --report DIR`)."
            )
            continue
        failed = not all(r["passed"] for r in entry["reports"])
        status = "FAILED" if failed else ("partly validated" if entry["not_validated"] else "passed")
        lines = [f"### `{kind}`: {status}"]
        if entry["not_validated"]:
            lines.append("Not validated: the builds signed " + ", ".join(md_code(s) for s in entry["not_validated"]))
        lines += [_report_md(r) for r in entry["reports"]]
        out.append("\n\n".join(lines))
    notes = build_notes(manifest)
    if notes:
        out.append(
            "### Build notes\n\nWhat the builds themselves flagged (records not checked, reference-free "
            "modes, failures kept out of selection):\n\n" + "\n".join(f"- {md_text(n)}" for n in notes)
        )
    return "\n\n".join(out)


FAILURE_MEANINGS = {
    "llm_failures": "unusable LLM answers, asked again, then the step was skipped",
    "truncated": "LLM answers cut by the generation budget, never used",
    "mt_failures": "translations that failed: those steps or pulls are never selected",
    "qe_failures": "QE scores that failed: those steps or pulls are never selected",
    "sampler_truncated_failures": "sampler answers cut by the token limit (their complete snippets were used)",
}


def failure_counts(counts: Any) -> dict[str, int]:
    """Every failure counter of a build's ``counts``: those the runner nests under ``counts.failures`` (MT-breaker,
    zero-shot: ``llm_failures``, ``truncated``, ``mt_failures``, ``qe_failures``) and flat ``*_failures`` keys (the
    bandit), zeros included."""
    if not isinstance(counts, dict):
        return {}
    out = {str(k): v for k, v in counts.items() if str(k).endswith("_failures") and isinstance(v, int)}
    nested = counts.get("failures")
    if isinstance(nested, dict):
        out.update({str(k): v for k, v in nested.items() if isinstance(v, int)})
    return dict(sorted(out.items()))


def build_notes(manifest: dict[str, Any]) -> list[str]:
    """Each build's own flags (config.flags, e.g. SMAUG's NLI not checked) and non-zero failure counts."""
    notes = []
    for b in manifest["builds"]:
        who = b.get("builder") or "records"
        for why in ((b.get("config") or {}).get("flags") or {}).values():
            notes.append(f"{who}: {why}")
        for key, n in failure_counts(b.get("counts")).items():
            if n:
                notes.append(f"{who}: {key} = {n} ({FAILURE_MEANINGS.get(key, 'counted, never selected')})")
    return notes


def audit_link(manifest: dict[str, Any]) -> str:
    if not manifest.get("audit"):
        return ""
    return (
        f"\nThe audit page [`{manifest['audit']}`]({manifest['audit']}) (one self-contained HTML file, covered by "
        "the manifest) shows the validation, data-quality measures, examples with their edits and the method "
        "plots.\n"
    )


def recipe_section(manifest: dict[str, Any], release: Path) -> str:
    if not manifest.get("recipe"):
        return (
            "This release was made with individual commands (no recipe); the signatures above name each "
            "build's settings."
        )
    text = (release / manifest["recipe"]).read_text(encoding="utf-8")
    return (
        f"Made by `gauntlet run` from the recipe below ({md_code(manifest['recipe'])} in this release, covered "
        "by the manifest: every option explicit, every input pinned by sha256). `gauntlet reproduce <release>` "
        f"rebuilds it and reports whether the records are identical.\n\n{md_fence(text, 'yaml')}"
    )


def _report_md(r: dict[str, Any]) -> str:
    lines = [
        f"Report {md_code(r['report'])} ({'passed' if r['passed'] else 'FAILED'}) validated the builds signed "
        + ", ".join(md_code(s) for s in r["signatures"])
        + "."
    ]
    if r["failed_rules"]:
        lines.append("Failed: " + ", ".join(md_code(x) for x in r["failed_rules"]))
    lines += [f"Problem: {md_text(p)}" for p in r.get("problems", [])]
    if r["rules"]:
        lines.append(
            md_table(
                [
                    [md_code(x["metric"]), md_text(_num(x["value"])), md_text(x["threshold"]), md_text(x["status"])]
                    for x in r["rules"]
                ],
                ["metric", "value", "threshold", "status"],
            )
        )
    if r["metrics"]:
        lines.append(
            md_table([[md_code(k), md_text(_num(val))] for k, val in r["metrics"].items()], ["metric", "value"])
        )
    if r["not_checked"]:
        lines.append("Not checked: " + ", ".join(md_code(x) for x in r["not_checked"]))
    return "\n\n".join(lines)


def _num(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def licence_section(manifest: dict[str, Any]) -> str:
    lic = manifest["license"]
    how = (
        f"set with `--license` (the sources imply {md_code(lic['derived'])})"
        if lic["overridden"]
        else "derived from the licences of the source datasets below (the most restrictive applies)"
    )
    named = ""
    if lic.get("license_name"):
        named = (
            f" ({md_text(lic['license_name'])}"
            + (f", {md_text(lic['license_link'])}" if lic.get("license_link") else "")
            + ")"
        )
    rows = [
        [
            md_text(s["dataset"]),
            s["records"],
            md_text(s["license"]),
            md_text(s.get("name") or "-"),
            md_text(s.get("url") or "-"),
            md_text(s.get("citation") or s.get("attribution") or "-"),
            md_text(s.get("origin") or "-"),
        ]
        for s in lic["sources"]
    ]
    parts = [
        f"License: **{md_text(lic['license'])}**{named}, {how}.",
        "Each source's provenance is stated by the releaser (`--provenance`) or recognised by the sha256 of an "
        "input file that mtgauntlet ships; it is never guessed from a name. A source with neither is unknown.",
        md_table(rows, ["source dataset", "records", "licence", "source", "url", "citation", "how it is known"]),
    ]
    if lic["warnings"]:
        parts.append("\n".join(f"> **Warning:** {md_text(w)}." for w in lic["warnings"]))
    return "\n\n".join(parts)


def creation_section(manifest: dict[str, Any]) -> str:
    from mtgauntlet.core.usage_report import summary_line as usage_line

    builds = []
    for b in manifest["builds"]:
        models = ", ".join(f"{md_text(role)} {md_code(spec)}" for role, spec in sorted((b.get("models") or {}).items()))
        counts = b.get("counts") or {}
        skipped = {**(counts.get("rejected") or {}), **(counts.get("skipped") or {})}
        dropped = (
            ", not kept: " + ", ".join(f"{md_text(k)} {md_text(v)}" for k, v in sorted(skipped.items()))
            if skipped
            else ""
        )
        failures = failure_counts(counts)
        dropped += (", failures: " + ", ".join(f"{md_text(k)} {n}" for k, n in failures.items())) if failures else ""
        spent = usage_line(b.get("usage") or {})
        builds.append(
            f"- {md_code(b.get('builder') or 'records')} ({md_text(', '.join(b.get('kinds', [])))}): "
            f"{md_text(counts.get('produced', '?'))} records"
            + (f" from {md_text(counts['items'])} items" if counts.get("items") is not None else "")
            + f"{dropped}; models: {models or 'none'}"
            + (f"\n\n  API {md_code(spent)}" if spent else "")
            + f"\n\n  {md_code(b.get('signature') or '(no signature)')}"
        )
    duplicates = {k: n for k, n in (manifest.get("dropped_duplicates") or {}).items() if n}
    note = (
        (
            "\n\nDuplicate records (same id in several builds) were dropped, the first kept: "
            + ", ".join(f"{n} {k}" for k, n in sorted(duplicates.items()))
            + "."
        )
        if duplicates
        else ""
    )
    return (
        "Builds, each with its sacrebleu-style signature (it names everything needed to reproduce the build):"
        "\n\n" + "\n".join(builds) + note
    )


def write_card(
    release: Path,
    manifest: dict[str, Any],
    tables: dict[str, pa.Table],
    pretty_name: str | None = None,
    extra_figures: Sequence[Path] = (),
) -> list[Path]:
    """Write README.md and its plots; returns every file written (plots first)."""
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
    methods = [method_text(b) for b in builders] or [GENERIC]
    limitations = [m.limitations for m in methods if m.limitations]
    limitations += list(dict.fromkeys(x for b in manifest["builds"] if (x := embedded_llm_limitation(b))))
    pretty_name = " ".join(pretty_name.split()) if pretty_name else None  # one line: it is the card's title
    data = card_data(manifest, languages(tables), pretty_name, release, {k: t.schema for k, t in tables.items()})
    fig_md = "\n\n".join(f"![{path_part(p.stem)}](plots/{path_part(p.name)})" for p in figs)  # letters, digits, ._-
    citations = "\n\n".join(dict.fromkeys(m.citation for m in methods if m.citation))
    kinds = sorted(manifest["kinds"], key=kind_sort_key)
    body = f"""
# {md_text(data["pretty_name"])}

## Dataset Description

{md_text(manifest.get("description") or "")}

{chr(10).join(f"- **{m.title}.** {m.description}" for m in methods)}

- **Version:** {manifest["version"]} (immutable; `gauntlet publish` tags it `v{manifest["version"]}` on the Hub)
- **Built with:** mtgauntlet {manifest["mtgauntlet_version"]}
- **Records:** {manifest["total_rows"]} ({", ".join(f"{manifest['rows'][k]} {k}" for k in kinds)})
- **License:** {md_text(manifest["license"]["license"])} (see Licensing)

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

{md_fence(citations, "bibtex")}
"""
    path = release / "README.md"
    with open(path, "w", encoding="utf-8", newline="") as readme:  # as huggingface_hub's DatasetCard.save writes it
        readme.write(f"---\n{card_yaml(data)}\n---\n{body}")
    return figs + [path]
