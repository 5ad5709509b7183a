"""`build subset` keeps exactly the B hardest texts (ties broken by id) and, stratified, exact per-stratum
quotas (largest remainder) each filled with that stratum's hardest texts. Checked against every scored
record the build kept in its work shards, on FLORES-200 devtest with the `length` estimator."""

from collections import Counter
from fractions import Fraction

import pyarrow.parquet as pq
import pytest

from mtgauntlet.models import registry
from mtgauntlet.records import load_records
from tests.cli import invoke

B = 25


@pytest.fixture(scope="module")
def flores(shared_data):
    return shared_data / "flores200-devtest/flores200_devtest.tsv.gz"


def _subset(tmp_path, flores, *extra, budget=B):
    out = tmp_path / "subset"
    r = invoke(["build", "subset", "-i", str(flores), "--format", "flores", "--src-lang", "en",
                            "--tgt-lang", "de", "--estimator", "length", "--budget", str(budget), "--out", str(out),
                            *extra])
    assert r.exit_code == 0, r.output
    scored = pq.read_table(sorted((out / "work").glob("part-*.parquet"))).to_pylist()
    kept = sorted(load_records(out).to_pylist(), key=lambda r: r["rank"])
    return scored, kept


def _hardest(records, n):
    return sorted(records, key=lambda r: (-r["difficulty"], r["id"]))[:n]


def test_keeps_exactly_the_b_longest(tmp_path, flores):
    scored, kept = _subset(tmp_path, flores)
    assert len(scored) == 1012
    # the estimator's score is the text's length in words
    sample = scored[:50]
    assert [r["difficulty"] for r in sample] == registry.load("difficulty", "length").difficulty(
        [r["text"] for r in sample], "en", "de")
    assert [r["rank"] for r in kept] == list(range(1, B + 1))
    assert [r["id"] for r in kept] == [r["id"] for r in _hardest(scored, B)]  # the B hardest, hardest first
    chosen = {r["id"] for r in kept}
    rest = [r for r in scored if r["id"] not in chosen]
    cut = min(r["difficulty"] for r in kept)
    assert cut >= max(r["difficulty"] for r in rest)
    # ties at the cut: the smaller ids are kept (length ties are common, so this case is real here)
    tied_kept = [r["id"] for r in kept if r["difficulty"] == cut]
    tied_left = [r["id"] for r in rest if r["difficulty"] == cut]
    assert tied_left and max(tied_kept) < min(tied_left)


def _largest_remainder(sizes: dict[str, int], budget: int) -> dict[str, int]:
    total = sum(sizes.values())
    raw = {s: Fraction(budget * n, total) for s, n in sizes.items()}
    quota = {s: int(v) for s, v in raw.items()}
    for s in sorted(sizes, key=lambda s: (-(raw[s] - int(raw[s])), s))[:budget - sum(quota.values())]:
        quota[s] += 1
    return quota


def test_stratified_quotas_are_exact_and_each_stratum_keeps_its_hardest(tmp_path, flores):
    scored, kept = _subset(tmp_path, flores, "--stratify", "domain", "--domain-col", "domain")
    sizes = Counter(r["domain"] for r in scored)
    assert len(sizes) == 3  # wikinews, wikivoyage, wikibooks
    quota = _largest_remainder(dict(sizes), B)
    assert sum(quota.values()) == B and Counter(r["domain"] for r in kept) == quota
    for domain, q in quota.items():
        mine = [r for r in scored if r["domain"] == domain]
        assert {r["id"] for r in kept if r["domain"] == domain} == {r["id"] for r in _hardest(mine, q)}
    assert [r["id"] for r in kept] == [r["id"] for r in _hardest(kept, B)]  # ranked hardest first overall


def test_budget_above_the_corpus_keeps_everything_once(tmp_path, shared_data):
    _, kept = _subset(tmp_path, shared_data / "flores200-devtest/flores200_devtest.tsv.gz", "--limit", "30",
                      budget=40)
    assert len(kept) == 30 and len({r["id"] for r in kept}) == 30
