import datetime as dt

import pyarrow.parquet as pq
import pytest

from mtgauntlet.releases.catalog import open_catalog
from mtgauntlet.schema import KINDS, checks_dict, get_kind, kind_of_schema, record_id, to_table

NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
COMMON = dict(
    src_lang="es",
    tgt_lang="en",
    builder="test",
    builder_version="1",
    created_at=NOW,
    source_dataset="sample",
    source_id="1",
)

EXAMPLES = {
    "smaug_pair": dict(
        src="Hola Ana.",
        ref="Hello Ana.",
        good="Hi Ana.",
        bad="Hi Maria.",
        phenomenon="ne",
        span_original="Ana",
        span_replacement="Maria",
        span_start=3,
        span_end=6,
        good_origin="column",
        checks={"differs": True, "char_edit_distance": 5.0, "nli": None},
    ),
    "breaker_text": dict(
        text="A hard text.",
        seed="An easy text.",
        method="mtbreaker-seeded",
        target_models=["apertium:eng-spa"],
        qe_model="qe",
        qe_score=41.5,
        difficulty=58.5,
        llm_failures=0,
        trajectory=[
            {"step": 0, "source": "An easy text.", "translations": ["Un texto fácil."], "qe": [80.0], "qe_mean": 80.0}
        ],
    ),
    "topic_text": dict(
        topic="tax law", topic_path=["law", "tax law"], text="Tax text.", provenance_url=None, difficulty=33.0
    ),
    "selected_text": dict(text="Hard sentence.", domain="news", estimator="length", difficulty=2.0, rank=1),
    "bandit_pull": dict(
        run_id="r1",
        step=0,
        topic="tax law",
        text="t",
        source_id="1",
        translations=["x"],
        qe=[50.0],
        difficulty=50.0,
        phase="explore",
    ),
    "judgment": dict(
        lp="en-de", item_id="1", src="Hello", system="sys", tgt="Hallo", score=-1.0, protocol="mqm", domain="news"
    ),
    "challenge_pair": dict(
        lp="de-en",
        src="Hallo Ana.",
        good="Hello Ana.",
        bad="Hello Maria.",
        ref="Hi Ana.",
        phenomenon="critical_id10_ne",
        aces_category="mistranslation",
        good_span=None,
        bad_span=None,
        scores=None,
        extra='{"severity": "critical"}',
    ),
    "human_score": dict(
        lp="en-de",
        seg_id="0",
        system="sysA",
        src="Hello",
        ref="Hallo",
        tgt="Hallo!",
        domain="news",
        doc="d1",
        scores=None,
        extra=None,
    ),
    "metric_score": dict(
        item_key="0123456789abcdef",
        metric="chrf",
        metric_signature="chrf|nc:6|nw:0|v:2",
        set="demo",
        version="0.1.0",
        record_kind="challenge_pair",
        record_id="fedcba9876543210",
        side="good",
        score=71.5,
        failure=None,
    ),
    "metric_stat": dict(
        metric="chrf",
        metric_signature="chrf|nc:6|nw:0|v:2",
        set="demo",
        version="0.1.0",
        record_kind="human_score",
        phenomenon="all",
        lp="en-de",
        gold="mqm",
        grouping="item",
        statistic="seg_acc_eq",
        value=0.55,
        ci_low=0.52,
        ci_high=0.58,
        n=1872,
    ),
}


def test_every_kind_has_an_example():
    assert set(EXAMPLES) == set(KINDS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_round_trip_parquet_duckdb_pandas(tmp_path, kind):
    k = get_kind(kind)
    rec = dict(EXAMPLES[kind])
    if "builder" in k.column_names:
        rec.update(COMMON)
    if "id" in k.column_names:
        rec["id"] = record_id(k, rec)
    table = to_table(k, [rec], signature="builder:test|version:1")
    assert table.schema.equals(k.schema, check_metadata=False)
    path = tmp_path / "data" / "part.parquet"
    path.parent.mkdir()
    pq.write_table(table, path)
    assert kind_of_schema(pq.read_schema(path)) == kind
    con = open_catalog(tmp_path)
    df = con.execute(f"SELECT * FROM {kind}").df()
    assert list(df.columns) == k.column_names
    row = df.iloc[0].to_dict()
    for key, value in rec.items():
        got = row[key]
        if key == "checks":
            assert checks_dict(got) == {"differs": 1.0, "char_edit_distance": 5.0, "nli": None}
        elif key == "trajectory":
            assert got[0]["source"] == "An easy text." and list(got[0]["qe"]) == [80.0]
        elif isinstance(value, list):
            assert list(got) == value
        elif key == "created_at":
            assert got.to_pydatetime() == NOW
        else:
            assert got == value, key


def test_checks_queryable_as_map_in_duckdb(tmp_path):
    rec = dict(EXAMPLES["smaug_pair"], **COMMON)
    rec["id"] = record_id("smaug_pair", rec)
    (tmp_path / "d").mkdir()
    pq.write_table(to_table("smaug_pair", [rec]), tmp_path / "d" / "p.parquet")
    con = open_catalog(tmp_path)
    got = con.execute("SELECT map_from_entries(checks)['char_edit_distance'] FROM smaug_pair").fetchone()[0]
    assert got == 5.0


def test_record_id_is_stable_and_content_sensitive():
    a = dict(EXAMPLES["smaug_pair"], **COMMON)
    b = dict(a, created_at=dt.datetime.now(tz=dt.UTC))
    assert record_id("smaug_pair", a) == record_id("smaug_pair", b)
    assert record_id("smaug_pair", a) != record_id("smaug_pair", dict(a, bad="Hi Eva."))
    assert record_id("smaug_pair", a, builder="x") != record_id("smaug_pair", a, builder="y")


def test_allowed_values_declared():
    assert get_kind("smaug_pair").allowed["phenomenon"] == ("ne", "num", "neg", "ins", "del")
    assert set(get_kind("judgment").allowed["protocol"]) == {"esa", "mqm", "da"}
