"""The licence ids the Hugging Face Hub accepts in a card's ``license:`` field, embedded (no network).

From the Hub documentation's licence table (huggingface/hub-docs, docs/hub/repositories-licenses.md, the region
between ``region licenses`` and ``endregion``), plus the ids added to the Hub since (EUPL 1.2, the Llama 3 and 4
community licences, Apple's and Intel's research licences, FAIR's non-commercial research licence).
``other`` needs a ``license_name`` and a ``license_link`` in the card.
"""

from __future__ import annotations

HUB_LICENSES: tuple[str, ...] = (
    "apache-2.0", "mit", "openrail", "bigscience-openrail-m", "creativeml-openrail-m", "bigscience-bloom-rail-1.0",
    "bigcode-openrail-m", "afl-3.0", "artistic-2.0", "bsl-1.0", "bsd", "bsd-2-clause", "bsd-3-clause",
    "bsd-3-clause-clear", "c-uda", "cc", "cc0-1.0", "cc-by-2.0", "cc-by-2.5", "cc-by-3.0", "cc-by-4.0",
    "cc-by-sa-3.0", "cc-by-sa-4.0", "cc-by-nc-2.0", "cc-by-nc-3.0", "cc-by-nc-4.0", "cc-by-nd-4.0",
    "cc-by-nc-nd-3.0", "cc-by-nc-nd-4.0", "cc-by-nc-sa-2.0", "cc-by-nc-sa-3.0", "cc-by-nc-sa-4.0",
    "cdla-sharing-1.0", "cdla-permissive-1.0", "cdla-permissive-2.0", "wtfpl", "ecl-2.0", "epl-1.0", "epl-2.0",
    "etalab-2.0", "eupl-1.1", "eupl-1.2", "agpl-3.0", "gfdl", "gpl", "gpl-2.0", "gpl-3.0", "lgpl", "lgpl-2.1",
    "lgpl-3.0", "isc", "lppl-1.3c", "ms-pl", "apple-ascl", "apple-amlr", "mpl-2.0", "odc-by", "odbl", "openrail++",
    "osl-3.0", "postgresql", "ofl-1.1", "ncsa", "unlicense", "zlib", "pddl", "lgpl-lr", "deepfloyd-if-license",
    "fair-noncommercial-research-license", "intel-research", "llama2", "llama3", "llama3.1", "llama3.2",
    "llama3.3", "llama4", "gemma", "unknown", "other",
)

# what each id allows, for combining the licences of several sources (ids not listed: "other")
NON_COMMERCIAL_IDS = frozenset(x for x in HUB_LICENSES if "-nc" in x) | {
    "fair-noncommercial-research-license", "intel-research", "deepfloyd-if-license", "apple-amlr", "c-uda"}
SHARE_ALIKE_IDS = frozenset(x for x in HUB_LICENSES if "-sa-" in x and "-nc" not in x) | {
    "cdla-sharing-1.0", "odbl", "gpl", "gpl-2.0", "gpl-3.0", "agpl-3.0", "lgpl", "lgpl-2.1", "lgpl-3.0", "lgpl-lr",
    "gfdl", "epl-1.0", "epl-2.0", "mpl-2.0", "eupl-1.1", "eupl-1.2", "osl-3.0"}
PERMISSIVE_IDS = frozenset({
    "apache-2.0", "mit", "afl-3.0", "artistic-2.0", "bsl-1.0", "bsd", "bsd-2-clause", "bsd-3-clause",
    "bsd-3-clause-clear", "cc0-1.0", "cc-by-2.0", "cc-by-2.5", "cc-by-3.0", "cc-by-4.0", "cdla-permissive-1.0",
    "cdla-permissive-2.0", "wtfpl", "ecl-2.0", "etalab-2.0", "isc", "ms-pl", "odc-by", "postgresql", "ncsa",
    "unlicense", "zlib", "pddl", "ofl-1.1", "lppl-1.3c"})
