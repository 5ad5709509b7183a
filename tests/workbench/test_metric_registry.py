"""Registry-wide tests of the workbench metrics (`mtgauntlet.workbench.registry`): every registered metric scores
its own example as the example's independent computation says, by itself and through ``gauntlet evaluate metric``
over a catalog, under a stable signature; ``--metric``'s help and the generated command reference name every one.
Nothing here names a metric: a metric added to the registry is tested by these tests as it is."""

from __future__ import annotations

import json
import math

import pyarrow.parquet as pq
import pytest

from mtgauntlet.errors import UsageError
from mtgauntlet.workbench.registry import METRICS, Example, WorkbenchMetric, metric_class
from tests.evaluation.workbench_sets import write_build
from tests.support.cli import REPO, invoke
from tests.support.release_helpers import cli


def _close(got, want) -> bool:
    if want is None or got is None:
        return got is None and want is None
    return math.isfinite(got) and abs(got - want) <= 1e-9


@pytest.mark.parametrize("name", list(METRICS))
def test_a_registered_metric_scores_its_example_as_expected(name):
    cls = metric_class(name)
    assert issubclass(cls, WorkbenchMetric) and cls.__doc__, f"{name}: a documented WorkbenchMetric"
    ex = cls.example()
    assert isinstance(ex, Example) and len(ex.hyp) == len(ex.ref) == len(ex.src) == len(ex.expected) >= 2
    metric = cls()
    got = list(metric.score(list(ex.src), list(ex.hyp), list(ex.ref), ex.src_lang, ex.tgt_lang))
    assert len(got) == len(ex.hyp)
    wrong = [(h, g, w) for h, g, w in zip(ex.hyp, got, ex.expected) if not _close(g, w)]
    assert not wrong, f"{name}: scores differ from the example's: {wrong}"
    assert len({w for w in ex.expected if w is not None}) >= 2, f"{name}: an example that tells scores apart"
    assert metric.signature() and metric.signature() == cls().signature()


@pytest.mark.parametrize("name", list(METRICS))
def test_the_help_and_the_command_reference_name_every_registered_metric(name):
    from mtgauntlet.api.evaluate_options import EvaluateMetricOptions
    from mtgauntlet.options import declared

    help_text = next(d.info.help for d in declared(EvaluateMetricOptions) if d.name == "metric")
    assert f"{name} ({METRICS[name].help})" in help_text
    r = invoke(["evaluate", "metric", "--help"])
    assert r.exit_code == 0 and name in r.stdout
    assert f"{name} ({METRICS[name].help})" in (REPO / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")


def test_an_unregistered_name_is_refused_in_one_line():
    with pytest.raises(UsageError, match="not a registered metric"):
        metric_class("no-such-metric")


@pytest.fixture(scope="module")
def example_catalog(tmp_path_factory):
    """One release of pair records made of every registered metric's example items (good: an example's
    hypothesis, bad: the next one; the reference of the good side)."""
    root = tmp_path_factory.mktemp("registry")
    rows, seen = [], set()
    for name in METRICS:
        ex = metric_class(name).example()
        for i, (src, hyp, ref) in enumerate(zip(ex.src, ex.hyp, ex.ref)):
            bad = ex.hyp[(i + 1) % len(ex.hyp)]
            if ref is None or (src, hyp, bad, ref) in seen:  # no reference: the scoring tests cover it
                continue
            seen.add((src, hyp, bad, ref))
            rows.append(
                {
                    "src": src or "source",
                    "ref": ref,
                    "good": hyp,
                    "bad": bad,
                    "phenomenon": "example",
                    "src_lang": ex.src_lang,
                    "tgt_lang": ex.tgt_lang,
                    "source_id": f"{name}:{i}",
                }
            )
    build = write_build(root / "build", "smaug_pair", rows)
    cli(
        "release",
        build,
        "--name",
        "examples",
        "--version",
        "1.0.0",
        "--out",
        root / "releases",
        "--license",
        "cc-by-4.0",
    )
    return root / "releases", rows


def test_every_registered_metric_stores_its_own_scores_through_the_workbench(example_catalog, tmp_path):
    releases, rows = example_catalog
    out = tmp_path / "results"
    metrics = ",".join(METRICS)
    # chunks of 3 items: a thread-safe metric scores two at a time; every stored score is still its own
    r = invoke(
        ["evaluate", "metric", "--releases", releases, "-m", metrics, "--out", out, "--json", "--shard-size", "3"]
    )
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    stored = [
        row
        for f in json.loads((out / "manifest.json").read_text())["files"]
        if f["kind"] == "metric_score"
        for row in pq.read_table(out / f["path"]).to_pylist()
    ]
    for name in METRICS:
        metric = metric_class(name)()
        signature = f"{name}|{metric.signature()}"
        assert summary["metrics"][name]["signature"] == signature
        mine = {(s["record_id"], s["side"]): s["score"] for s in stored if s["metric_signature"] == signature}
        assert len(mine) == 2 * len(rows)
        records = [rec for p in sorted(releases.rglob("*.parquet")) for rec in pq.read_table(p).to_pylist()]
        assert len(records) == len(rows)
        for rec in records:  # each stored score is what the metric gives the item by itself
            for side in ("good", "bad"):
                want = metric.score([rec["src"]], [rec[side]], [rec["ref"]], rec["src_lang"], rec["tgt_lang"])[0]
                assert _close(mine[(rec["id"], side)], want), (name, rec[side], rec["ref"])


def test_item_keys_of_a_set_are_item_key_of_each_item(example_catalog):
    """The column-wise keys of `load_items` are `item_key` of each item (stored results keep their keys)."""
    from mtgauntlet.releases.catalog import open_catalog
    from mtgauntlet.workbench.sets import item_key, load_items, select_sets

    releases, rows = example_catalog
    con = open_catalog(releases)
    try:
        items = load_items(con, select_sets(con, "examples")[0])
    finally:
        con.close()
    assert len(items) == 2 * len(rows) and items.side[:2] == ["good", "bad"]
    want = [
        item_key(s, h, r, a, b)
        for s, h, r, a, b in zip(items.src, items.hyp, items.ref, items.src_lang, items.tgt_lang)
    ]
    assert items.key == want and len(set(want)) > len(rows)
