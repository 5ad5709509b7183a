"""``smaug_records``: what SMAUG pairs say about themselves, no model needed: length ratios between source,
reference and hypotheses, spans that do not describe the edit, good hypotheses equal to the reference, negations
whose NLI check did not run."""

from __future__ import annotations

from typing import Any

from mtgauntlet.validators.checks import length_ratio_stats
from mtgauntlet.validators.record_checks import smaug_record_metrics
from mtgauntlet.validators.registry import Example, Metric, RecordSet, Rule, pair_example, rule

RATIOS = {"src_ref": ("src", "ref"), "ref_good": ("ref", "good"), "ref_bad": ("ref", "bad")}


@rule
class SmaugRecords(Rule):
    name = "smaug_records"
    description = "length ratios, span identity and good = reference of SMAUG pairs"
    kinds = ("smaug_pair",)
    metrics = (
        *(
            Metric(f"length_ratio.{name}_{stat}", doc)
            for name in RATIOS
            for stat, doc in (
                ("mean", f"mean character length ratio {RATIOS[name][1]} / {RATIOS[name][0]}"),
                ("outside_0.5_2", "share of records with that ratio outside [1/2, 2]"),
            )
        ),
        Metric(
            "smaug.span_mismatches",
            "records whose span does not describe the edit (ref[:start] + replacement + ref[end:] != bad)",
        ),
        Metric(
            "smaug.good_equals_ref_rate",
            "share of records whose good hypothesis equals the reference (up to whitespace)",
        ),
        Metric("smaug.nli.not_checked_rate", "share of `neg` records whose NLI contradiction check did not run"),
    )
    defaults = {"smaug.span_mismatches": {"max": 0}}

    def measure(self, records: RecordSet) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, (a, b) in RATIOS.items():
            out.update(length_ratio_stats(records.column(a), records.column(b), name))
        out.update(smaug_record_metrics(records.rows))
        return out

    @classmethod
    def example(cls) -> Example:
        ref = "I have two cats."
        bads = ("I have three cats.", "I have cats.")
        rows: list[dict[str, Any]] = [
            {
                "src": "Tengo dos gatos.",
                "ref": ref,
                "good": ref,
                "bad": bads[0],
                "phenomenon": "num",
                "span_start": 7,
                "span_end": 10,
                "span_replacement": "three",
            },
            {
                "src": "Tengo dos gatos.",
                "ref": ref,
                "good": "I own two cats.",
                "bad": bads[1],
                "phenomenon": "del",
                "span_start": 0,
                "span_end": 3,
                "span_replacement": "",
            },  # a span that does not give the bad text
        ]
        return Example(
            "smaug_pair",
            pair_example(rows),
            expect={
                "smaug.span_mismatches": 1,
                "smaug.good_equals_ref_rate": 0.5,
                "length_ratio.ref_bad_mean": sum((len(b) + 1) / (len(ref) + 1) for b in bads) / 2,
            },
        )
