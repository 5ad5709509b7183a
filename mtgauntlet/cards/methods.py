"""What each builder's method is, and how to cite its paper (used in dataset cards)."""

from mtgauntlet.phenomena import errors_in_words

MTBREAKER_BIBTEX = """@misc{zouhar2025generating,
  title = {Generating Difficult-to-Translate Texts},
  author = {Zouhar, Vil{\\'e}m and Xu, Wenda and Riley, Parker and Juraska, Juraj and Finkelstein, Mara and Freitag, Markus and Deutsch, Daniel},
  year = {2025},
  eprint = {2509.26592},
  archivePrefix = {arXiv},
  primaryClass = {cs.CL}
}"""

BANDIT_BIBTEX = """@misc{xu2025searching,
  title = {Searching for Difficult-to-Translate Test Examples at Scale},
  author = {Xu, Wenda and Zouhar, Vil{\\'e}m and Riley, Parker and Finkelstein, Mara and Freitag, Markus and Deutsch, Daniel},
  year = {2025},
  eprint = {2509.26619},
  archivePrefix = {arXiv},
  primaryClass = {cs.CL}
}"""

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

METHODS = {
    "smaug": {
        "title": "SMAUG critical-error challenge pairs",
        "description": (
            "Each record holds a source, a good hypothesis, a bad hypothesis and a reference. The bad hypothesis is "
            f"the reference with exactly one critical error of a given phenomenon: {errors_in_words()}. Each "
            "perturbation has a transformation phase and a validation phase (SMAUG, Alves et al. 2022); every record stores "
            "the changed span and each validation check's result."
        ),
        "citation": """@inproceedings{alves-etal-2022-robust,
  title = {Robust {MT} Evaluation with Sentence-level Multilingual Augmentation},
  author = {Alves, Duarte M. and Rei, Ricardo and Farinha, Ana C. and de Souza, Jos{\\'e} G. C. and Martins, Andr{\\'e} F. T.},
  booktitle = {Proceedings of the Seventh Conference on Machine Translation (WMT)},
  address = {Abu Dhabi, United Arab Emirates (Hybrid)},
  publisher = {Association for Computational Linguistics},
  year = {2022}
}""",
        "limitations": (
            "Model-free perturbations (the offline default) are less fluent than mT5/Polyjuice ones: entity swaps "
            "draw from the corpus, clause insertion coordinates another reference's clause. Negation records are "
            "only NLI-validated when an NLI backend was configured (see `checks.nli_contradiction`; null = not "
            "checked). When `good_origin` is `reference`, the good hypothesis equals the reference."
        ),
    },
    "mtbreaker": {
        "title": "MT-breaker difficult source texts",
        "description": (
            "Source texts edited step by step by an LLM until a target MT model translates them badly, judged by "
            "quality estimation; each record keeps the full trajectory (source, translations, QE per step)."
        ),
        "citation": MTBREAKER_BIBTEX,
        "limitations": "Difficulty is judged by an automatic QE model, not by humans; texts may drift from the seed's topic.",
    },
    "zeroshot": {
        "title": "Zero-shot difficult source texts",
        "description": "Texts an LLM generated in one shot to be hard to translate (MT-breaker paper baselines).",
        "citation": MTBREAKER_BIBTEX,
        "limitations": "Difficulty is judged by an automatic QE model.",
    },
    "bandit": {
        "title": "Difficult topics found by bandit search",
        "description": (
            "Topics are arms; each pull samples a text for a topic, translates it and scores it with QE "
            "(difficulty = 100 - mean QE). The search spends a budget of pulls to find the hardest topics; "
            "records hold texts of the chosen topics with provenance."
        ),
        "citation": BANDIT_BIBTEX,
        "limitations": "Texts are retrieved from a local corpus offline; topic difficulty is estimated from few pulls.",
    },
    "subset": {
        "title": "Difficulty-selected subset",
        "description": (
            "A corpus scored by a source-only difficulty estimator; the B hardest texts are kept (Proietti et "
            "al. 2025, eq. 1), optionally stratified by domain or embedding cluster for diversity."
        ),
        "citation": """@misc{proietti2025estimating,
  title = {Estimating Machine Translation Difficulty},
  author = {Proietti, Lorenzo and Perrella, Stefano and Zouhar, Vil{\\'e}m and Navigli, Roberto and Kocmi, Tom},
  year = {2025},
  eprint = {2508.10175},
  archivePrefix = {arXiv},
  primaryClass = {cs.CL}
}""",
        "limitations": "Heuristic estimators (length, syntax, rarity) correlate only moderately with human difficulty (DEC).",
    },
}

GENERIC = {
    "title": "mtgauntlet challenge set",
    "description": "Records built with mtgauntlet.",
    "citation": "",
    "limitations": "",
}


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
for _fmt, _title, _cite in (
    ("aces", "ACES challenge pairs (imported)", ACES_BIBTEX),
    ("span-aces", "Span-ACES challenge pairs (imported)", ACES_BIBTEX),
    ("demetr", "DEMETR challenge pairs (imported)", DEMETR_BIBTEX),
    ("wmt-challenge", "WMT challenge-set pairs (imported)", ""),
    ("mtme", "Human judgments, mt-metrics-eval layout (imported)", ""),
    ("human-table", "Human judgments, flat table (imported)", ""),
):
    METHODS[f"import:{_fmt}"] = {
        "title": _title,
        "description": _IMPORTED.format(fmt=_fmt),
        "citation": _cite,
        "limitations": "",
    }
