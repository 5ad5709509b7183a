"""hf: backends on tiny models built by the tests (random weights, tokenizers trained here)."""

import pytest

from tests import tiny_models
from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models import registry
from mtgauntlet.models.hf import extract_first_span

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("tiny")
    tiny_models.causal_lm(d / "causal")
    tiny_models.causal_lm(d / "causal-notemplate", chat_template=False)
    tiny_models.seq2seq(d / "t5")
    tiny_models.classifier(d / "nli", 3, {0: "CONTRADICTION", 1: "neutral", 2: "Entailment"})
    tiny_models.classifier(d / "nli-unnamed", 3)
    tiny_models.classifier(d / "reg", 1)
    return d


def test_causal_chat_complete_logprobs(models_dir):
    llm = registry.load("llm", f"hf:{models_dir / 'causal'}")
    reply = llm.chat([{"role": "user", "content": "The dog barks."}], max_tokens=5)
    assert isinstance(reply, str)
    assert llm.chat([{"role": "user", "content": "The dog barks."}], max_tokens=5) == reply  # greedy + cached
    assert isinstance(llm.complete("The cat", max_tokens=4), str)
    lps = llm.token_logprobs(["The dog barks at the mailman.", "A"])
    assert len(lps) == 2 and len(lps[0]) > 3 and all(v <= 0 for v in lps[0])
    plain = registry.load("llm", f"hf:{models_dir / 'causal-notemplate'}")
    assert plain._format([{"role": "user", "content": "hi"}]).endswith("assistant:")


def test_seq2seq_translate_and_infill(models_dir):
    tr = registry.load("translator", f"hf:{models_dir / 't5'}")
    out = tr.translate(["The dog barks.", "A cat sleeps."], "en", "es")
    assert len(out) == 2 and all(isinstance(x, str) for x in out)
    inf = registry.load("infiller", f"hf:{models_dir / 't5'}")
    fills = inf.fill(["The <extra_id_0> barks."], n=3, seed=1)
    assert len(fills) == 1 and len(fills[0]) == 3
    assert all("<extra_id" not in f for f in fills[0])


def test_extract_first_span_strips_punctuation():
    assert extract_first_span("<pad><extra_id_0>, Barcelona<extra_id_1> rest</s>") == "Barcelona"
    assert extract_first_span("<pad> no sentinel") == "no sentinel"


def test_nli_labels_from_config(models_dir):
    nli = registry.load("nli", f"hf:{models_dir / 'nli'}")
    probs = nli.predict(["The dog barks."], ["The dog does not bark."])
    assert set(probs[0]) == {"entailment", "neutral", "contradiction"}
    assert abs(sum(probs[0].values()) - 1) < 1e-5
    assert nli.labels == ["contradiction", "neutral", "entailment"]
    with pytest.raises(BackendUnavailable, match="#labels="):
        registry.load("nli", f"hf:{models_dir / 'nli-unnamed'}")
    explicit = registry.load("nli", f"hf:{models_dir / 'nli-unnamed'}#labels=entailment+neutral+contradiction")
    assert explicit.labels == ["entailment", "neutral", "contradiction"]


def test_regression_heads(models_dir):
    qe = registry.load("qe", f"hf:{models_dir / 'reg'}#scale=100")
    s = qe.score(["The dog barks."], ["El perro ladra."], "en", "es")
    assert len(s) == 1 and 0 <= s[0] <= 100
    d = registry.load("difficulty", f"hf:{models_dir / 'reg'}")
    dn = registry.load("difficulty", f"hf:{models_dir / 'reg'}#negate")
    a, b = d.difficulty(["The dog barks."]), dn.difficulty(["The dog barks."])
    assert a[0] == pytest.approx(-b[0])
    with pytest.raises(BackendUnavailable, match="regression head"):
        registry.load("qe", f"hf:{models_dir / 'nli'}")


def test_missing_model_is_clear_error(tmp_path):
    with pytest.raises(BackendUnavailable, match="no hub access"):
        registry.load("translator", f"hf:{tmp_path / 'nothing-here'}")


def test_smollm2_packaged_gguf():
    pytest.importorskip("gguf")
    try:
        llm = registry.load("llm", "smollm2")
    except BackendUnavailable as exc:
        pytest.skip(str(exc))
    reply = llm.chat([{"role": "user", "content": "Say hello in one word."}], max_tokens=8)
    assert reply.strip()
    lps = llm.token_logprobs(["The cat sat on the mat.", "mat the on sat cat The."])
    # a real LM prefers the grammatical order
    assert sum(lps[0]) / len(lps[0]) > sum(lps[1]) / len(lps[1])
