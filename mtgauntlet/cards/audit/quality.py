"""Data-quality measures of the MT-breaker paper's Table 2, per record kind, where they apply.

Diversity (embedding, chrF++, unique words, topics), average word count and word length, word rarity,
syntax complexity and LM naturalness. Numbers that ``gauntlet validate`` computes are taken from its report
(same functions, same values); the others reuse the project's estimators: word rarity is
:class:`~mtgauntlet.models.difficulty.RarityDifficulty` (8 − wordfreq Zipf frequency, averaged over a text's
words; the paper asks an LLM for 0–100 instead), syntax complexity is
:class:`~mtgauntlet.models.difficulty.SyntaxDifficulty` (dependency-tree height, spaCy).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from mtgauntlet.validators.checks import _WORD
from mtgauntlet.validators.rules import Options
from mtgauntlet.validators.set_measures import chrf_diversity, unique_words, word_stats

# Columns written in the target language (so rarity and syntax use tgt_lang); every other text is a source.
TARGET_SIDE = {"smaug_pair": {"bad", "good", "ref"}}


def measure(label: str, value: Any, how: str, key: str) -> dict[str, Any]:
    return {"key": key, "label": label, "value": value, "how": how}


def avg_word_length(texts: Sequence[str]) -> float:
    """Mean characters per whitespace word over every word of the set (the paper's Seeds column:
    :mod:`mtgauntlet.validators.set_measures`)."""
    value = word_stats(texts)["avg_word_length"]
    return float("nan") if value is None else value


def _per_language(estimator_spec: str, texts: Sequence[str], langs: Sequence[str]) -> tuple[float, list[str]]:
    """Mean of a difficulty estimator over the texts, each scored in its own language; notes for skipped ones."""
    from mtgauntlet.models.difficulty import mean_by_language

    return mean_by_language(estimator_spec, texts, langs)


def kind_quality(
    kind: str, table: pa.Table, text_col: str | None, metrics: dict[str, Any], options: Options
) -> list[dict[str, Any]]:
    """The Table 2 measures of one kind's main text column (``metrics``: the kind's validation metrics; the
    validation options give chrF's word order and the sample size of pairwise and per-text measures)."""
    from mtgauntlet.validators.chrf_matrix import sample_texts

    if not text_col or text_col not in table.column_names:
        return []
    texts = [t or "" for t in table.column(text_col).to_pylist()]
    lang_col = "tgt_lang" if text_col in TARGET_SIDE.get(kind, ()) else "src_lang"
    langs = table.column(lang_col).to_pylist() if lang_col in table.column_names else ["und"] * len(texts)
    out = [
        measure(
            "Diversity (embedding)",
            metrics.get("embedding_diversity"),
            "1 − mean pairwise cosine similarity of e5 embeddings (validate)",
            "embedding_diversity",
        )
    ]
    chrfpp = chrf_diversity(texts, word_order=2, max_texts=options.max_texts)
    out.append(
        measure(
            "Diversity (chrF++)",
            chrfpp["chrf_diversity"],
            "1 − chrF++ / 100, each text against all the others as references (" + str(chrfpp["chrf_definition"]) + ")",
            "chrfpp_diversity",
        )
    )
    out.append(
        measure(
            "Diversity (unique words)", unique_words(texts), "distinct lower-cased whitespace words", "unique_words"
        )
    )
    if "unique_topics" in metrics:
        out.append(
            measure("Diversity (topics)", metrics["unique_topics"], "distinct topic labels (validate)", "unique_topics")
        )
    counts = word_stats(texts)
    out.append(measure("Avg. word count", counts["avg_word_count"], "whitespace words per text", "avg_word_count"))
    out.append(measure("Avg. word length", avg_word_length(texts), "characters per whitespace word", "avg_word_length"))
    sample = sample_texts(list(zip(texts, langs)), options.max_texts)  # spaCy on 100k texts would take long
    on = "" if len(sample) == len(texts) else f" (on a sample of {len(sample)} texts)"
    rarity, notes = _per_language("rarity", [t for t, _ in sample], [lang for _, lang in sample])
    out.append(
        measure(
            "Word rarity",
            rarity,
            "mean over words of 8 − wordfreq Zipf frequency (higher = rarer)"
            + on
            + ("; " + "; ".join(notes) if notes else ""),
            "word_rarity",
        )
    )
    syntax, notes = _per_language("syntax", [t for t, _ in sample], [lang for _, lang in sample])
    out.append(
        measure(
            "Syntax complexity",
            syntax,
            "mean dependency-tree height (spaCy)" + on + ("; " + "; ".join(notes) if notes else ""),
            "syntax_complexity",
        )
    )
    if "lm_naturalness_mean" in metrics:
        out.append(
            measure(
                "LM naturalness",
                metrics["lm_naturalness_mean"],
                "embedded SmolLM2 mean token log-prob, calibrated 0–100 (validate --lm)",
                "lm_naturalness_mean",
            )
        )
    else:
        out.append(measure("LM naturalness", None, "not computed (audit or validate with --lm)", "lm_naturalness_mean"))
    for key, label in (
        ("judge_grammaticality_mean", "Grammaticality (LLM judge)"),
        ("judge_naturalness_mean", "Naturalness (LLM judge)"),
        ("judge_word_rarity_mean", "Word rarity (LLM judge, 0–100)"),
        ("judge_syntax_complexity_mean", "Syntax complexity (LLM judge, 0–100)"),
    ):
        if key in metrics:
            out.append(measure(label, metrics[key], "MT-breaker source-analysis prompt (validate options.judge)", key))
    if "judge_unique_topics" in metrics:
        failed = metrics.get("judge_failures") or 0
        out.append(
            measure(
                "Diversity (topics, LLM judge)",
                metrics["judge_unique_topics"],
                "distinct topics the source-analysis prompt names (validate options.judge)"
                + (f"; {failed} unusable answer(s) left out" if failed else ""),
                "judge_unique_topics",
            )
        )
    return out


