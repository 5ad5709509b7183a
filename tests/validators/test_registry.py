"""The validator-rule registry: every registered rule runs on its own example and computes what the example says,
only metrics it declares and only for kinds it measures; a rules file, the default thresholds, the report (NOT
CHECKED only where a rule measures the kind), ``--rules``' help and docs/validation.md all read the registry.
Nothing here names today's rules: a new rule is tested by adding it."""

from __future__ import annotations

import datetime as dt
import json

import pyarrow.parquet as pq
import pytest

from mtgauntlet.schema import KINDS, record_id, to_table
from mtgauntlet.validators import registry
from mtgauntlet.validators.rule_options import Options
from mtgauntlet.validators.rules import Rules, Threshold
from mtgauntlet.validators.validate import kind_metrics, validate
from tests.support.cli import REPO, invoke

RULES = registry.all_rules()
NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def example_table(example: registry.Example):
    rows = []
    for r in example.rows:
        row = {"builder": "example", "builder_version": "1", "created_at": NOW, **r}
        row.setdefault("id", record_id(example.kind, row))
        rows.append(row)
    return to_table(example.kind, rows)


def test_the_registry_holds_rules_from_the_listed_modules():
    assert list(RULES) and len(RULES) == len(registry.MODULES)
    for name, r in RULES.items():
        assert r.name == name and r.description and r.metrics and r.kinds
        assert set(r.kinds) <= set(KINDS), name
        assert not r.switch or hasattr(Options(), r.switch), name
        assert set(r.defaults) <= {m.name for m in r.metrics}, name
        for metric in r.metrics:
            assert registry.owner(metric.name) is r or "<" in metric.name
            assert metric.doc


@pytest.mark.parametrize("name", list(RULES))
def test_every_rule_computes_what_its_example_says(name):
    r = RULES[name]
    example = r.example()
    assert r.applies(r.metrics[0].name, example.kind) or any(r.applies(m.name, example.kind) for m in r.metrics)
    rules = Rules(options=Options(**example.options))
    metrics, _, info = kind_metrics(example.kind, example_table(example), rules, only=[name])
    for metric, want in example.expect.items():
        assert metrics.get(metric) == pytest.approx(want, abs=1e-6), (name, metric, metrics)
    assert all(r.owns(m) and r.applies(m, example.kind) for m in metrics), (name, metrics)
    assert set(example.info) <= set(info), (name, info)
    if r.switch and not r.switched_on(rules.options, ()):
        assert metrics == {}, (name, "a rule that is off computes nothing")
    else:
        assert example.expect, (name, "an example of a rule that runs says what it computes")


def test_every_metric_validate_computes_has_one_owning_rule_and_every_default_is_known():
    assert all(registry.is_known(t.metric) for t in Rules.default().thresholds)
    assert [(t.metric) for t in Rules.default().thresholds] == [m for m, _ in registry.default_thresholds()]
    for r in RULES.values():
        for m in r.metrics:
            others = [o.name for o in RULES.values() if o is not r and o.owns(m.name)]
            assert not others, (r.name, m.name, others)


def _rule(metric: str) -> registry.Rule:
    r = registry.owner(metric)
    assert r is not None, metric
    return r


def _mixed_release(tmp_path):
    """Two kinds in one folder: each registered rule's example kind, plus a kind none of the text rules measure."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    kinds = {}
    for r in RULES.values():
        kinds.setdefault(r.example().kind, r.example())
    for i, example in enumerate(kinds.values()):
        pq.write_table(example_table(example), folder / f"part-{i}.parquet")
    other = min(KINDS, key=lambda k: len(registry.rules_for(k)))  # the kind the fewest rules measure
    pq.write_table(to_table(other, []), folder / "part-other.parquet")
    return folder, other


def test_a_threshold_is_reported_only_for_the_kinds_its_rule_measures(tmp_path):
    folder, other = _mixed_release(tmp_path)
    thresholds = [
        Threshold(m.name if "<" not in m.name else m.name.replace("<phenomenon>", "neg"), min=0)
        for r in RULES.values()
        for m in r.metrics
        if not m.pattern
    ]
    report = validate(folder, Rules(thresholds=thresholds))
    for entry in report["rules"]:
        r = registry.owner(entry["metric"])
        assert r is not None and r.applies(entry["metric"], entry["kind"]), entry
    reported_other = {e["metric"] for e in report["rules"] if e["kind"] == other}
    measured = {t.metric for t in thresholds if _rule(t.metric).applies(t.metric, other)}
    assert reported_other == {m for m in measured if not _rule(m).switch}
    for entry in report["rules"]:  # an opt-in rule that is off leaves its thresholds out, never NOT CHECKED
        r = registry.owner(entry["metric"])
        if entry["status"] == "not_checked":
            assert r is not None and (r.reports_unchecked or r.switched_on(Options(), [])), entry


def test_rules_help_and_docs_table_come_from_the_registry():
    r = invoke(["validate", "--help"])
    flat = " ".join(r.stdout.replace("│", " ").split())
    for name in RULES:
        assert name in flat
    page = (REPO / "docs" / "validation.md").read_text(encoding="utf-8")
    assert registry.docs_table() in page, "docs/validation.md is stale: python -m mtgauntlet.validators --write"
    for r in RULES.values():
        for m in r.metrics:
            assert f"`{m.name}`" in registry.docs_table()


def test_a_rules_file_may_name_every_declared_metric_and_nothing_else(tmp_path):
    names = [m.name.replace("<phenomenon>", "ne") for r in RULES.values() for m in r.metrics if not m.pattern]
    p = tmp_path / "rules.yaml"
    p.write_text("version: 1\nthresholds:\n" + "".join(f"  {n}: {{min: 0}}\n" for n in names), encoding="utf-8")
    assert [t.metric for t in Rules.from_yaml(p).thresholds] == names
    p.write_text("version: 1\nthresholds:\n  " + names[0] + "x: {min: 0}\n", encoding="utf-8")
    r = invoke(["validate", str(tmp_path), "--rules", str(p)])
    assert r.exit_code == 2 and f"unknown rule '{names[0]}x'" in r.stderr and json.dumps(names[0]) is not None


def test_a_mixed_release_reports_a_rule_only_for_the_kinds_it_measures(tmp_path):
    """SMAUG pairs and bandit texts in one folder: a SMAUG-only metric without the ``smaug.`` prefix is not NOT CHECKED
    for the texts, nor a topic count for the pairs (they have no topic); both are checked where they are measured."""
    example = next(r.example() for r in RULES.values() if r.example().kind == "smaug_pair")
    folder = tmp_path / "mixed"
    folder.mkdir()
    pq.write_table(example_table(example), folder / "pairs.parquet")
    texts = [
        {"topic": "health", "text": "Drink water every day.", "src_lang": "en", "tgt_lang": "es"},
        {"topic": "sport", "text": "The match ended in a draw.", "src_lang": "en", "tgt_lang": "es"},
    ]
    pq.write_table(example_table(registry.Example("topic_text", tuple(texts))), folder / "texts.parquet")
    rules = tmp_path / "rules.yaml"
    rules.write_text("version: 1\nthresholds:\n  length_ratio.src_ref_mean: {max: 10}\n  unique_topics: {min: 2}\n")
    r = invoke(["validate", str(folder), "--rules", str(rules), "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["not_checked"] == [] and report["passed"] is True
    assert {(e["kind"], e["metric"], e["status"]) for e in report["rules"]} == {
        ("smaug_pair", "length_ratio.src_ref_mean", "pass"),
        ("topic_text", "unique_topics", "pass"),
    }
