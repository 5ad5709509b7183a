"""Column types of the record schemas (`mtgauntlet.schema`): the fields every kind shares, the nested types
(checks, MQM-style scores and spans, MT-breaker trajectories) and `RecordKind`, the declaration of one kind.

`mtgauntlet.schema` registers the kinds and re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

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

TRAJECTORY_STEP = pa.struct(
    [
        pa.field("step", pa.int32()),
        pa.field("source", pa.string()),
        pa.field("translations", pa.list_(pa.string())),
        pa.field("qe", pa.list_(pa.float64())),  # per target model: the (ensemble) QE, null when it failed
        pa.field("qe_mean", pa.float64()),  # mean over target models; null when a translation or score failed
        pa.field("qe_components", pa.list_(pa.list_(pa.float64()))),  # [target model][QE spec], 0-100 quality
        pa.field("failure", pa.string()),  # null, "mt" (no translation) or "qe" (no score): never selected
    ]
)


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
        return pa.schema(
            fields, metadata={KIND_METADATA_KEY: self.name.encode(), SCHEMA_VERSION_KEY: SCHEMA_VERSION.encode()}
        )

    @property
    def column_names(self) -> list[str]:
        return self.schema.names

    def non_null_columns(self) -> list[str]:
        return [f.name for f in self.schema if not f.nullable] + [c for c in self.required]


# Named numeric scores of one item (human judgments, a metric someone already ran): list of (name, value) structs.
SCORES_TYPE = CHECKS_TYPE
# error spans: character offsets into the translation (end exclusive), MQM severity and category, who marked it
SPANS_TYPE = pa.list_(
    pa.struct(
        [
            pa.field("start", pa.int64()),
            pa.field("end", pa.int64()),
            pa.field("severity", pa.string()),
            pa.field("category", pa.string()),
            pa.field("rater", pa.string()),
        ]
    )
)
