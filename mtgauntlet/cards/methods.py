"""What each builder's method is, and how to cite its paper (used in dataset cards)."""

METHODS = {
    "smaug": {
        "title": "SMAUG critical-error challenge pairs",
        "description": (
            "Each record holds a source, a good hypothesis, a bad hypothesis and a reference. The bad hypothesis is "
            "the reference with exactly one critical error of a given phenomenon: a named entity (`ne`), a number "
            "(`num`), a negation (`neg`), inserted content (`ins`) or a deleted span (`del`). Each perturbation "
            "has a transformation phase and a validation phase (SMAUG, Alves et al. 2022); every record stores "
            "the changed span and each validation check's result."),
        "citation": """@inproceedings{alves-etal-2022-robust,
  title = {Robust {MT} Evaluation with Sentence-level Multilingual Augmentation},
  author = {Alves, Duarte and Rei, Ricardo and Farinha, Ana C and de Souza, Jos{\\'e} G. C. and Martins, Andr{\\'e} F. T.},
  booktitle = {Proceedings of the Seventh Conference on Machine Translation (WMT)},
  year = {2022}
}""",
        "limitations": (
            "Model-free perturbations (the offline default) are less fluent than mT5/Polyjuice ones: entity swaps "
            "draw from the corpus, clause insertion coordinates another reference's clause. Negation records are "
            "only NLI-validated when an NLI backend was configured (see `checks.nli_contradiction`; null = not "
            "checked). When `good_origin` is `reference`, the good hypothesis equals the reference."),
    },
    "mtbreaker": {
        "title": "MT-breaker difficult source texts",
        "description": (
            "Source texts edited step by step by an LLM until a target MT model translates them badly, judged by "
            "quality estimation; each record keeps the full trajectory (source, translations, QE per step)."),
        "citation": """@misc{mtbreaker2025,
  title = {{MT}-breaker: Generating Difficult Texts for Machine Translation},
  year = {2025}
}""",
        "limitations": "Difficulty is judged by an automatic QE model, not by humans; texts may drift from the seed's topic.",
    },
    "zeroshot": {
        "title": "Zero-shot difficult source texts",
        "description": "Texts an LLM generated in one shot to be hard to translate (MT-breaker paper baselines).",
        "citation": "(see the MT-breaker paper)",
        "limitations": "Difficulty is judged by an automatic QE model.",
    },
    "bandit": {
        "title": "Difficult topics found by bandit search",
        "description": (
            "Topics are arms; each pull samples a text for a topic, translates it and scores it with QE "
            "(difficulty = 100 - mean QE). The search spends a budget of pulls to find the hardest topics; "
            "records hold texts of the chosen topics with provenance."),
        "citation": "(see the bandit topic search paper)",
        "limitations": "Texts are retrieved from a local corpus offline; topic difficulty is estimated from few pulls.",
    },
    "subset": {
        "title": "Difficulty-selected subset",
        "description": (
            "A corpus scored by a source-only difficulty estimator; the B hardest texts are kept (Proietti et "
            "al. 2025, eq. 1), optionally stratified by domain or embedding cluster for diversity."),
        "citation": """@misc{proietti2025estimating,
  title = {Estimating Machine Translation Difficulty},
  author = {Proietti, Lorenzo and Perrella, Stefano and Zouhar, Vil{\\'e}m and Navigli, Roberto and Kocmi, Tom},
  year = {2025},
  eprint = {2508.10175},
  archivePrefix = {arXiv}
}""",
        "limitations": "Heuristic estimators (length, syntax, rarity) correlate only moderately with human difficulty (DEC).",
    },
}

GENERIC = {"title": "mtgauntlet challenge set", "description": "Records built with mtgauntlet.", "citation": "",
           "limitations": ""}
