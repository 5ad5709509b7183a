"""`build subset` keeps exactly the B hardest texts (ties broken by id) and, stratified, exact per-stratum
quotas (largest remainder) each filled with that stratum's hardest texts. Checked against every scored
record the build kept in its work shards, on FLORES-200 devtest with the `length` estimator."""

from collections import Counter
from fractions import Fraction

import pyarrow.parquet as pq
import pytest

from mtgauntlet.models import registry
from mtgauntlet.records import load_records
from tests.support.cli import invoke

B = 25


@pytest.fixture(scope="module")
def flores(shared_data):
    return shared_data / "flores200-devtest/flores200_devtest.tsv.gz"


def _subset(tmp_path, flores, *extra, budget=B):
    out = tmp_path / "subset"
    r = invoke(
        [
            "build",
            "subset",
            "-i",
            str(flores),
            "--format",
            "flores",
            "--src-lang",
            "en",
            "--tgt-lang",
            "de",
            "--estimator",
            "length",
            "--budget",
            str(budget),
            "--out",
            str(out),
            *extra,
        ]
    )
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
        [r["text"] for r in sample], "en", "de"
    )
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
    for s in sorted(sizes, key=lambda s: (-(raw[s] - int(raw[s])), s))[: budget - sum(quota.values())]:
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
    _, kept = _subset(tmp_path, shared_data / "flores200-devtest/flores200_devtest.tsv.gz", "--limit", "30", budget=40)
    assert len(kept) == 30 and len({r["id"] for r in kept}) == 30


def _judge(text: str, lang: str) -> int:
    """A target-aware judge: the proficiency a text needs depends on the target language (Czech: length-driven,
    German: the reverse), so the mean over both ranks the texts differently from either language alone."""
    n = len(text)
    return 10 + n % 100 if lang == "Czech" else 110 - (n * 7) % 100


def test_several_target_languages_average_a_target_aware_estimator(tmp_path, flores):
    """Section 6.1 of the Sentinel paper scores a text for the artificial crowd over MT models *and target
    languages*: with two --tgt-lang values every text's difficulty is the mean of its two judgements."""
    import re

    from tests.support.openai_server import ScriptedServer

    def answer(messages):
        prompt = messages[-1]["content"]
        lang = re.search(r"translate this text into (\w+)", prompt).group(1)
        return f"Reasoning. [[[{_judge(prompt.rsplit('Analyze following text:' + chr(10) * 2, 1)[1], lang)}, B1]]]"

    out = tmp_path / "two"
    with ScriptedServer(default=answer) as srv:
        r = invoke(
            [
                "build",
                "subset",
                "-i",
                str(flores),
                "--format",
                "flores",
                "--src-lang",
                "en",
                "--limit",
                "16",
                "--tgt-lang",
                "cs",
                "--tgt-lang",
                "de",
                "--estimator",
                f"llm-judge:openai:j@{srv.url}",
                "--budget",
                "4",
                "--out",
                str(out),
            ]
        )
        assert r.exit_code == 0, r.output
        asked = Counter(re.search(r"into (\w+)", q["body"]["messages"][-1]["content"]).group(1) for q in srv.requests)
    assert asked == {"Czech": 16, "German": 16}
    scored = pq.read_table(sorted((out / "work").glob("part-*.parquet"))).to_pylist()
    assert len(scored) == 16
    for rec in scored:
        assert rec["difficulty"] == pytest.approx((_judge(rec["text"], "Czech") + _judge(rec["text"], "German")) / 2)
        assert rec["tgt_lang"] is None  # a subset for several targets is for no single pair
    kept = load_records(out).to_pylist()
    assert {r["id"] for r in kept} == {r["id"] for r in _hardest(scored, 4)}
    czech_only = sorted(scored, key=lambda r: -_judge(r["text"], "Czech"))[:4]
    assert {r["text"] for r in kept} != {r["text"] for r in czech_only}  # the mean, not the first language
    import json

    manifest = json.loads((out / "build.json").read_text())
    assert manifest["config"]["tgt_langs"] == ["cs", "de"] and "|tgt:" in manifest["signature"]


def test_length_subset_card_states_words_not_tokens(tmp_path, flores):
    """The Sentinel paper's text length counts spaCy tokens; the `length` estimator counts words: the card says so."""
    import json

    from mtgauntlet.cards.card import build_notes

    _subset(tmp_path, flores, "--limit", "20", budget=5)
    notes = build_notes({"builds": [json.loads((tmp_path / "subset" / "build.json").read_text())]})
    assert any("counts words" in n and "spaCy tokens" in n for n in notes)