def distributions(kind: str, table: pa.Table) -> dict[str, list[float]]:
    """QE and difficulty values of a kind's records, where its schema has them."""
    out = {}
    for col in ("qe_score", "difficulty"):
        if col in table.column_names:
            vals = [float(v) for v in table.column(col).to_pylist() if v is not None and not math.isnan(v)]
            if vals:
                out[col] = vals
    return out


def word_edit_distance(a: str, b: str) -> int:
    """Levenshtein distance over words (the validators' words): insertions, deletions and substitutions."""
    x, y = _WORD.findall(a or ""), _WORD.findall(b or "")
    prev = list(range(len(y) + 1))
    for i, wa in enumerate(x, 1):
        cur = [i]
        for j, wb in enumerate(y, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (wa != wb)))
        prev = cur
    return prev[-1]


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def phenomenon_quality(table: pa.Table) -> list[dict[str, Any]]:
    """Per phenomenon of good/bad pairs (SMAUG): how big the edit is. Length ratio = characters of bad / good;
    edit distance = words changed from good to bad; span length = words of the changed span of the reference
    (``span_original``) and of its replacement."""
    cols = table.column_names
    if not {"phenomenon", "good", "bad"} <= set(cols):
        return []
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    keep = [c for c in ("phenomenon", "good", "bad", "span_original", "span_replacement") if c in cols]
    for r in table.select(keep).to_pylist():
        groups[str(r["phenomenon"])].append(r)
    out = []
    for ph, rows in sorted(groups.items()):
        ratios = [len(r["bad"] or "") / len(r["good"]) for r in rows if r["good"]]
        spans = [len(_WORD.findall(r["span_original"])) for r in rows if r.get("span_original") is not None]
        repl = [len(_WORD.findall(r["span_replacement"])) for r in rows if r.get("span_replacement") is not None]
        out.append(
            {
                "phenomenon": ph,
                "n": len(rows),
                "length_ratio": _mean(ratios),
                "edit_distance": _mean([float(word_edit_distance(r["good"], r["bad"])) for r in rows]),
                "span_words": _mean([float(x) for x in spans]),
                "replacement_words": _mean([float(x) for x in repl]),
            }
        )
    return out
