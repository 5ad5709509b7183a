"""``judge``: the MT-breaker paper's source-analysis prompt on the main texts through an LLM (``options.judge``):
the means of its 0..100 scores, the distinct topics it names and the answers it could not give. Opt-in: while it is
off its thresholds are left out of the report."""

from __future__ import annotations

from typing import Any

from mtgauntlet.validators.registry import MAIN_TEXT, Example, Metric, RecordSet, Rule, pair_example, rule

MEASURES = ("grammaticality", "naturalness", "word_rarity", "syntax_complexity")


@rule
class Judge(Rule):
    name = "judge"
    description = "an LLM judge's source analysis of the main texts (the MT-breaker prompt)"
    kinds = tuple(MAIN_TEXT)
    switch = "judge"
    reports_unchecked = False
    metrics = (
        Metric("judge_failures", "texts whose answer did not follow the prompt (left out of the means)"),
        Metric("judge_unique_topics", "distinct topics the judge names (the paper's diversity of topics)"),
        *(Metric(f"judge_{m}_mean", f"mean {m.replace('_', ' ')} (0..100) the judge gives") for m in MEASURES),
    )

    def measure(self, records: RecordSet) -> dict[str, Any]:
        if not (records.options.judge and records.texts):
            return {}
        from mtgauntlet.models import registry
        from mtgauntlet.validators.fluency import judged_measures, llm_judge

        measures = judged_measures(llm_judge(records.texts, registry.load("llm", records.options.judge)))
        out: dict[str, Any] = {"judge_failures": measures["failures"]}
        out.update({f"judge_{m}_mean": measures[m] for m in MEASURES if measures[m] is not None})
        out["judge_unique_topics"] = measures["unique_topics"] or 0
        return out

    @classmethod
    def example(cls) -> Example:
        rows = [{"src": "s", "ref": "r", "good": "g", "bad": "The cat sat on the mat.", "phenomenon": "num"}]
        return Example("smaug_pair", pair_example(rows))  # off without options.judge: nothing computed
