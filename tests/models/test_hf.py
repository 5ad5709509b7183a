"""hf: backends on tiny models built by the tests (random weights, tokenizers trained here)."""

import pytest

from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models import registry
from mtgauntlet.models.hf import extract_first_span
from tests.support import tiny_models

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
    short = registry.load("infiller", f"hf:{models_dir / 't5'}#max_tokens=2")  # the spec's option is the span limit
    assert (inf.max_tokens, short.max_tokens) == (16, 2)
    assert len(short.fill(["The <extra_id_0> barks."], n=2, seed=1)[0]) == 2
    for bad in ("many", "0"):
        with pytest.raises(BackendUnavailable, match="max_tokens must be a whole number of at least 1"):
            registry.load("infiller", f"hf:{models_dir / 't5'}#max_tokens={bad}")


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


# -- batching: length-sorted batches, input order, OOM back-off, truncation ---------------------------------------
TEXTS = [
    "A cat.",
    "The government approved the law in March and Maria visited Madrid in 2020.",
    "El perro ladra al cartero.",
    "No.",
    "I do not want to go to the beach.",
    "Un gato duerme en la alfombra.",
    "The dog barks at the mailman.",
    "Maria visited Madrid.",
]


class OOMAbove:
    """Stands in for a GPU: the wrapped model raises CUDA's out-of-memory error for batches above ``limit``."""

    def __init__(self, model, limit: int):
        self.model, self.limit, self.batches = model, limit, []

    def _check(self, kw):
        import torch

        n = kw["input_ids"].shape[0]
        self.batches.append(n)
        if n > self.limit:
            raise torch.OutOfMemoryError(f"CUDA out of memory. Tried to allocate 2.00 GiB (batch {n}, simulated)")

    def __call__(self, **kw):
        self._check(kw)
        return self.model(**kw)

    def generate(self, **kw):
        self._check(kw)
        return self.model.generate(**kw)


def test_order_restored_and_batch_size_does_not_change_results(models_dir):
    one = registry.load("translator", f"hf:{models_dir / 't5'}#batch=1,max_tokens=8")
    many = registry.load("translator", f"hf:{models_dir / 't5'}#batch=3,max_tokens=8")
    singles = [one._run([t], "en", "es")[0] for t in TEXTS]
    assert many._run(TEXTS, "en", "es") == singles  # greedy text: identical, in input order
    nli1 = registry.load("nli", f"hf:{models_dir / 'nli'}#batch=1")
    nli5 = registry.load("nli", f"hf:{models_dir / 'nli'}#batch=5")
    hyps = TEXTS[::-1]
    a, b = nli1._run([[p, h] for p, h in zip(TEXTS, hyps)]), nli5._run([[p, h] for p, h in zip(TEXTS, hyps)])
    for x, y, p, h in zip(a, b, TEXTS, hyps):
        assert x == pytest.approx(y, abs=1e-6)  # padding changes only the last float bits
        assert x == pytest.approx(nli1._run([[p, h]])[0], abs=1e-6)  # row i is the result of input i
        assert max(x, key=x.get) == max(y, key=y.get)


def test_out_of_memory_halves_the_batch_and_retries(models_dir, caplog):
    reference = registry.load("difficulty", f"hf:{models_dir / 'reg'}#batch=1")._predict(TEXTS, None)
    est = registry.load("difficulty", f"hf:{models_dir / 'reg'}#batch=8,device=cpu")
    est.model = OOMAbove(est.model, limit=2)
    with caplog.at_level("WARNING"):
        got = est._predict(TEXTS, None)
    assert got == pytest.approx(reference, abs=1e-6)
    assert est.model.batches[:3] == [8, 4, 2] and max(est.model.batches[3:]) == 2  # halved for good
    assert est.runtime_info()["batch"] == 2 and est.runtime_info()["oom_halvings"] == 2
    assert "batch size halved to 4" in caplog.text
    tr = registry.load("translator", f"hf:{models_dir / 't5'}#batch=4,max_tokens=8")
    expected = tr._run(TEXTS, "en", "es")
    tr.model = OOMAbove(tr.model, limit=1)
    assert tr._run(TEXTS, "en", "es") == expected and tr.batch_size == 1
    tr.model.limit = 0  # even one item does not fit: one clear error, no torch traceback
    with pytest.raises(BackendUnavailable, match="out of memory on cpu even with batch size 1"):
        tr._run(TEXTS[:1], "en", "es")


def test_truncation_is_counted_and_warned(models_dir, caplog):
    nli = registry.load("nli", f"hf:{models_dir / 'nli'}#batch=4")
    limit = nli.max_input_tokens()
    long = " ".join(["The dog barks at the mailman."] * 40)
    with caplog.at_level("WARNING"):
        probs = nli.predict([long, "A cat.", long + " again"], ["x", "y", "z"])
    assert len(probs) == 3 and limit == 126
    assert nli.runtime_info()["truncated"] == 2
    assert "2 of 3 input(s) are longer than 126 tokens and were truncated" in caplog.text


def test_hf_chat_many_batches_greedy_and_seeds_sampling(models_dir):
    llm = registry.load("llm", f"hf:{models_dir / 'causal'}#batch=3")
    convs = [[{"role": "user", "content": t}] for t in TEXTS[:5]]
    singles = [llm._generate(llm._format(c), 6, 0.0, None) for c in convs]
    assert llm.chat_many(convs, max_tokens=6) == singles
    sampled = llm.chat_many(convs[:3], max_tokens=6, temperature=0.9, seed=[1, 2, 3])
    assert sampled == [llm._generate(llm._format(c), 6, 0.9, s) for c, s in zip(convs[:3], [1, 2, 3])]
    assert llm.chat_many(convs[:3][::-1], max_tokens=6, temperature=0.9, seed=[3, 2, 1]) == sampled[::-1]
