"""Licences of the datasets records come from, and the licence a release derives from them.

Records carry ``source_dataset`` (set by the corpus readers: ``flores200-devtest``, ``wmt24-general``,
``demetr``, ``aces``, corpus names of the parallel samples, or the input file's name). The release
licence follows the most restrictive source; sources that forbid commercial use, allow research use
only, or whose licence is unknown make the release say so loudly (``--license`` overrides the id, never
the warnings).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping

PERMISSIVE, SHARE_ALIKE, NON_COMMERCIAL, RESEARCH_ONLY = "permissive", "share-alike", "non-commercial", "research-only"


@dataclass(frozen=True)
class SourceLicense:
    name: str
    license: str  # Hub licence id ("other" when none fits)
    family: str
    url: str
    attribution: str
    license_name: str = ""  # for license "other"


_WMT = SourceLicense(
    "WMT test sets", "other", RESEARCH_ONLY, "https://www2.statmt.org/",
    "WMT shared-task test sets, distributed by the WMT organisers for research and evaluation use.",
    license_name="wmt-research-use")

# (pattern on the normalised source_dataset name, licence): first match wins.
KNOWN: tuple[tuple[str, SourceLicense], ...] = (
    (r"flores", SourceLicense(
        "FLORES-200", "cc-by-sa-4.0", SHARE_ALIKE, "https://github.com/facebookresearch/flores",
        "FLORES-200 (NLLB Team et al. 2022; Goyal et al. 2022), CC BY-SA 4.0.")),
    (r"demetr", SourceLicense(
        "DEMETR", "mit", PERMISSIVE, "https://github.com/marzenakrp/demetr",
        "DEMETR (Karpinska et al., EMNLP 2022), MIT licence.")),
    (r"aces", SourceLicense(
        "ACES", "cc-by-nc-sa-4.0", NON_COMMERCIAL, "https://huggingface.co/datasets/nikitam/ACES",
        "ACES (Amrhein et al., WMT 2022), CC BY-NC-SA 4.0.")),
    (r"wmt\d\d|newstest\d{4}|generaltest", _WMT),
    (r"tatoeba", SourceLicense(
        "Tatoeba", "cc-by-2.0", PERMISSIVE, "https://tatoeba.org",
        "Tatoeba sentences (Tatoeba Translation Challenge test sets, Tiedemann 2020), CC BY 2.0 FR.")),
    (r"sample[-_]es[-_]en", SourceLicense(
        "mtgauntlet sample (original)", "apache-2.0", PERMISSIVE, "",
        "Sentences written by the mtgauntlet authors (mtgauntlet/data/sample_es_en.tsv), Apache-2.0.")),
)


def source_license(dataset: str | None) -> SourceLicense | None:
    if not dataset:
        return None
    key = dataset.strip().lower()
    for pattern, lic in KNOWN:
        if re.match(pattern, key):
            return lic
    return None


@dataclass
class LicenseDecision:
    license: str
    license_name: str = ""
    derived: str = ""  # what the sources imply (equal to license unless --license overrode it)
    overridden: bool = False
    sources: list[dict] = field(default_factory=list)  # dataset, records, licence, attribution
    warnings: list[str] = field(default_factory=list)

    def hub_fields(self) -> dict[str, str]:
        out = {"license": self.license}
        if self.license == "other" and self.license_name:
            out["license_name"] = self.license_name
        return out


def _combine(lics: list[SourceLicense]) -> tuple[str, str, str | None]:
    """(licence id, licence name, conflict message or None) for a set of known licences."""
    ids = sorted({x.license for x in lics})
    if len(ids) == 1:
        return ids[0], lics[0].license_name, None
    families = {x.family for x in lics}
    for fam in (RESEARCH_ONLY, NON_COMMERCIAL, SHARE_ALIKE):
        strict = sorted({x.license for x in lics if x.family == fam})
        if not strict:
            continue
        others = families - {fam, PERMISSIVE}
        if len(strict) == 1 and not others:
            lic = next(x for x in lics if x.license == strict[0])
            return lic.license, lic.license_name, None
        return "other", "mixed-source-licences", f"the sources' licences ({', '.join(ids)}) cannot be combined into one"
    return "other", "mixed-source-licences", f"the sources have different licences ({', '.join(ids)})"


def decide_license(counts: Mapping[str | None, int], override: str | None = None) -> LicenseDecision:
    """The release licence from the records per source_dataset (``None`` = not recorded)."""
    sources, known, warnings = [], [], []
    for dataset, n in sorted(counts.items(), key=lambda kv: (kv[0] is None, str(kv[0]))):
        lic = source_license(dataset)
        name = dataset if dataset else "(not recorded)"
        if lic is None:
            sources.append({"dataset": name, "records": n, "license": "unknown", "attribution": "", "url": ""})
            warnings.append(f"{n} records come from {name!s}, whose licence mtgauntlet does not know: check its "
                            "terms and pass --license")
            continue
        known.append(lic)
        sources.append({"dataset": name, "records": n, "license": lic.license_name or lic.license,
                        "attribution": lic.attribution, "url": lic.url, "name": lic.name})
        if lic.family in (NON_COMMERCIAL, RESEARCH_ONLY):
            warnings.append(f"{n} records come from {lic.name} ({lic.license_name or lic.license}): "
                            f"{'no commercial use' if lic.family == NON_COMMERCIAL else 'research use only'}")
    if known and len(known) == len(sources):
        derived, derived_name, conflict = _combine(known)
        if conflict:
            warnings.append(conflict + "; pick the release licence with --license")
    else:
        derived, derived_name = "other", "unknown"
    if override:
        return LicenseDecision(override, "", derived, True, sources, warnings)
    return LicenseDecision(derived, derived_name, derived, False, sources, warnings)
