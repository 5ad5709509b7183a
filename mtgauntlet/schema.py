"""Record schemas: one pyarrow schema per record kind, the single source of truth.

Parquet files, DuckDB views, validators and dataset cards all read their columns from here.
Each kind also declares which fields form its content id, which must be non-null and which
take values from a closed set.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import pyarrow as pa

SCHEMA_VERSION = "1"
KIND_METADATA_KEY = b"mtgauntlet.kind"
SIGNATURE_METADATA_KEY = b"mtgauntlet.signature"
SCHEMA_VERSION_KEY = b"mtgauntlet.schema_version"

COMMON_FIELDS: list[pa.Field] = [
    pa.field("id", pa.string(), nullable=False),
    pa.field("src_lang", pa.string(), nullable=False),
    pa.field("tgt_lang", pa.string()),
    pa.field("builder", pa.string(), nullable=False),
    pa.field("builder_version", pa.string(), nullable=False),
    pa.field("created_at", pa.timestamp("us", tz="UTC"), nullable=False),
    pa.field("source_dataset", pa.string()),
    pa.field("source_id", pa.string()),
]

# check name -> value; bool checks are 1.0 / 0.0, a check that was not run is null. A list of
# (name, value) structs rather than a map: `datasets` has no map type. In DuckDB: map_from_entries(checks).
CHECKS_TYPE = pa.list_(pa.struct([pa.field("name", pa.string()), pa.field("value", pa.float64())]))

TRAJECTORY_STEP = pa.struct([
    pa.field("step", pa.int32()),
    pa.field("source", pa.string()),
    pa.field("translations", pa.list_(pa.string())),
    pa.field("qe", pa.list_(pa.float64())),  # per target model: the (ensemble) QE, null when it failed
    pa.field("qe_mean", pa.float64()),  # mean over target models; null when a translation or score failed
    pa.field("qe_components", pa.list_(pa.list_(pa.float64()))),  # [target model][QE spec], 0-100 quality
    pa.field("failure", pa.string()),  # null, "mt" (no translation) or "qe" (no score): never selected
])


@dataclass(frozen=True)
class RecordKind:
    name: str
    fields: list[pa.Field]
    id_fields: tuple[str, ...]
    required: tuple[str, ...] = ()
    allowed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    description: str = ""
    with_common: bool = True

    @property
    def schema(self) -> pa.Schema:
        fields = (COMMON_FIELDS if self.with_common else []) + self.fields
        return pa.schema(fields, metadata={KIND_METADATA_KEY: self.name.encode(),
                                           SCHEMA_VERSION_KEY: SCHEMA_VERSION.encode()})

    @property
    def column_names(self) -> list[str]:
        return self.schema.names

    def non_null_columns(self) -> list[str]:
        return [f.name for f in self.schema if not f.nullable] + [c for c in self.required]


KINDS: dict[str, RecordKind] = {}


def _register(kind: RecordKind) -> RecordKind:
    KINDS[kind.name] = kind
    return kind


SMAUG_PAIR = _register(RecordKind(
    name="smaug_pair",
    description="(source, good, bad, reference) with one critical error in `bad` (SMAUG).",
    fields=[
        pa.field("src", pa.string(), nullable=False),
        pa.field("ref", pa.string(), nullable=False),
        pa.field("good", pa.string(), nullable=False),
        pa.field("bad", pa.string(), nullable=False),
        pa.field("phenomenon", pa.string(), nullable=False),
        pa.field("span_original", pa.string()),
        pa.field("span_replacement", pa.string()),
        pa.field("span_start", pa.int32()),
        pa.field("span_end", pa.int32()),
        pa.field("perturbation", pa.string()),
        pa.field("good_origin", pa.string()),
        pa.field("checks", CHECKS_TYPE),
    ],
    id_fields=("src", "ref", "good", "bad", "phenomenon"),
    allowed={"phenomenon": ("ne", "num", "neg", "ins", "del")},
))

BREAKER_TEXT = _register(RecordKind(
    name="breaker_text",
    description="A source text made hard for target MT models (MT-breaker / zero-shot).",
    fields=[
        pa.field("text", pa.string(), nullable=False),
        pa.field("seed", pa.string()),
        pa.field("method", pa.string(), nullable=False),
        pa.field("target_models", pa.list_(pa.string())),
        pa.field("qe_model", pa.string()),
        pa.field("qe_models", pa.list_(pa.string())),  # the QE specs averaged (--qe A,B)
        pa.field("qe_score", pa.float64()),
        pa.field("difficulty", pa.float64()),
        pa.field("llm_failures", pa.int32()),
        pa.field("truncated", pa.int32()),  # LLM answers cut by the generation budget (--max-tokens)
        pa.field("mt_failures", pa.int32()),  # steps without a translation (not eligible for selection)
        pa.field("qe_failures", pa.int32()),  # steps without a QE score (not eligible for selection)
        pa.field("trajectory", pa.list_(TRAJECTORY_STEP)),
    ],
    id_fields=("text", "seed", "method"),
    allowed={"method": ("mtbreaker-seeded", "mtbreaker-seedless", "mtbreaker-seeded+qe",
                        "mtbreaker-seedless+qe", "zeroshot", "zeroshot-history", "zeroshot-min")},
))

TOPIC_TEXT = _register(RecordKind(
    name="topic_text",
    description="A text sampled for a difficult topic found by bandit search.",
    fields=[
        pa.field("topic", pa.string(), nullable=False),
        pa.field("topic_path", pa.list_(pa.string())),
        pa.field("text", pa.string(), nullable=False),
        pa.field("provenance_url", pa.string()),
        pa.field("difficulty", pa.float64()),
        pa.field("qe_components", pa.list_(pa.list_(pa.float64()))),  # [translator][QE spec], 0-100 quality
    ],
    id_fields=("topic", "text"),
))

BANDIT_PULL = _register(RecordKind(
    name="bandit_pull",
    description="One pull of a topic arm: sample, translate, QE (the search log and its resume state).",
    with_common=False,
    fields=[
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("step", pa.int64(), nullable=False),
        pa.field("topic", pa.string(), nullable=False),
        pa.field("text", pa.string()),
        pa.field("source_id", pa.string()),
        pa.field("translations", pa.list_(pa.string())),
        pa.field("qe", pa.list_(pa.float64())),
        pa.field("qe_components", pa.list_(pa.list_(pa.float64()))),  # [translator][QE spec], 0-100 quality
        pa.field("difficulty", pa.float64()),  # 100 - mean QE; null when a translation or score failed
        pa.field("phase", pa.string()),  # explore | exploit | failed (no score: costs budget, no update) | exhausted
        pa.field("failure", pa.string()),  # null, "mt" or "qe"
    ],
    id_fields=("run_id", "step"),
))

SELECTED_TEXT = _register(RecordKind(
    name="selected_text",
    description="A corpus text kept because a difficulty estimator rates it hard.",
    fields=[
        pa.field("text", pa.string(), nullable=False),
        pa.field("domain", pa.string()),
        pa.field("estimator", pa.string(), nullable=False),
        pa.field("difficulty", pa.float64(), nullable=False),
        pa.field("rank", pa.int64()),
    ],
    id_fields=("text", "estimator"),
))

JUDGMENT = _register(RecordKind(
    name="judgment",
    description="A human quality judgment of one system output (input of DEC and metric evaluation).",
    with_common=False,
    fields=[
        pa.field("lp", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("src", pa.string(), nullable=False),
        pa.field("system", pa.string(), nullable=False),
        pa.field("tgt", pa.string()),
        pa.field("score", pa.float64(), nullable=False),
        pa.field("protocol", pa.string(), nullable=False),
        pa.field("domain", pa.string()),
    ],
    id_fields=("lp", "item_id", "system"),
    allowed={"protocol": ("esa", "mqm", "da")},
))


def get_kind(name: str) -> RecordKind:
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"unknown record kind {name!r}; known: {', '.join(sorted(KINDS))}") from None


def record_id(kind: str | RecordKind, record: Mapping[str, Any], builder: str | None = None) -> str:
    """Stable content hash: the kind's id fields + builder, as 16 hex chars of sha256."""
    k = get_kind(kind) if isinstance(kind, str) else kind
    payload = {f: record.get(f) for f in k.id_fields}
    payload["__kind"] = k.name
    payload["__builder"] = builder if builder is not None else record.get("builder")
    payload["__langs"] = [record.get("src_lang"), record.get("tgt_lang")]
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]


