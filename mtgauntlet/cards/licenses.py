"""Where the released records come from, under which licence, and the licence a release derives from them.

Records carry ``source_dataset`` (a corpus reader's name, or the input file's name). That name is only a key:
a licence is never guessed from it. What a source is, and its licence, is known in two ways only:

- stated by the person releasing (``gauntlet release --provenance DATASET:license=ID`` with ``name=``, ``url=``,
  ``citation=``; a recipe's ``release.provenance``), or
- recognised by content: an input file given to the release (``--input-file``) whose sha256 is that of data
  mtgauntlet ships (:data:`KNOWN_DATA`; the hash of a shipped file is computed from the file itself).

Any other source is "unknown": the card says so and ``gauntlet release`` warns. The release licence follows the
most restrictive source; ``--license`` overrides the id, never the warnings. Licence ids are the Hub's
(:mod:`mtgauntlet.cards.hub_licenses`); ``other`` needs a name and a link.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from mtgauntlet.cards.hub_licenses import HUB_LICENSES, NON_COMMERCIAL_IDS, PERMISSIVE_IDS, SHARE_ALIKE_IDS
from mtgauntlet.errors import GauntletError
from mtgauntlet.fileio import sha256_file

PERMISSIVE, SHARE_ALIKE, NON_COMMERCIAL, RESEARCH_ONLY, OTHER = (
    "permissive",
    "share-alike",
    "non-commercial",
    "research-only",
    "other",
)
UNKNOWN = "unknown"
STATED = "stated by the releaser (--provenance)"
STATEMENT_FIELDS = ("name", "license", "url", "citation", "license_name", "license_link", "hub_id")
LINK_FIELDS = ("url", "license_link")  # shown as links in the card: http(s) only
HTTP_URL = re.compile(r"https?://[^\s<>\"'`]+")
# a Hugging Face Hub repo id, as huggingface_hub validates one: [namespace/]name, word characters, '-' and '.',
# neither starting nor ending with '-' or '.', no '--' or '..', the name at most 96 characters
HUB_ID = re.compile(r"(?:[\w](?:[\w.-]*[\w])?/)?[\w](?:[\w.-]{0,94}[\w])?", re.ASCII)


@dataclass(frozen=True)
class Provenance:
    """What one source dataset is: its name, Hub licence id, where it is published and how to cite it."""

    name: str
    license: str
    url: str = ""
    citation: str = ""
    license_name: str = ""  # with license "other"
    license_link: str = ""  # with license "other"
    hub_id: str = ""  # the source's Hub dataset id (source_datasets: extended|ID)
    original: bool = False  # written by the mtgauntlet authors (source_datasets: original)
    restriction: str = ""  # a family the licence id does not say (research-only terms under "other")
    origin: str = STATED

    @property
    def family(self) -> str:
        if self.restriction:
            return self.restriction
        if self.license in NON_COMMERCIAL_IDS:
            return NON_COMMERCIAL
        if self.license in SHARE_ALIKE_IDS:
            return SHARE_ALIKE
        return PERMISSIVE if self.license in PERMISSIVE_IDS else OTHER

    @property
    def licence_label(self) -> str:
        return self.license_name or self.license


@dataclass(frozen=True)
class KnownData:
    """A data file mtgauntlet recognises by its sha256, and the source_dataset names its readers give it."""

    describe: str
    datasets: tuple[str, ...]
    provenance: Provenance
    shipped: str = ""  # path inside the package: the hash is that of the shipped file
    sha256: str = ""  # a published file the project's docs describe (not shipped): its fixed hash


_WMT_TERMS: dict[str, Any] = dict(
    license="other", license_name="wmt-research-use", license_link="https://www2.statmt.org/", restriction=RESEARCH_ONLY
)

KNOWN_DATA: tuple[KnownData, ...] = (
    KnownData(
        "the sample shipped with mtgauntlet (mtgauntlet/data/sample_es_en.tsv)",
        ("sample_es_en",),
        Provenance(
            "mtgauntlet sample (original)",
            "apache-2.0",
            "",
            "Sentences written by the mtgauntlet authors (mtgauntlet/data/sample_es_en.tsv), Apache-2.0.",
            original=True,
        ),
        shipped="data/sample_es_en.tsv",
    ),
    KnownData(
        "FLORES-200 devtest, as vendored in Helsinki-NLP/OPUS-MT-testsets@ac0f19c (flores200_devtest.tsv.gz)",
        ("flores200-devtest", "flores200_devtest"),
        Provenance(
            "FLORES-200",
            "cc-by-sa-4.0",
            "https://github.com/facebookresearch/flores",
            "FLORES-200 (NLLB Team et al. 2022; Goyal et al. 2022), CC BY-SA 4.0.",
            hub_id="facebook/flores",
        ),
        sha256="9d4f3d09ba5f30c0167df4678b2c14c6d6db0210b9652a1c4f90b3ef9899f5e2",
    ),
    KnownData(
        "DEMETR, marzenakrp/demetr@9b31cfe (demetr_dev.jsonl.gz)",
        ("demetr", "demetr_dev"),
        Provenance(
            "DEMETR",
            "mit",
            "https://github.com/marzenakrp/demetr",
            "DEMETR (Karpinska et al., EMNLP 2022), MIT licence.",
        ),
        sha256="b9373746337f3603c313f5094c7023f29b4709131a4a7bf8939039ad63297f0a",
    ),
    KnownData(
        "WMT23 metrics-task MQM / DA+SQM segment scores, as vendored in wmt-conference/ErrorSpanAnnotation@e7f88b5 "
        "(wmt23_mtme_seg_scores.tsv.gz)",
        ("wmt23_mtme_seg_scores", "wmt23-mqm-mtme"),
        Provenance(
            "WMT23 metrics-task human judgments (MQM, DA+SQM)",
            url="https://www2.statmt.org/wmt23/",
            citation=(
                "Freitag et al. 2023, Results of WMT23 Metrics Shared Task; WMT metrics-task data, "
                "distributed by the WMT organisers for research use."
            ),
            **_WMT_TERMS,
        ),
        sha256="3733e532346913039169c2ef9738fb0a23233b6ba792152124716b54e6b1ba44",
    ),
    KnownData(
        "WMT24 general test set (wmt24_general_testset.tsv.gz)",
        ("wmt24-general", "wmt24_general_testset"),
        Provenance(
            "WMT24 general test set",
            url="https://www2.statmt.org/wmt24/",
            citation=("WMT shared-task test sets, distributed by the WMT organisers for research and evaluation use."),
            **_WMT_TERMS,
        ),
        sha256="fcae86fe065819e50ceb6e4f33f0a5c45bb072c7f3d99978442a5caa69f88574",
    ),
)


@lru_cache(maxsize=1)
def known_by_sha256() -> dict[str, KnownData]:
    package = Path(__file__).resolve().parents[1]
    out = {}
    for known in KNOWN_DATA:
        digest = known.sha256 or (sha256_file(package / known.shipped) if (package / known.shipped).is_file() else "")
        if digest:
            out[digest] = known
    return out


def recognise(digest: str) -> KnownData | None:
    return known_by_sha256().get(digest)


def check_license(license: str, name: str = "", link: str = "", what: str = "--license") -> None:
    """A Hub licence id; ``other`` needs its name and a link to its text."""
    if license not in HUB_LICENSES:
        raise GauntletError(
            f"{what} {license!r} is not a Hugging Face Hub licence id (e.g. apache-2.0, cc-by-4.0, "
            f"cc-by-sa-4.0, cc-by-nc-4.0, mit, other; {len(HUB_LICENSES)} ids in "
            "mtgauntlet/cards/hub_licenses.py)"
        )
    if license == "other" and not (name.strip() and link.strip()):
        raise GauntletError(
            f"{what} other needs the licence's name and a link to its text "
            "(--license-name and --license-link; in --provenance: license_name= and license_link=)"
        )


def parse_statements(specs: Sequence[str]) -> dict[str, Provenance]:
    """``--provenance DATASET:FIELD=VALUE`` statements (repeatable; one field each) -> provenance per dataset.

    FIELD is one of name, license, url, citation, license_name, license_link, hub_id; DATASET is the
    ``source_dataset`` the records carry (the card's licence table lists them). ``license`` is required."""
    fields: dict[str, dict[str, str]] = {}
    marker = re.compile(r"(.+?):(" + "|".join(f.replace("_", "[_-]") for f in STATEMENT_FIELDS) + ")=(.*)", re.S)
    for spec in specs:
        m = marker.fullmatch(spec)
        if m:
            dataset, name, value = m.group(1), m.group(2).replace("-", "_"), m.group(3)
        if not m or not dataset.strip():
            raise GauntletError(
                f"--provenance {spec!r}: expected DATASET:FIELD=VALUE with FIELD one of "
                f"{', '.join(STATEMENT_FIELDS)} (e.g. my_corpus:license=cc-by-4.0)"
            )
        if " ".join(value.split()) != value.strip() or not value.strip():
            raise GauntletError(f"--provenance {spec!r}: the value must be one non-empty line")
        _check_field(spec, name, value.strip())
        entry = fields.setdefault(dataset.strip(), {})
        if name in entry and entry[name] != value.strip():
            raise GauntletError(f"--provenance: {dataset.strip()}:{name} is given twice with different values")
        entry[name] = value.strip()
    out = {}
    for dataset, entry in fields.items():
        if "license" not in entry:
            raise GauntletError(f"--provenance: no licence stated for {dataset} (add {dataset}:license=ID)")
        check_license(
            entry["license"],
            entry.get("license_name", ""),
            entry.get("license_link", ""),
            f"--provenance {dataset}:license",
        )
        statement: dict[str, Any] = {"name": dataset, **entry}  # every field a statement sets is text
        out[dataset] = Provenance(**statement)
    return out


def is_hub_id(value: str) -> bool:
    """``value`` is written as a Hugging Face Hub dataset id (what ``source_datasets: extended|ID`` links to)."""
    return bool(HUB_ID.fullmatch(value)) and "--" not in value and ".." not in value


def hub_source(dataset: str, hub_id: str = "") -> str:
    """A source's ``source_datasets`` entry: ``extended|ID`` for a Hub id (stated, or the dataset's own name when
    it is written as one), else ``extended|other`` (a name from a file, ``x'); <img ...>``, is no Hub link)."""
    name = hub_id or dataset
    return f"extended|{name}" if is_hub_id(name) else "extended|other"


def _check_field(spec: str, name: str, value: str) -> None:
    if name in LINK_FIELDS and not HTTP_URL.fullmatch(value):
        raise GauntletError(f"--provenance {spec!r}: {name} must be an http(s) address (https://...)")
    if name == "hub_id" and not is_hub_id(value):
        raise GauntletError(
            f"--provenance {spec!r}: hub_id must be a Hugging Face Hub dataset id (NAME or "
            "ORG/NAME: letters, digits, '-', '_', '.')"
        )


def check_stated_datasets(stated: Mapping[str, Provenance], counts: Mapping[str | None, int]) -> None:
    """Every ``--provenance`` names a ``source_dataset`` the released records carry: a statement about a dataset
    the release does not contain (a typo, another build's source) would be silently ignored."""
    unknown = sorted(set(stated) - {d for d in counts if d})
    if unknown:
        have = ", ".join(sorted(str(d) for d in counts if d)) or "none recorded"
        raise GauntletError(
            f"--provenance {unknown[0]}: no released record comes from {unknown[0]!r} (the records' "
            f"source_dataset values: {have})"
        )


@dataclass
class LicenseDecision:
    license: str
    license_name: str = ""
    license_link: str = ""
    derived: str = ""  # what the sources imply (equal to license unless --license overrode it)
    overridden: bool = False
    sources: list[dict] = field(default_factory=list)  # dataset, records, licence, name, url, citation, origin
    warnings: list[str] = field(default_factory=list)

    def hub_fields(self) -> dict[str, str]:
        out = {"license": self.license}
        if self.license == "other":
            out.update(
                {k: v for k, v in (("license_name", self.license_name), ("license_link", self.license_link)) if v}
            )
        return out


def _combine(lics: list[Provenance]) -> tuple[Provenance | None, str | None]:
    """(the licence the release takes, or None for "other", and a conflict message or None)."""
    ids = sorted({x.licence_label for x in lics})
    if len(ids) == 1:
        return lics[0], None
    families = {x.family for x in lics}
    for fam in (RESEARCH_ONLY, NON_COMMERCIAL, SHARE_ALIKE, OTHER):
        strict = sorted({x.licence_label for x in lics if x.family == fam})
        if not strict:
            continue
        if len(strict) == 1 and not families - {fam, PERMISSIVE}:
            return next(x for x in lics if x.licence_label == strict[0]), None
        return None, f"the sources' licences ({', '.join(ids)}) cannot be combined into one"
    return None, f"the sources have different licences ({', '.join(ids)})"


def _source_row(dataset: str, n: int, p: Provenance | None) -> dict:
    if p is None:
        return {
            "dataset": dataset,
            "records": n,
            "license": UNKNOWN,
            "name": UNKNOWN,
            "url": "",
            "citation": "",
            "attribution": "",
            "origin": UNKNOWN,
        }
    return {
        "dataset": dataset,
        "records": n,
        "license": p.licence_label,
        "license_id": p.license,
        "license_link": p.license_link,
        "name": p.name,
        "url": p.url,
        "citation": p.citation,
        "attribution": p.citation or p.name,
        "origin": p.origin,
        "source_dataset": "original" if p.original else hub_source(dataset, p.hub_id),
    }


def decide_license(
    counts: Mapping[str | None, int],
    provenance: Mapping[str, Provenance] | None = None,
    override: str | None = None,
    override_name: str = "",
    override_link: str = "",
) -> LicenseDecision:
    """The release licence from the records per source_dataset (``None`` = not recorded) and what is known of
    each source (``provenance``: stated or recognised; any other source is unknown)."""
    provenance = provenance or {}
    if override:
        check_license(override, override_name, override_link)
    sources, known, warnings = [], [], []
    for dataset, n in sorted(counts.items(), key=lambda kv: (kv[0] is None, str(kv[0]))):
        name = dataset if dataset else "(not recorded)"
        p = provenance.get(dataset) if dataset else None
        sources.append(_source_row(name, n, p))
        if p is None:
            how = (
                (
                    f"state it with --provenance '{name}:license=ID' (and name=, url=, citation=), or give the input "
                    "file with --input-file if it is data mtgauntlet ships"
                )
                if dataset
                else "rebuild with a reader that records it"
            )
            warnings.append(f"{n} records come from {name}, whose provenance and licence are unknown: {how}")
            continue
        known.append(p)
        if p.family in (NON_COMMERCIAL, RESEARCH_ONLY):
            warnings.append(
                f"{n} records come from {p.name} ({p.licence_label}): "
                f"{'no commercial use' if p.family == NON_COMMERCIAL else 'research use only'}"
            )
    derived, name, link = UNKNOWN, "", ""
    if known and len(known) == len(sources):
        chosen, conflict = _combine(known)
        if conflict:
            warnings.append(conflict + "; pick the release licence with --license")
        elif chosen is not None:
            derived, name, link = chosen.license, chosen.license_name, chosen.license_link
    if override:
        return LicenseDecision(
            override,
            override_name.strip() if override == "other" else "",
            override_link.strip() if override == "other" else "",
            derived,
            True,
            sources,
            warnings,
        )
    return LicenseDecision(derived, name, link, derived, False, sources, warnings)


def with_origin(p: Provenance, origin: str) -> Provenance:
    return dataclasses.replace(p, origin=origin)
