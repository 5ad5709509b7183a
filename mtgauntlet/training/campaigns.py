"""Human-judgment campaigns in ../shared/data, the unit of leave-one-campaign-out (LOCO) evaluation.

A *campaign* is one (dataset file, test set / year, protocol): the same annotators' guidelines, the
same kind of texts and one score scale. Two campaigns can judge the same source texts (WMT23 en-de was
annotated with MQM, DA+SQM and ESA): when a campaign is held out, every training item whose source text
occurs in it is dropped too, so a held-out score never rests on a source seen in training.

| campaign | file | test set | protocol | lps | level |
|---|---|---|---|---|---|
| gmqm-news20 | google-wmt-mqm | newstest2020 | MQM (Google) | en-de, zh-en | sentence (no translations stored) |
| gmqm-news21 | google-wmt-mqm | newstest2021 | MQM (Google) | en-de, zh-en | sentence |
| gmqm-ted21 | google-wmt-mqm | wmt21-ted | MQM (Google) | en-de, zh-en | sentence (TED talks) |
| wmt23-mqm | wmt23-mqm-mtme | WMT23 general | MQM | en-de, he-en, zh-en | en-de paragraphs, xx-en sentences |
| wmt23-da | wmt23-mqm-mtme | WMT23 general | DA+SQM | en-de, zh-en | en-de paragraphs, zh-en sentences |
| wmt23-esa | wmt23_ende_esa_campaign | WMT23 general | ESA (ESA-1) | en-de | paragraphs |

Human reference translations are left out as the readers do by default (the ESA table keeps its refA
row as one more system). The readers' rows are used unchanged; this module only adds ``campaign``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mtgauntlet.corpora.judgment_formats import read_google_mqm, read_wmt23_esa, read_wmt23_mtme


@dataclass(frozen=True)
class Campaign:
    name: str
    path: str  # relative to the shared data folder
    reader: str  # google-mqm | mtme-mqm | mtme-da | esa
    testset: str | None  # google MQM test set (item ids are "<testset>:<seg_id>")
    protocol: str
    level: str


CAMPAIGNS = (
    Campaign(
        "gmqm-news20", "google-wmt-mqm/google_mqm_seg_scores.tsv.gz", "google-mqm", "newstest2020", "mqm", "sentence"
    ),
    Campaign(
        "gmqm-news21", "google-wmt-mqm/google_mqm_seg_scores.tsv.gz", "google-mqm", "newstest2021", "mqm", "sentence"
    ),
    Campaign("gmqm-ted21", "google-wmt-mqm/google_mqm_seg_scores.tsv.gz", "google-mqm", "wmt21-ted", "mqm", "sentence"),
    Campaign(
        "wmt23-mqm",
        "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz",
        "mtme-mqm",
        None,
        "mqm",
        "paragraph (en-de), sentence (he-en, zh-en)",
    ),
    Campaign(
        "wmt23-da",
        "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz",
        "mtme-da",
        None,
        "da",
        "paragraph (en-de), sentence (zh-en)",
    ),
    Campaign("wmt23-esa", "wmt23-mqm-mtme/wmt23_ende_esa_campaign.tsv.gz", "esa", None, "esa", "paragraph"),
)


def _read(shared: Path, reader: str, path: str) -> list[dict]:
    full = shared / path
    if reader == "google-mqm":
        return read_google_mqm(full).rows
    if reader == "mtme-mqm":
        return read_wmt23_mtme(full, score="mqm").rows
    if reader == "mtme-da":
        return read_wmt23_mtme(full, score="da_sqm").rows
    if reader == "esa":
        return read_wmt23_esa(full).rows
    raise ValueError(f"unknown campaign reader {reader!r}")


def load_campaigns(shared: Path, names: list[str] | None = None) -> dict[str, list[dict]]:
    """campaign name -> judgment rows (lp, item_id, src, system, tgt, score, protocol, campaign)."""
    out: dict[str, list[dict]] = {}
    files: dict[tuple[str, str], list[dict]] = {}
    for c in CAMPAIGNS:
        if names and c.name not in names:
            continue
        key = (c.reader, c.path)
        if key not in files:
            files[key] = _read(Path(shared), c.reader, c.path)
        rows = files[key]
        if c.testset:
            rows = [r for r in rows if r["item_id"].split(":", 1)[0] == c.testset]
        out[c.name] = [dict(r, campaign=c.name) for r in rows]
    return out


def source_key(text: str) -> str:
    """Source identity across campaigns (blank runs collapsed)."""
    return " ".join(text.split())
