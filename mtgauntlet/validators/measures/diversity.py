"""``diversity``: how different the kind's main texts are from each other (pairwise chrF, embeddings, vocabulary)."""

from __future__ import annotations

from typing import Any

from mtgauntlet.validators import checks
from mtgauntlet.validators.registry import MAIN_TEXT, Example, Metric, RecordSet, Rule, pair_example, rule


@rule
class Diversity(Rule):
    name = "diversity"
    description = "pairwise chrF and embedding diversity of the main texts, and their vocabulary"
    kinds = tuple(MAIN_TEXT)
    metrics = (
        Metric("chrf_diversity", "1 - mean pairwise sentence chrF / 100 (chrF++ with `options.chrf_word_order: 2`)"),
        Metric("chrf_pairs_texts", "texts the pairwise chrF read (a sample of `options.max_texts` beyond that)"),
        Metric("embedding_diversity", "1 - mean pairwise cosine similarity of the texts' embeddings"),
        Metric("unique_words", "distinct lower-cased words of the main texts"),
    )
    defaults = {"chrf_diversity": {"min": 0.3}, "embedding_diversity": {"min": 0.05}}

    def measure(self, records: RecordSet) -> dict[str, Any]:
        texts, opts = records.texts, records.options
        if not texts:
            return {}
        out: dict[str, Any] = dict(
            checks.chrf_diversity(texts, word_order=opts.chrf_word_order, max_texts=opts.max_texts)
        )
        embedder = None
        if opts.embedder:
            from mtgauntlet.models import registry

            embedder = registry.load("embedder", opts.embedder)
        out["embedding_diversity"] = checks.embedding_diversity(texts, embedder, opts.max_texts)
        out["unique_words"] = checks.unique_words(texts)
        return out

    @classmethod
    def example(cls) -> Example:
        rows = [{"src": "s", "ref": "r", "good": "g", "bad": "The cat sat on the mat.", "phenomenon": "num"}] * 3
        return Example(
            "smaug_pair",
            pair_example([{**r, "source_id": str(i)} for i, r in enumerate(rows)]),
            expect={"chrf_diversity": 0.0, "chrf_pairs_texts": 3, "embedding_diversity": 0.0, "unique_words": 5},
        )
