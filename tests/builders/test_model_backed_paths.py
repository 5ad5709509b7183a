"""Model-backed paths of the builders on tiny models built here and on a local OpenAI-compatible server:
SMAUG with an mT5-style infiller, an NLI classifier and a Polyjuice-format LM; the artificial crowd,
the LLM difficulty judge, LLM topic generation and the LLM sampler."""

import random
import shutil

import pytest

from mtgauntlet.builders.bandit import topics as T
from mtgauntlet.builders.bandit.sampler import LLMSampler
from mtgauntlet.builders.base import iter_items
from mtgauntlet.builders.options.smaug import SmaugOptions
from mtgauntlet.builders.smaug import SmaugBuilder
from mtgauntlet.core.builds import item_rng
from mtgauntlet.models import registry
from mtgauntlet.options import options_of
from mtgauntlet.schema import checks_dict
from tests.support import tiny_models
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    d = tmp_path_factory.mktemp("tiny-paths")
    return {
        "t5": tiny_models.seq2seq(d / "t5"),
        "causal": tiny_models.causal_lm(d / "causal"),
        "nli": tiny_models.classifier(d / "nli", 3, {0: "entailment", 1: "neutral", 2: "contradiction"}),
    }


def test_smaug_with_infiller_nli_and_polyjuice(tiny, sample_path):
    from mtgauntlet.corpora.formats import read_parallel

    rows = read_parallel(sample_path, src_col="es", ref_col="en", src_lang="es", tgt_lang="en", limit=12).rows
    b = SmaugBuilder(
        options_of(
            SmaugOptions,
            src_lang="es",
            tgt_lang="en",
            good_from="reference",
            infiller=f"hf:{tiny['t5']}",
            nli=f"hf:{tiny['nli']}",
            polyjuice=f"hf:{tiny['causal']}",
        )
    )
    assert b.support["ne"][1].startswith("infill") and b.support["neg"][1].startswith("polyjuice")
    items = iter_items(rows)
    b.prepare(items)
    results = b.process_batch(items, [item_rng(1, it.index) for it in items])
    reasons = [r for res in results for r in res.rejected]
    records = [rec for res in results for rec in res.records]
    # a random tiny model proposes junk: the constraints must judge every proposal, and any kept record
    # carries a real NLI value (never "not checked") when its phenomenon is neg
    assert reasons or records
    for rec in records:
        checks = checks_dict(rec["checks"])
        if rec["phenomenon"] == "neg":
            assert checks["nli_contradiction"] is not None
        assert "<extra_id" not in rec["bad"]
    assert any(
        r.startswith(("ne:", "num:", "ins:", "neg:")) for r in reasons + [r["phenomenon"] + ":" for r in records]
    )


@pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium not installed")
def test_artificial_crowd_difficulty():
    texts = ["The dog barks.", "Notwithstanding the aforementioned caveats, the plenipotentiary equivocated."]
    crowd = registry.load("difficulty", "crowd:apertium+apertium:eng-spa;qe=roundtrip")
    got = crowd.difficulty(texts, "en", "es")
    hyps = registry.load("translator", "apertium").translate(texts, "en", "es")
    qe = registry.load("qe", "roundtrip").score(texts, hyps, "en", "es")
    assert got == pytest.approx([100 - q for q in qe])  # two identical crowd members: 100 - their mean QE
    assert all(0 <= d <= 100 for d in got)


def test_llm_difficulty_judge_and_failures():
    with ScriptedServer(
        default=lambda m: (
            "Quite hard. [[[95, C1 (Advanced)]]]" if "gubbins" in m[-1]["content"] else "Easy. [[[10, A1 (Beginner)]]]"
        )
    ) as srv:
        judge = registry.load("difficulty", f"llm-judge:openai:j@{srv.url}")
        assert judge.difficulty(["The dog barks.", "The gubbins snarfled."], "en", "de") == [10.0, 95.0]
        assert "on a scale of 0 to 120" in srv.requests[0]["body"]["messages"][0]["content"]
    with ScriptedServer(default=lambda m: "no score here") as srv:
        judge = registry.load("difficulty", f"llm-judge:openai:bad@{srv.url}")
        assert judge.difficulty(["x"], "en", "de") == [None] and judge.failures["unparseable_score"] == 1


def test_llm_topic_tree_and_llm_sampler():
    tree = "```python\n{'Law': {'Tax law reform': {}, 'Criminal law': {'Prison vs jail': {}}}}\n```"
    with ScriptedServer(default=lambda m: tree) as srv:
        topics = T.from_llm(registry.load("llm", f"openai:o@{srv.url}"), "Law", levels=2, branching=2)
        assert [t.name for t in topics] == ["Law", "Tax law reform", "Criminal law", "Prison vs jail"]
        assert "expert ontologist specializing in Law" in srv.requests[0]["body"]["messages"][0]["content"]
    snippets = '{"extracted_snippets": [{"text": "Jail holds people awaiting trial.", "source_url": "http://x/1"}]}'
    with ScriptedServer(default=lambda m: snippets) as srv:
        s = LLMSampler(registry.load("llm", f"openai:s@{srv.url}"), min_words=1)
        got = s.sample(topics[3], set(), random.Random(0))
        assert got["url"] == "http://x/1" and got["text"].startswith("Jail")
        assert s.sample(topics[3], {got["text"]}, random.Random(0)) is None


def test_score_qe_cli(tmp_path):
    if shutil.which("apertium") is None:
        pytest.skip("apertium not installed")
    p = tmp_path / "in.tsv"
    p.write_text("src\tmt\tlp\nThe dog barks.\tEl perro ladra.\ten-es\nThe dog barks.\tEl gato canta.\ten-es\n")
    r = invoke(
        ["score", "qe", "--input", str(p), "--map", "tgt=mt", "--qe", "roundtrip", "--out", str(tmp_path / "o.tsv")]
    )
    assert r.exit_code == 0, r.output
    import pandas as pd

    df = pd.read_csv(tmp_path / "o.tsv", sep="\t")
    assert df["qe"].iloc[0] > df["qe"].iloc[1]