def _checks_to_arrow(checks: Mapping[str, Any] | None):
    if checks is None:
        return None
    return [{"name": k, "value": (float(v) if v is not None else None)} for k, v in checks.items()]


def checks_dict(value) -> dict[str, float | None]:
    """The stored checks (list of name/value structs, or a dict) as a plain dict."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    return {c["name"]: c["value"] for c in value}


def to_table(kind: str | RecordKind, records: Iterable[Mapping[str, Any]], signature: str | None = None) -> pa.Table:
    """Build a table with exactly the kind's schema (missing nullable columns become null)."""
    k = get_kind(kind) if isinstance(kind, str) else kind
    schema = k.schema
    rows = list(records)
    columns = {}
    for f in schema:
        values = [r.get(f.name) for r in rows]
        if f.type == CHECKS_TYPE:
            values = [_checks_to_arrow(v) if isinstance(v, Mapping) else v for v in values]
        columns[f.name] = pa.array(values, type=f.type)
    table = pa.Table.from_pydict(columns, schema=schema)
    if signature:
        meta = dict(schema.metadata or {})
        meta[SIGNATURE_METADATA_KEY] = signature.encode()
        table = table.replace_schema_metadata(meta)
    return table


def kind_of_schema(schema: pa.Schema) -> str | None:
    meta = schema.metadata or {}
    value = meta.get(KIND_METADATA_KEY)
    return value.decode() if value else None


def utcnow() -> _dt.datetime:
    return _dt.datetime.now(tz=_dt.timezone.utc).replace(microsecond=0)


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
_CHECKS_DOC = ("Validation checks as a list of (name, value) pairs: 1.0 = passed, 0.0 = failed, a number = a "
               "measured value, null = not checked. In DuckDB: `map_from_entries(checks)['name']`; in Python: "
               "`{c['name']: c['value'] for c in row['checks']}`.")
COLUMN_DOCS: dict[str, dict[str, str]] = {
    "smaug_pair": {**_COMMON_DOCS,
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
    "breaker_text": {**_COMMON_DOCS,
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
    "topic_text": {**_COMMON_DOCS,
        "topic": "Topic (bandit arm) among the k hardest found by the search.",
        "topic_path": "The topic's path in the taxonomy, root first (null for flat topic lists).",
        "text": "A text sampled for the topic.",
        "provenance_url": "Where the text comes from (URL), when known.",
        "difficulty": "100 - mean QE of the text's translations (higher = harder).",
        "qe_components": "QE of each translation by each QE spec ([translator][QE spec], 0-100 quality).",
    },
    "bandit_pull": {
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
    "selected_text": {**_COMMON_DOCS,
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
}


def column_doc(kind: str, column: str) -> str:
    """What a column of a record kind means (empty string for an undocumented column)."""
    return COLUMN_DOCS.get(kind, {}).get(column, "")
