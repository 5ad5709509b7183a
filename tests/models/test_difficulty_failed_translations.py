"""Issue #30.2: the artificial crowd never turns a failed translation into a difficulty. A text whose translation
(or QE score) failed has a missing difficulty: `build subset` leaves it out and counts it, `evaluate dec`
leaves it out and counts it (both through the real entry point, against a local OpenAI-compatible server that
fails for some texts)."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import MT_FAILS_ON, QE_FAILS_ON, qe_a, qe_server_answer, translate

TEXTS = [
    "The mayor opened the new bridge on Monday.",
    f"The committee was {MT_FAILS_ON} by the late report.",
    "Rain is expected across the north tonight.",
    f"The rule applies {QE_FAILS_ON} the earlier agreement.",
    "Three students won the regional science prize.",
    "The museum will stay closed until spring.",
]


@pytest.fixture()
def crowd_spec():
    with ScriptedServer(default=translate) as mt, ScriptedServer(default=qe_server_answer(qe_a)) as qe:
        yield f"crowd:llm-as-translator:openai:mt@{mt.url};qe=llm-as-qe:openai:qa@{qe.url}"


def test_crowd_failed_translation_is_a_missing_difficulty_not_a_number(crowd_spec):
    from mtgauntlet.models import registry

    got = registry.load("difficulty", crowd_spec).difficulty(TEXTS, "en", "de")
    assert got[1] is None  # the translator failed: no QE was asked, no 100 - QE(None)
    assert got[3] is None  # the QE failed
    assert all(isinstance(g, float) for i, g in enumerate(got) if i not in (1, 3))


def test_crowd_with_shipped_qe_does_not_crash_on_a_failed_translation(crowd_spec):
    from mtgauntlet.models import registry

    spec = crowd_spec.split(";qe=")[0] + ";qe=qe#fast"
    got = registry.load("difficulty", spec).difficulty(TEXTS[:3], "en", "de")
    assert got[1] is None and isinstance(got[0], float) and isinstance(got[2], float)


def test_build_subset_with_crowd_counts_texts_without_difficulty(tmp_path, crowd_spec):
    src = tmp_path / "corpus.tsv"
    src.write_text("src\n" + "\n".join(TEXTS) + "\n", encoding="utf-8")
    r = invoke(
        [
            "build",
            "subset",
            "--input",
            src,
            "--src-lang",
            "en",
            "--tgt-lang",
            "de",
            "--estimator",
            crowd_spec,
            "--budget",
            "10",
            "--out",
            tmp_path / "b",
        ]
    )
    assert r.exit_code == 0, r
    texts = pq.read_table(tmp_path / "b" / "data").column("text").to_pylist()
    assert sorted(texts) == sorted(t for i, t in enumerate(TEXTS) if i not in (1, 3))
    manifest = json.loads((tmp_path / "b" / "build.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["rejected"] == {"no difficulty score": 2}


def test_evaluate_dec_with_crowd_leaves_out_and_counts_failed_sources(tmp_path, crowd_spec):
    rows = ["item_id\tlp\tsystem\tsrc\tscore"]
    for i, t in enumerate(TEXTS):
        for s, base in (("sysA", 70), ("sysB", 60)):
            rows.append(f"{i}\ten-de\t{s}\t{t}\t{base + 3 * i}")
    judgments = tmp_path / "judgments.tsv"
    judgments.write_text("\n".join(rows) + "\n", encoding="utf-8")
    r = invoke(["evaluate", "dec", "--judgments", judgments, "--estimator", crowd_spec, "--protocol", "esa", "--json"])
    assert r.exit_code == 0, r
    out = json.loads(r.stdout)
    assert out["results"][0]["failures"] == {"en-de": 2}
