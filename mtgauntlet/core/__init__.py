"""The bottom layer every other one uses, importing nothing above it (tests/test_layers.py): the progress display
(:mod:`~mtgauntlet.core.progress`), the usage ledger and budgets (:mod:`~mtgauntlet.core.usage`) and a build's usage
journal (:mod:`~mtgauntlet.core.usage_journal`), the answer cache
(:mod:`~mtgauntlet.core.cache`), public specs and secret redaction (:mod:`~mtgauntlet.core.spec_public`) and what
other layers use of a build without running one (:mod:`~mtgauntlet.core.builds`: the manifest's name, the
directory lock, the input digest, per-item randomness, the usage written to the manifest)."""
