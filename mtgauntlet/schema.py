"""Record schemas: one pyarrow schema per record kind, the single source of truth.

Parquet files, DuckDB views, validators and dataset cards all read their columns from here.
Each kind also declares which fields form its content id, which must be non-null and which
take values from a closed set.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

import pyarrow as pa

from mtgauntlet.phenomena import NAMES as PHENOMENA
from mtgauntlet.schema_docs import COLUMN_DOCS, column_doc  # noqa: F401  (re-exported)
from mtgauntlet.schema_types import (  # noqa: F401  (re-exported)
    CHECKS_TYPE,
    COMMON_FIELDS,
    KIND_METADATA_KEY,
    SCHEMA_VERSION,
    SCHEMA_VERSION_KEY,
    SCORES_TYPE,
    SIGNATURE_METADATA_KEY,
    SPANS_TYPE,
    TRAJECTORY_STEP,
    RecordKind,
)

KINDS: dict[str, RecordKind] = {}


def _register(kind: RecordKind) -> RecordKind:
    KINDS[kind.name] = kind
    return kind


SMAUG_PAIR = _register(
    RecordKind(
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
        allowed={"phenomenon": PHENOMENA},  # every registered SMAUG phenomenon (mtgauntlet/phenomena.py)
    )
)

BREAKER_TEXT = _register(
    RecordKind(
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
        allowed={
            "method": (
                "mtbreaker-seeded",
                "mtbreaker-seedless",
                "mtbreaker-seeded+qe",
                "mtbreaker-seedless+qe",
                "zeroshot",
                "zeroshot-history",
                "zeroshot-min",
            )
        },
    )
)

TOPIC_TEXT = _register(
    RecordKind(
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
    )
)

BANDIT_PULL = _register(
    RecordKind(
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
            pa.field(
                "phase", pa.string()
            ),  # explore | exploit | failed (no score: costs budget, no update) | exhausted
            pa.field("failure", pa.string()),  # null, "mt" or "qe"
            pa.field("provenance_url", pa.string()),  # the URL the text came with (corpus row, LLM snippet)
        ],
        id_fields=("run_id", "step"),
    )
)

SELECTED_TEXT = _register(
    RecordKind(
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
    )
)

JUDGMENT = _register(
    RecordKind(
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
    )
)


CHALLENGE_PAIR = _register(
    RecordKind(
        name="challenge_pair",
        description="A public challenge-set item (ACES, Span-ACES, DEMETR, WMT challenge TSV): a good and a bad "
        "translation of one source; a metric passes when it scores good above bad.",
        fields=[
            pa.field("lp", pa.string(), nullable=False),
            pa.field("src", pa.string(), nullable=False),
            pa.field("good", pa.string(), nullable=False),
            pa.field("bad", pa.string(), nullable=False),
            pa.field("ref", pa.string()),
            pa.field("phenomenon", pa.string(), nullable=False),
            pa.field("aces_category", pa.string()),  # the ACES-score category the importer maps the phenomenon to
            pa.field("good_span", pa.string()),  # Span-ACES: the marked span of the good translation
            pa.field("bad_span", pa.string()),  # Span-ACES: the marked span of the incorrect translation
            pa.field("good_spans", SPANS_TYPE),  # the spans marked <v>…</v> in good_span, as offsets into good
            pa.field("bad_spans", SPANS_TYPE),  # the spans marked <v>…</v> in bad_span, as offsets into bad
            pa.field("scores", SCORES_TYPE),  # numeric columns of the set kept as given (e.g. a metric already run)
            pa.field("extra", pa.string()),  # the set's other columns, as a JSON object, values as given
        ],
        id_fields=("lp", "src", "good", "bad", "ref", "phenomenon", "source_id"),
    )
)

HUMAN_SCORE = _register(
    RecordKind(
        name="human_score",
        description="Human judgments of one system's translation of one segment (WMT metrics-task layout).",
        fields=[
            pa.field("lp", pa.string(), nullable=False),
            pa.field("seg_id", pa.string(), nullable=False),
            pa.field("system", pa.string(), nullable=False),
            pa.field("src", pa.string(), nullable=False),
            pa.field("ref", pa.string()),
            pa.field("tgt", pa.string()),
            pa.field("domain", pa.string()),
            pa.field("doc", pa.string()),
            pa.field("scores", SCORES_TYPE),  # human (and kept metric) scores by name, e.g. mqm, da_sqm; null = missing
            pa.field("extra", pa.string()),  # the set's other columns, as a JSON object, values as given
            pa.field("spans", SPANS_TYPE),  # annotated error spans in tgt (mqm-spans); null = not annotated
        ],
        id_fields=("lp", "seg_id", "system", "source_dataset"),
    )
)

METRIC_SCORE = _register(
    RecordKind(
        name="metric_score",
        description="One metric's score of one item of a challenge or human-judgment set (the metric workbench).",
        with_common=False,
        fields=[
            pa.field(
                "item_key", pa.string(), nullable=False
            ),  # sha256 (16 hex) of what the metric read: src, hyp, ref, langs
            pa.field("metric", pa.string(), nullable=False),  # the metric's name as given (chrf, comet:..., col:NAME)
            pa.field(
                "metric_signature", pa.string(), nullable=False
            ),  # name, model id/revision, versions, dtype, device
            pa.field("set", pa.string(), nullable=False),  # the scored set's release name (the leaderboard's naming)
            pa.field("version", pa.string(), nullable=False),
            pa.field("record_kind", pa.string(), nullable=False),
            pa.field("record_id", pa.string(), nullable=False),
            pa.field("side", pa.string(), nullable=False),  # good | bad (pairs) or tgt (human-judgment sets)
            pa.field("score", pa.float64()),  # null when the metric failed on the item (see failure)
            pa.field("failure", pa.string()),
            pa.field("spans", SPANS_TYPE),  # the error spans the metric marked (file:, span metrics); null = none given
        ],
        id_fields=("item_key", "metric_signature"),
        allowed={"side": ("good", "bad", "tgt")},
    )
)

METRIC_STAT = _register(
    RecordKind(
        name="metric_stat",
        description="One statistic of one metric (or difficulty estimator) on one set, phenomenon and language pair: "
        "the rows of the workbench's leaderboard.",
        with_common=False,
        fields=[
            pa.field("metric", pa.string(), nullable=False),
            pa.field("metric_signature", pa.string(), nullable=False),
            pa.field("set", pa.string(), nullable=False),
            pa.field("version", pa.string(), nullable=False),
            pa.field("record_kind", pa.string(), nullable=False),
            pa.field("phenomenon", pa.string(), nullable=False),  # "all" = every phenomenon of the set
            pa.field("lp", pa.string(), nullable=False),  # "all" = every language pair of the set
            pa.field("gold", pa.string()),  # human-judgment sets: the human score compared with (mqm, da_sqm, ...)
            pa.field("grouping", pa.string(), nullable=False),  # none | item | sys
            pa.field("system_score", pa.string()),  # system-level statistics: corpus | mean
            pa.field("statistic", pa.string(), nullable=False),
            pa.field("value", pa.float64()),  # null when undefined (no item, no spread)
            pa.field("ci_low", pa.float64()),
            pa.field("ci_high", pa.float64()),
            pa.field("n", pa.int64()),
            pa.field("epsilon", pa.float64()),  # seg_acc_eq: the optimal metric-tie threshold
            pa.field("cluster", pa.int64()),  # significance cluster among the run's metrics (1 = top)
        ],
        id_fields=(
            "metric_signature",
            "set",
            "version",
            "phenomenon",
            "lp",
            "gold",
            "grouping",
            "system_score",
            "statistic",
        ),
    )
)


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
    return _dt.datetime.now(tz=_dt.UTC).replace(microsecond=0)
