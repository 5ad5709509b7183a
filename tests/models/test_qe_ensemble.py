"""QE ensembles (--qe A,B), error-scale QE, the MetricX checkpoint layout, and LLM roles whose failures are None."""

import json

import pytest

from mtgauntlet.models import prompts, registry
from mtgauntlet.models.qe_ensemble import error_to_quality, load_qe, split_specs
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import qe_a, qe_b, qe_server_answer, run_main

ROWS = [
    ("The dog barks.", "El perro ladra.", "en-es"),
    ("Tax law is complicated notwithstanding.", "x", "en-es"),
    ("She sold the old house in March.", "Vendió la casa vieja en marzo.", "en-es"),
    ("Der Hund bellt.", "The dog barks.", "de-en"),
]


@pytest.fixture(scope="module")
def judges():
    with (
        ScriptedServer(default=qe_server_answer(qe_a)) as a,
        ScriptedServer(default=qe_server_answer(qe_b)) as b,
        ScriptedServer(default=lambda m: "Major errors. SCORE |||5|||") as err,
    ):
        yield f"llm-as-qe:openai:a@{a.url}", f"llm-as-qe:openai:b@{b.url}", f"llm-as-qe:openai:e@{err.url}"


def test_score_qe_with_two_specs_is_the_mean_of_the_single_runs(judges, tmp_path, monkeypatch, capsys):
    spec_a, spec_b, _ = judges
    table = tmp_path / "in.tsv"
    table.write_text("src\ttgt\tlp\n" + "".join(f"{s}\t{t}\t{lp}\n" for s, t, lp in ROWS), encoding="utf-8")
    runs = {}
    for name, spec in (("a", spec_a), ("b", spec_b), ("ab", f"{spec_a},{spec_b}")):
        code, out, err = run_main(
            monkeypatch,
            capsys,
            "score",
            "qe",
            "--input",
            str(table),
            "--qe",
            spec,
            "--out",
            str(tmp_path / f"{name}.jsonl"),
        )
        assert code == 0, err
        runs[name] = [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
    assert "(1 without a score)" in out
    for a, b, ab in zip(runs["a"], runs["b"], runs["ab"]):
        if a["qe"] is None:  # the judge's unparseable answer: missing in every run, never 50
            assert b["qe"] is None and ab["qe"] is None and ab[f"qe:{spec_a}"] is None
            continue
        assert ab["qe"] == pytest.approx((a["qe"] + b["qe"]) / 2)
        assert ab[f"qe:{spec_a}"] == pytest.approx(a["qe"]) and ab[f"qe:{spec_b}"] == pytest.approx(b["qe"])
        assert a["qe"] == pytest.approx(qe_a(a["src"], a["tgt"]), abs=0.05)


def test_error_scale_option_maps_0_25_errors_to_quality(judges):
    _, _, spec_err = judges
    assert split_specs(f"hf:x#scale=1,error=25,{spec_err}#error=25") == [
        "hf:x#scale=1,error=25",
        f"{spec_err}#error=25",
    ]
    assert split_specs("qe#fast,model=/tmp/m.npz,roundtrip") == ["qe#fast,model=/tmp/m.npz", "roundtrip"]
    assert split_specs("qe#reverse=hf:./x,fast") == ["qe#reverse=hf:./x,fast"]
    ens = load_qe(f"{spec_err}#error=25")
    assert ens.score(["a"], ["b"], "en", "es") == [pytest.approx(80.0)]  # error 5 of 25 -> quality 80
    assert [error_to_quality(x) for x in (0, 12.5, 25, 40, -3, None)] == [100, 50, 0, 0, 100, None]


def test_llm_roles_return_none_on_failure_never_a_number():
    with ScriptedServer(default=lambda m: "I think it is fine!!") as srv:
        qe = registry.load("qe", f"llm-as-qe:openai:judge@{srv.url}")
        assert qe.score(["a source"], ["una fuente"], "en", "es") == [None]
        assert qe.failures["unparseable_score"] == 1 and len(srv.requests) == 3  # 1 try + 2 bounded retries
        tr = registry.load("translator", f"llm-as-translator:openai:mt@{srv.url}")
        assert tr.translate(["Hello"], "en", "es") == [None]
        judge = registry.load("difficulty", f"llm-judge:openai:j@{srv.url}")
        assert judge.difficulty(["x"], "en", "de") == [None] and judge.failures["unparseable_score"] == 1
    # the paper's LLM-as-QE prompt, verbatim (no extra instructions)
    assert prompts.LLM_QE.endswith("make sure to use the |.\nSOURCE: |||{source}|||\nTRANSLATION: |||{translation}|||")


def test_llm_judge_uses_the_sentinel_prompts_and_parses_the_cefr_answer():
    answers = {"gubbins": "Vocabulary: rare.\nFinal: [[[104, C2 (Mastery)]]]", "dog": "Simple. [[[12, A1 (Beginner)]]]"}
    with ScriptedServer(default=lambda m: next(a for k, a in answers.items() if k in m[-1]["content"])) as srv:
        judge = registry.load("difficulty", f"llm-judge:openai:j@{srv.url}")
        assert judge.difficulty(["The dog barks.", "The gubbins snarfled."], "en", "de") == [12.0, 104.0]
        assert judge.levels == {"The dog barks.": "A1", "The gubbins snarfled.": "C2"}
        tgt_prompt = srv.requests[0]["body"]["messages"][0]["content"]
        assert "required to translate this text into German" in tgt_prompt and "101-120 for C2 (Mastery)" in tgt_prompt
        assert tgt_prompt.endswith("Analyze following text:\n\nThe dog barks.")
        src_only = registry.load("difficulty", f"llm-judge-src:openai:j@{srv.url}")
        src_only.difficulty(["The dog barks."], "en", "de")
        src_prompt = srv.requests[-1]["body"]["messages"][0]["content"]
        assert "German" not in src_prompt and "required to translate this text, based on" in src_prompt
        assert srv.requests[-1]["body"]["max_tokens"] >= 1024  # room for the reasoning the prompt asks for
    assert prompts.parse_proficiency("so [[[86, C1 (Advanced)]]]. Later: [[[45]]]") == (45.0, "B1")
    assert prompts.parse_proficiency("SCORE |||86|||") is None and prompts.parse_proficiency("[[[130, C2]]]") is None


# -- MetricX: the released checkpoint layout, on a tiny random checkpoint built here -------------------------
@pytest.fixture(scope="module")
def metricx_dir(tmp_path_factory):
    torch = pytest.importorskip("torch")
    from safetensors.torch import save_file
    from tokenizers.processors import TemplateProcessing
    from transformers import MT5Config, MT5ForConditionalGeneration

    from tests.support.tiny_models import train_tokenizer

    path = tmp_path_factory.mktemp("metricx")
    tok = train_tokenizer(extra_special=[f"<extra_id_{i}>" for i in range(12)])
    eos = tok.convert_tokens_to_ids("</s>")
    tok._tokenizer.post_processor = TemplateProcessing(single="$A </s>", special_tokens=[("</s>", eos)])
    cfg = MT5Config(
        vocab_size=len(tok),
        d_model=32,
        d_ff=64,
        d_kv=8,
        num_layers=2,
        num_heads=2,
        decoder_start_token_id=0,
        pad_token_id=tok.pad_token_id,
        eos_token_id=eos,
    )
    torch.manual_seed(0)
    model = MT5ForConditionalGeneration(cfg)
    model.lm_head.weight = torch.nn.Parameter(torch.randn_like(model.lm_head.weight))  # untied, as mT5
    with torch.no_grad():  # put the <extra_id_10> logit of a typical input near 12 (inside the clipping range)
        ids = torch.tensor([tok("source: The dog barks. candidate: El perro ladra.")["input_ids"][:-1]])
        h = model.decoder(
            input_ids=torch.zeros((1, 1), dtype=torch.long),
            encoder_hidden_states=model.encoder(input_ids=ids).last_hidden_state,
        ).last_hidden_state[0, 0]
        row = tok.convert_tokens_to_ids("<extra_id_10>")
        model.lm_head.weight[row] = 12 * h / (h @ h) + 0.5 * torch.randn_like(h)
    state = {k: v.clone().contiguous() for k, v in model.state_dict().items() if "embed_tokens" not in k}
    save_file(state, path / "model.safetensors", metadata={"format": "pt"})
    config = cfg.to_dict() | {"tie_word_embeddings": False, "architectures": ["MT5ForRegression"]}
    (path / "config.json").write_text(json.dumps(config))
    tok.save_pretrained(path)
    return path


def _reference_score(path, source, candidate):
    """What google-research/metricx (metricx24/models.py + predict.py) computes, written out by hand."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoTokenizer, MT5Config
    from transformers.models.mt5.modeling_mt5 import MT5Stack

    tok = AutoTokenizer.from_pretrained(path)
    sd = load_file(path / "model.safetensors")
    cfg = MT5Config(
        **{
            k: v
            for k, v in json.loads((path / "config.json").read_text()).items()
            if k not in ("architectures", "transformers_version")
        }
    )
    shared = torch.nn.Embedding(cfg.vocab_size, cfg.d_model)
    shared.weight.data = sd["shared.weight"]
    enc_cfg = MT5Config(**{**cfg.to_dict(), "is_decoder": False, "use_cache": False, "is_encoder_decoder": False})
    dec_cfg = MT5Config(**{**cfg.to_dict(), "is_decoder": True, "is_encoder_decoder": False})
    encoder, decoder = MT5Stack(enc_cfg), MT5Stack(dec_cfg)
    encoder.embed_tokens = decoder.embed_tokens = shared
    encoder.load_state_dict({k[8:]: v for k, v in sd.items() if k.startswith("encoder.")}, strict=False)
    decoder.load_state_dict({k[8:]: v for k, v in sd.items() if k.startswith("decoder.")}, strict=False)
    encoder.eval(), decoder.eval()
    ids = tok("source: " + source + " candidate: " + candidate)["input_ids"][:-1]  # _remove_eos
    with torch.no_grad():
        hidden = encoder(input_ids=torch.tensor([ids])).last_hidden_state
        out = decoder(
            input_ids=torch.zeros((1, 1), dtype=torch.long), encoder_hidden_states=hidden, use_cache=False
        ).last_hidden_state
        logits = out @ sd["lm_head.weight"].T
    return float(torch.clamp(logits[0, 0, tok.convert_tokens_to_ids("<extra_id_10>")], 0, 25))


def test_metricx_backend_reads_the_checkpoint_layout(metricx_dir):
    import torch

    mx = registry.load("qe", f"metricx:{metricx_dir}#batch=2")
    srcs = ["The dog barks.", "A cat sleeps on the mat.", "Maria visited Madrid in 2020."]
    hyps = ["El perro ladra.", "Un gato duerme en la alfombra.", "Maria visitó Madrid en 2020."]
    errors = mx.errors(srcs, hyps)
    expected = [_reference_score(metricx_dir, s, h) for s, h in zip(srcs, hyps)]
    assert errors == pytest.approx(expected, abs=1e-4) and len(set(round(e, 3) for e in errors)) > 1
    assert mx.score(srcs, hyps, "en", "es") == pytest.approx([100 - 4 * e for e in errors], abs=1e-6)
    assert mx.errors(srcs[:1], hyps[:1]) == pytest.approx(errors[:1], abs=1e-5)  # alone = in a batch
    row = mx.tokenizer.convert_tokens_to_ids("<extra_id_10>")
    ids = torch.tensor([mx._encode(srcs[0], hyps[0])])
    with torch.no_grad():  # the score is that token's logit at the first decoder step, clipped to [0, 25]
        enc = mx.model.encoder(input_ids=ids).last_hidden_state
        h = mx.model.decoder(
            input_ids=torch.zeros((1, 1), dtype=torch.long), encoder_hidden_states=enc
        ).last_hidden_state[0, 0]
        for logit, want in ((12.3, 12.3), (40.0, 25.0), (-5.0, 0.0)):
            mx.model.lm_head.weight[row] = logit * h / (h @ h)
            assert mx._predict([[srcs[0], hyps[0]]])[0] == pytest.approx(want, abs=1e-3)
