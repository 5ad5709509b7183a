"""The LLM judge's error spans (``llm-as-qe:…#spans=1``): the answer read (JSON text or schema-constrained JSON),
each span text mapped to its first unused occurrence in the translation, the MQM score with the import's weights."""

from __future__ import annotations

import json

import pytest

from mtgauntlet.core.cache import take_options
from mtgauntlet.errors import GauntletError
from mtgauntlet.models.error_spans import ERROR_SPANS, MarkedError, locate, parse_errors


def _errors(*triples):
    return [MarkedError(span, category, severity) for span, category, severity in triples]


def test_spans_are_first_unused_occurrences_and_the_score_uses_the_import_weights():
    target = "Der Hund sah den Hund. Der Hund lief."
    got = locate(
        _errors(
            ("Hund", "accuracy/mistranslation", "major"),  # 4..8
            ("Hund", "accuracy/mistranslation", "minor"),  # the next one: 17..21
            ("Der", "fluency/punctuation", "minor"),  # 0..3
            ("Katze", "accuracy/addition", "critical"),  # not in the target: no span, counted, still scored
        ),
        target,
    )
    assert [(s["start"], s["end"], s["severity"]) for s in got.spans] == [(0, 3, "minor"), (4, 8, "major"),
                                                                          (17, 21, "minor")]  # fmt: skip
    assert [target[s["start"] : s["end"]] for s in got.spans] == ["Der", "Hund", "Hund"]
    assert got.not_found == 1
    assert got.score == pytest.approx(-(5 + 1 + 0.1 + 5))  # Google's MQM weights, as `import mqm-spans` gives
    # a third "Hund" error takes the third occurrence, a fourth finds none left
    three = locate(_errors(*[("Hund", "other", "minor")] * 4), target)
    assert [s["start"] for s in three.spans] == [4, 17, 27] and three.not_found == 1
    assert locate([], target).score == 0.0 and locate([], target).spans == []
    assert locate(_errors(("", "no-error", "minor")), target).not_found == 0  # a no-error entry marks nothing


def test_answers_are_read_from_json_text_fenced_or_not_and_garbage_is_none():
    errors = [{"span": "Hund", "category": "Accuracy/Mistranslation", "severity": "Major"}]
    plain = json.dumps({"errors": errors})
    assert parse_errors(plain) == [MarkedError("Hund", "accuracy/mistranslation", "major")]
    assert parse_errors(f"Here you go:\n```json\n{plain}\n```") == parse_errors(plain)
    assert parse_errors('{"errors": []}') == []
    for garbage in ("The translation is fine.", '{"errors": [{"span": "x"}]}', '{"errors": "none"}',
                    '{"errors": [{"span": "x", "category": "other", "severity": "horrible"}]}', "{not json}"):  # fmt: skip
        assert parse_errors(garbage) is None, garbage
    # the schema (sent with #json=1) holds the severities as an enum, and validates the same
    schema = ERROR_SPANS.json_schema()
    assert schema["properties"]["errors"]["items"]["properties"]["severity"]["enum"] == ["critical", "major", "minor"]
    assert ERROR_SPANS.parse('{"errors": [{"span": "x", "category": "other", "severity": "Major"}]}') is None


def test_the_wrappers_own_option_is_taken_out_of_the_llm_spec():
    assert take_options("openai:m@http://h/v1#json=1,spans=1", {"spans"}) == ("openai:m@http://h/v1#json=1",
                                                                               {"spans": "1"})  # fmt: skip
    assert take_options("openai:m#spans=1", {"spans"}) == ("openai:m", {"spans": "1"})
    assert take_options("openai:m", {"spans"}) == ("openai:m", {})
    with pytest.raises(GauntletError, match="given twice"):
        take_options("openai:m#spans=1,spans=0", {"spans"})


def test_spans_is_llm_as_qe_s_own_declared_option_and_only_takes_1_or_0():
    from mtgauntlet.core.spec_public import ANSWER
    from mtgauntlet.models import registry
    from mtgauntlet.models.llm_roles import LLMQualityEstimator

    assert LLMQualityEstimator.wrapper_options == {"spans": ANSWER} and registry.options_of("llm-as-qe") is None
    with pytest.raises(GauntletError, match=r"#spans='2' must be 1 or 0"):
        registry.load("qe", "llm-as-qe:openai:judge@http://127.0.0.1:9/v1#spans=2")
    judge = registry.load("qe", "llm-as-qe:openai:judge@http://127.0.0.1:9/v1#json=1,spans=1")
    assert judge.spans and judge.llm.structured and "spans" not in judge.llm.spec  # the LLM never sees #spans
