"""What every column of every record kind means: rendered into dataset cards (``cards/columns.py``)."""

from __future__ import annotations

# What every column of every record kind means: rendered into dataset cards (``cards/columns.py``).
# One entry per column of each kind's schema (tests/test_schema.py checks that none is missing).
_COMMON_DOCS = {
    "id": "Stable content id: 16 hex chars of sha256 over the kind's id fields, builder and languages.",
    "src_lang": "Source language (BCP-47).",
    "tgt_lang": "Target language (BCP-47); null when the record has no translation direction.",
    "builder": "Builder that produced the record (subset, smaug, mtbreaker, zeroshot, bandit).",
    "builder_version": "Version of that builder's method; a change means records are not comparable.",
    "created_at": "When the build started (UTC).",
    "source_dataset": "Dataset the text was taken from (e.g. flores200-devtest); the card's licence is derived from it.",
    "source_id": "Id of the text in its source dataset (line, segment or document id).",
}
_CHECKS_DOC = (
    "Validation checks as a list of (name, value) pairs: 1.0 = passed, 0.0 = failed, a number = a "
    "measured value, null = not checked. In DuckDB: `map_from_entries(checks)['name']`; in Python: "
    "`{c['name']: c['value'] for c in row['checks']}`."
)
COLUMN_DOCS: dict[str, dict[str, str]] = {
    "smaug_pair": {
        **_COMMON_DOCS,
        "src": "Source sentence.",
        "ref": "Reference translation.",
        "good": "Good hypothesis: a translation without the critical error (see good_origin).",
        "bad": "Bad hypothesis: the reference with exactly one critical error of the given phenomenon.",
        "phenomenon": "Critical-error type: ne (named entity), num (number), neg (negation), ins (insertion), "
        "del (deletion).",
        "span_original": "The span of the reference that was changed (empty for insertions).",
        "span_replacement": "What replaced it in `bad` (empty for deletions).",
        "span_start": "Character offset in `ref` where the changed span starts (Python string index).",
        "span_end": "Character offset in `ref` where the changed span ends (exclusive; = span_start for insertions).",
        "perturbation": "How the error was made, as phenomenon/method (e.g. ne/corpus-swap, neg/en-do-support).",
        "good_origin": "Where `good` came from: `column:NAME`, `translator:SPEC`, or `reference` (then good = ref).",
        "checks": _CHECKS_DOC,
    },
    "breaker_text": {
        **_COMMON_DOCS,
        "text": "The selected source text: the step of the trajectory with the lowest QE (hardest).",
        "seed": "The seed text the editing started from (null for seedless variants).",
        "method": "Variant: mtbreaker-seeded, -seedless, (+qe), zeroshot, zeroshot-history, zeroshot-min.",
        "target_models": "MT model specs the text was made hard for.",
        "qe_model": "QE spec that scored the translations (0-100, higher = better).",
        "qe_score": "Mean QE of the target models' translations of `text`.",
        "difficulty": "100 - qe_score (higher = harder).",
        "llm_failures": "LLM answers that were unusable (retried or dropped) while editing.",
        "qe_models": "The QE specs whose 0-100 scores are averaged per text (--qe A,B).",
        "mt_failures": "Steps whose translation failed (no score; never selected).",
        "qe_failures": "Steps whose QE failed (no score; never selected).",
        "truncated": "LLM answers cut by the generation budget (--max-tokens); not used.",
        "trajectory": "Every step as a list of structs: step (0 = seed), source, translations (one per target "
        "model), qe (one per target model), qe_components ([target model][QE spec]), qe_mean "
        "(null when the step failed), failure ('mt', 'qe' or null). `text` is the source of the "
        "scored step with the lowest qe_mean.",
    },
    "topic_text": {
        **_COMMON_DOCS,
        "topic": "Topic (bandit arm) among the k hardest found by the search.",
        "topic_path": "The topic's path in the taxonomy, root first (null for flat topic lists).",
        "text": "A text sampled for the topic.",
        "provenance_url": "Where the text comes from (URL), when known.",
        "difficulty": "100 - mean QE of the text's translations (higher = harder).",
        "qe_components": "QE of each translation by each QE spec ([translator][QE spec], 0-100 quality).",
    },
    "bandit_pull": {
        "provenance_url": "The URL the pulled text came with (the LLM sampler's snippet, or the corpus row's), when "
        "known; never fetched or checked.",
        "run_id": "The search this pull belongs to (sha256 of the whole build signature, 16 hex digits; equal ids = "
        "same search).",
        "step": "Pull number within the search, from 0.",
        "topic": "Topic (arm) pulled.",
        "text": "Text sampled for the topic.",
        "source_id": "Id of the text in the corpus it was sampled from.",
        "translations": "Translations of the text, one per MT model.",
        "qe": "QE of each translation (0-100, higher = better; null when it failed).",
        "qe_components": "QE of each translation by each QE spec ([translator][QE spec], 0-100 quality).",
        "difficulty": "100 - mean QE (higher = harder); null when the pull failed.",
        "failure": "null, 'mt' (no translation) or 'qe' (no score): a failed pull costs budget but updates no topic.",
        "phase": "explore (first pull of the arm), exploit (a further pull), exhausted (no text left for the "
        "topic) or failed.",
    },
    "selected_text": {
        **_COMMON_DOCS,
        "text": "A corpus text kept because the estimator rates it among the hardest.",
        "domain": "Domain label from the corpus (used for stratification).",
        "estimator": "Difficulty estimator spec that scored the text.",
        "difficulty": "The estimator's difficulty score (higher = harder; the scale depends on the estimator).",
        "rank": "Rank by difficulty among the kept texts (1 = hardest).",
    },
    "judgment": {
        "lp": "Language pair (src-tgt).",
        "item_id": "Segment id within the test set.",
        "src": "Source segment.",
        "system": "MT system (or human reference) that produced `tgt`.",
        "tgt": "The system's translation.",
        "score": "Human quality score (scale given by `protocol`; higher = better).",
        "protocol": "Annotation protocol: esa, mqm or da.",
        "domain": "Domain of the segment, when known.",
    },
    "challenge_pair": {
        **_COMMON_DOCS,
        "lp": "Language pair (src-tgt) as the set gives it.",
        "src": "Source segment.",
        "good": "The correct (or better) translation.",
        "bad": "The incorrect translation: carries the phenomenon's error.",
        "ref": "Reference translation (null when the set has none).",
        "phenomenon": "The set's own label of the error (ACES phenomena, DEMETR perturbation, ...).",
        "aces_category": "The ACES-score category the importer maps `phenomenon` to (addition, omission, "
        "mistranslation, ...); null when it has none.",
        "good_span": "Span-ACES: the marked error-free span of `good` (null elsewhere).",
        "bad_span": "Span-ACES: the marked error span of `bad` (null elsewhere).",
        "good_spans": "Span-ACES: the spans marked `<v>…</v>` in `good_span`, as character offsets into `good` (start, "
        "end; the shape of a human_score's `spans`); null when the span column is not `good` marked.",
        "bad_spans": "Span-ACES: the spans marked `<v>…</v>` in `bad_span`, as character offsets into `bad`; null "
        "when the span column is not `bad` marked.",
        "scores": "Numeric columns of the set kept by name, as a list of (name, value) pairs (read with `col:NAME`).",
        "extra": "The set's other columns as a JSON object, values as given.",
    },
    "human_score": {
        **_COMMON_DOCS,
        "lp": "Language pair (src-tgt).",
        "seg_id": "Segment id within the test set.",
        "system": "MT system (or human reference) that produced `tgt`.",
        "src": "Source segment.",
        "ref": "Reference translation.",
        "tgt": "The system's translation.",
        "domain": "Domain of the segment, when known.",
        "doc": "Document id of the segment, when known.",
        "scores": "Human scores by name (mqm, da_sqm, esa, ...) and kept metric scores, as (name, value) pairs; "
        "a null value is a missing judgment.",
        "extra": "The set's other columns as a JSON object, values as given.",
        "spans": "Annotated error spans in `tgt` (start, end: character offsets, end exclusive; severity, category, "
        "rater), e.g. from Google's MQM format; null when the set has no span annotation.",
    },
    "metric_score": {
        "item_key": "sha256 (16 hex) of what the metric read (source, hypothesis, reference, languages): the key "
        "that makes a re-run score only what is new.",
        "metric": "The metric spec as given (chrf, bleu, comet:..., col:NAME).",
        "metric_signature": "The metric's signature: name, model id and revision, package versions, dtype, device.",
        "set": "Release name of the set scored (as the leaderboard's `set`).",
        "version": "Release version of the set scored (as the leaderboard's `version`).",
        "record_kind": "Record kind of the scored item (smaug_pair, challenge_pair, human_score).",
        "record_id": "The `id` of the scored record.",
        "side": "good or bad (a pair's two hypotheses) or tgt (a human-judgment set's translation).",
        "score": "The metric's score (higher = better); null when it failed on the item.",
        "failure": "Why there is no score (null when there is one).",
        "spans": "The error spans the metric marked in the hypothesis (start, end, severity; a metric read with "
        "`file:` or one that marks spans); an empty list = no error; null when the metric gives no spans.",
    },
    "metric_stat": {
        "metric": "The metric spec as given (chrf, comet:..., col:NAME, python:NAME), or a difficulty estimator.",
        "metric_signature": "The metric's signature (see metric_score); the leaderboard keeps each signature apart.",
        "set": "Release name of the set.",
        "version": "Release version of the set.",
        "record_kind": "Record kind of the set (smaug_pair, challenge_pair, human_score, judgment for DEC).",
        "phenomenon": "The set's phenomenon label, or `all` (every phenomenon of the set).",
        "lp": "Language pair, or `all` (every language pair of the set).",
        "gold": "Human-judgment sets: the human score the metric is compared with (mqm, da_sqm, esa, ...); null "
        "for pair sets.",
        "grouping": "none (all items pooled), item (per segment over systems, then averaged) or sys (per system "
        "over segments, then averaged); system-level statistics say none.",
        "system_score": "System-level statistics of human-judgment sets: how a metric's system score is made, "
        "`corpus` (sacrebleu's corpus score over the system's scored segments: chrF, BLEU) or `mean` (of its "
        "segment scores); null otherwise.",
        "statistic": "accuracy, aces_tau, smaug_tau, smaug_d, aces_score, seg_pearson, seg_kendall, seg_acc_eq, "
        "sys_pairwise_accuracy, sys_soft_pairwise_accuracy, sys_pearson, span_precision, span_recall, span_f1, "
        "span_f1_severity, error_free_f1, dec.",
        "value": "The statistic's value; null when undefined (no item, no spread).",
        "ci_low": "Lower end of the bootstrap 95% interval (null when not computed).",
        "ci_high": "Upper end of the bootstrap 95% interval (null when not computed).",
        "n": "Items (pairs, segments, systems or compared pairs) the value is computed from.",
        "epsilon": "seg_acc_eq: the metric-tie threshold that maximises it (WMT23's tie calibration); null otherwise.",
        "cluster": "Significance cluster of the metric among the metrics of the run that computed it, per set, lp, "
        "gold, statistic, grouping and system_score (1 = the top group; mt-metrics-eval's permutation test and "
        "AssignRanks); null when not computed.",
    },
}


def column_doc(kind: str, column: str) -> str:
    """What a column of a record kind means (empty string for an undocumented column)."""
    return COLUMN_DOCS.get(kind, {}).get(column, "")
