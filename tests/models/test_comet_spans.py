"""xCOMET's error spans kept by ``comet:``. unbabel-comet is not installed here and an xCOMET model cannot be built
offline, so the conversion is tested on the exact structure unbabel-comet's ``predict`` returns for an xCOMET model
(read from its source, ``comet/models/multitask/unified_metric.py`` ``UnifiedMetric.decode`` and
``xcomet_metric.py`` ``XCOMETMetric.predict_step``; ``comet/models/base.py`` ``predict`` flattens ``metadata`` to one
entry per input, in input order): ``Prediction(scores=[...], system_score=..., metadata=Prediction(src_scores=...,
mqm_scores=..., error_spans=[[{"text", "confidence", "severity", "start", "end"}, ...], ...]))``, where
``Prediction`` is a ``dict`` whose keys read as attributes."""

from __future__ import annotations

from mtgauntlet.models.comet import CometQE, error_spans_of, xcomet_spans


class Prediction(dict):
    """As ``comet.models.utils.Prediction``: a dict whose keys are attributes too."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


TEXTS = ["Ich möchte euch alle bitten, das zu bedenken.", "Das ist gut."]
# what XCOMETMetric.predict gives for these two (QE: src + mt): offsets of XLM-R subwords, a leading space included
XCOMET_OUTPUT = Prediction(
    scores=[0.62, 0.97],
    system_score=0.795,
    metadata=Prediction(
        src_scores=[0.7, 0.98],
        mqm_scores=[0.76, 1.0],
        error_spans=[
            [
                {"text": "▁euch", "confidence": 0.61, "severity": "minor", "start": 10, "end": 15},
                {"text": "▁bedenken.", "confidence": 0.52, "severity": "major", "start": 35, "end": 45},
            ],
            [],
        ],
    ),
)


class _Model:
    """Stands in for the xCOMET checkpoint (not loadable here): ``predict`` answers the structure above."""

    word_level = True

    def __init__(self):
        self.calls = 0

    def predict(self, data, batch_size, progress_bar, **kw):
        self.calls += 1
        assert [d["mt"] for d in data] == TEXTS and all(set(d) == {"src", "mt"} for d in data)
        return XCOMET_OUTPUT


def test_xcomet_spans_become_offsets_into_the_translation():
    found = error_spans_of(XCOMET_OUTPUT, 2)
    first = xcomet_spans(found[0], TEXTS[0])
    assert first == [{"start": 11, "end": 15, "severity": "minor"}, {"start": 36, "end": 45, "severity": "major"}]
    assert [TEXTS[0][s["start"] : s["end"]] for s in first] == ["euch", "bedenken."]
    assert xcomet_spans(found[1], TEXTS[1]) == []  # no error: an empty list, not "no spans"
    # a plain COMET model has no error_spans: no spans (None), never an empty list
    assert error_spans_of(Prediction(scores=[0.5], system_score=0.5), 1) == [None]
    assert xcomet_spans(None, "x") is None
    # offsets past the text are cut to it; a span of whitespace only is dropped
    assert xcomet_spans([{"start": 8, "end": 99, "severity": "Critical"}, {"start": 3, "end": 4}], "Das ist gut.") == [
        {"start": 8, "end": 12, "severity": "critical"}
    ]


def test_backend_gives_scores_and_spans_of_an_xcomet_model(tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache"))
    qe = CometQE.__new__(CometQE)  # the model itself cannot be loaded here (no unbabel-comet, no network)
    qe.spec, qe.model, qe.batch_size, qe._predict_kw = "comet:Unbabel/XCOMET-XL", _Model(), 8, {"gpus": 0}
    from mtgauntlet.models.runtime import resolve_runtime

    qe.runtime = resolve_runtime({}, default_batch=8, device="cpu")
    qe.gives_spans = bool(getattr(qe.model, "word_level", False))
    got = qe.score_spans(["src a", "src b"], TEXTS, "en", "de")
    assert qe.gives_spans and [round(s, 6) for s, _ in got] == [62.0, 97.0]
    assert [s["severity"] for s in got[0][1]] == ["minor", "major"] and got[1][1] == []
    assert qe.score_spans(["src a", "src b"], TEXTS, "en", "de") == got and qe.model.calls == 1  # cached, spans too
