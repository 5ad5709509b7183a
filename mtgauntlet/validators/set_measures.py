"""The surface measures of MT-breaker's Table 2 for a set of texts, in the definitions that reproduce the paper's
"Seeds" column (the defaults), with the toolkit's earlier definitions as named alternatives.

Words (``TOKENIZATIONS``):

- ``whitespace`` (default): ``text.split()``, punctuation attached ("dog." is one 4-character word). On keyed
  samples of 100 WMT24 English seeds (40 draws) it gives an average word length of 4.52-4.91 (mean 4.72; the
  paper: 4.69) and, lower-cased, about 1,560 unique words at the paper's 33.25 words per text (the paper: 1,566).
- ``word-runs``: ``\\w+`` runs (punctuation dropped, "don't" is two words): 4.26-4.46 and 1,137-1,393 on the same
  draws, below the paper; the validators' ``unique_words`` and ``text.words_mean`` count this way.

Unique words are counted lower-cased in both.

chrF diversity (``CHRF_REFERENCES``), 1 - chrF / 100 with the paper's chrF++ signature
(``nc:6|nw:2|case:mix|eff:yes|space:no``):

- ``all-others`` (default): each text is scored against all the other texts as its references, at corpus level,
  by sacrebleu's multi-reference rule (per text the reference of best sentence chrF is kept, the first in set order
  on a tie; character and word n-gram statistics are then summed over the texts). Passing each text's best
  reference as one stream gives the same statistics, hence the signature's ``nrefs:1`` (the paper's footnote 3).
  0.752-0.779 on the 40 draws (mean 0.766; the paper: 0.76).
- ``pairwise``: 1 - mean sentence chrF over ordered pairs i != j (0.890-0.904 on the same draws); the
  validators' ``chrf_diversity`` is this, with their own word order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from mtgauntlet.errors import UsageError

_WORD_RUN = re.compile(r"\w+", re.UNICODE)

TOKENIZATIONS: dict[str, Callable[[str], list[str]]] = {
    "whitespace": str.split,
    "word-runs": _WORD_RUN.findall,
}
CHRF_REFERENCES = ("all-others", "pairwise")
DEFAULT_TOKENIZATION = "whitespace"
DEFAULT_CHRF_REFERENCES = "all-others"


def tokenizer(name: str) -> Callable[[str], list[str]]:
    if name not in TOKENIZATIONS:
        raise UsageError(f"unknown word tokenization {name!r}; choose from {', '.join(TOKENIZATIONS)}")
    return TOKENIZATIONS[name]


def unique_words(texts: Sequence[str], tokenization: str = DEFAULT_TOKENIZATION) -> int:
    """Distinct lower-cased words of the set ("Diversity (words)")."""
    split = tokenizer(tokenization)
    return len({w.lower() for t in texts for w in split(t or "")})


def word_stats(texts: Sequence[str], tokenization: str = DEFAULT_TOKENIZATION) -> dict[str, float | None]:
    """Average words per text ("Avg. Word Count") and characters per word over every word of the set ("Avg. Word
    Length"); None for an empty set."""
    split = tokenizer(tokenization)
    words = [split(t or "") for t in texts]
    n_words = sum(len(w) for w in words)
    return {
        "avg_word_count": float(np.mean([len(w) for w in words])) if words else None,
        "avg_word_length": sum(len(x) for w in words for x in w) / n_words if n_words else None,
    }


def best_references(texts: Sequence[str], word_order: int = 2) -> list[int]:
    """Per text, the index of the other text with the highest sentence chrF against it as reference (sacrebleu's
    choice among several references: the first in set order on a tie)."""
    from mtgauntlet.validators.chrf_matrix import pairwise_chrf

    scores = pairwise_chrf(texts, word_order=word_order)
    np.fill_diagonal(scores, -1.0)  # chrF is >= 0: a text never is its own reference
    return [int(j) for j in scores.argmax(axis=1)]


def all_others_chrf(texts: Sequence[str], word_order: int = 2) -> tuple[float, str]:
    """Corpus chrF (0-100) of the texts, each against all the others as references, and sacrebleu's signature of
    the computation (the best reference of each text passed as one stream)."""
    from sacrebleu.metrics import CHRF

    texts = list(texts)
    chrf = CHRF(word_order=word_order)
    score = chrf.corpus_score(texts, [[texts[j] for j in best_references(texts, word_order)]])
    return float(score.score), str(chrf.get_signature())


def chrf_diversity(
    texts: Sequence[str],
    *,
    references: str = DEFAULT_CHRF_REFERENCES,
    word_order: int = 2,
    max_texts: int | None = 5000,
) -> dict[str, float | int | str]:
    """``chrf_diversity`` (1 - chrF / 100), ``chrf_texts`` (texts used: a uniform sample of ``max_texts`` on larger
    sets) and ``chrf_definition`` (the references rule and chrF's signature); NaN with fewer than two texts."""
    from mtgauntlet.validators.chrf_matrix import mean_pairwise_chrf, sample_texts

    if references not in CHRF_REFERENCES:
        raise UsageError(f"unknown chrF references {references!r}; choose from {', '.join(CHRF_REFERENCES)}")
    sample = sample_texts(texts, max_texts)
    if len(sample) < 2:
        return {"chrf_diversity": float("nan"), "chrf_texts": len(sample), "chrf_definition": references}
    if references == "pairwise":
        mean, used = mean_pairwise_chrf(sample, word_order=word_order, max_texts=None)
        definition = f"pairwise|chrF{'++' if word_order else ''}|nc:6|nw:{word_order}"
        return {"chrf_diversity": 1 - mean / 100, "chrf_texts": used, "chrf_definition": definition}
    score, signature = all_others_chrf(sample, word_order)
    return {"chrf_diversity": 1 - score / 100, "chrf_texts": len(sample), "chrf_definition": f"all-others|{signature}"}
