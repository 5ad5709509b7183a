"""What each method is, and how to cite its paper (used in dataset cards): a build method's text is in its record
(`mtgauntlet.builders.methods`), an imported set's here."""

from mtgauntlet.builders.methods import MethodText, methods

# The embedded 135M editor cannot follow MT-breaker's instruction (README, benchmarks/mtbreaker.py).
EMBEDDED_EDITOR_LIMITATION = (
    "**Built with the embedded editor (`smollm2`, SmolLM2-135M).** This model cannot follow the editing "
    "instruction: on 30 FLORES devtest seeds x 10 steps (`benchmarks/mtbreaker.py`, Apertium EN->ES, shipped QE) "
    "its usable edits averaged QE 87.8, easier than the seeds (80.4); an edit beat its seed on only 9 of 30 "
    "items, the selected texts score lower only because the seed takes part in the selection, and most "
    '"harder" edits are degenerate text rather than grammatical edits. Treat these records as a run of the '
    "pipeline, not as a challenge set; build with a capable `--llm` for real use."
)
EMBEDDED_GENERATOR_LIMITATION = (
    "**Built with the embedded LLM (`smollm2`, SmolLM2-135M).** This model cannot follow MT-breaker's "
    "instructions reliably (see the MT-breaker benchmark in the mtgauntlet README); texts it generated are a run "
    "of the pipeline, not a challenge set; build with a capable `--llm` for real use."
)

GENERIC = MethodText(title="mtgauntlet challenge set", description="Records built with mtgauntlet.")


def method_text(builder: str | None) -> MethodText:
    """What the card says of the method that made a build (``builder`` of its build.json): a build method's text
    (its record in `mtgauntlet.builders.methods`), an imported set's, or the generic text."""
    if builder in IMPORTED:
        return IMPORTED[builder]
    found = methods().get(builder or "")
    return found.text if found is not None else GENERIC


def embedded_llm_limitation(build: dict) -> str:
    """The limitation an MT-breaker / zero-shot build made with the embedded SmolLM2 must state ("" otherwise)."""
    llm = str((build.get("models") or {}).get("llm") or "smollm2")  # smollm2 is the default --llm
    if llm.split("#")[0] != "smollm2":
        return ""
    return {"mtbreaker": EMBEDDED_EDITOR_LIMITATION, "zeroshot": EMBEDDED_GENERATOR_LIMITATION}.get(
        build.get("builder") or "", ""
    )


DEMETR_BIBTEX = """@inproceedings{karpinska2022demetr,
  title = {{DEMETR}: Diagnosing Evaluation Metrics for Translation},
  author = {Karpinska, Marzena and Raj, Nishant and Thai, Katherine and Song, Yixiao and Gupta, Ankita and Iyyer, Mohit},
  booktitle = {Proceedings of the 2022 Conference on Empirical Methods in Natural Language Processing},
  year = {2022}
}"""

ACES_BIBTEX = """@inproceedings{amrhein2022aces,
  title = {{ACES}: Translation Accuracy Challenge Sets for Evaluating Machine Translation Metrics},
  author = {Amrhein, Chantal and Moghe, Nikita and Guillou, Liane},
  booktitle = {Proceedings of the Seventh Conference on Machine Translation (WMT)},
  year = {2022}
}"""

_IMPORTED = (
    "Records imported with `gauntlet import {fmt}` from a public set, texts byte for byte; the licence and "
    "sources below are the origin's."
)
IMPORTED: dict[str, MethodText] = {}
for _fmt, _title, _cite in (
    ("aces", "ACES challenge pairs (imported)", ACES_BIBTEX),
    ("span-aces", "Span-ACES challenge pairs (imported)", ACES_BIBTEX),
    ("demetr", "DEMETR challenge pairs (imported)", DEMETR_BIBTEX),
    ("wmt-challenge", "WMT challenge-set pairs (imported)", ""),
    ("mtme", "Human judgments, mt-metrics-eval layout (imported)", ""),
    ("human-table", "Human judgments, flat table (imported)", ""),
):
    IMPORTED[f"import:{_fmt}"] = MethodText(title=_title, description=_IMPORTED.format(fmt=_fmt), citation=_cite)
