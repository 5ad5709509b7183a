"""Table 2's LLM-rated rows (issue #30.10): naturalness, topic diversity and the judge's grammaticality, rarity and
syntax from the appendix's source-text analysis prompt, through `gauntlet evaluate breaker --judge` against a judge
served over the real OpenAI protocol; unusable answers are left out and counted. `--lm` adds the embedded LM's
offline naturalness. The same prompt backs `gauntlet validate` (options.judge) and the audit page."""

from __future__ import annotations

import json
import re

import pytest

from mtgauntlet.corpora.formats import read_flores
from mtgauntlet.models.prompts import parse_source_analysis
from mtgauntlet.records import load_records
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import EDIT_WORDS, QE_FAILS_ON, cli, qe_a, qe_b, scripted_stack

UNUSABLE_ON = EDIT_WORDS[0]  # the judge answers the source analysis of texts with the first edit word in prose


def _analysed(prompt: str) -> str:
    return prompt.split("The sentence to analyze is:\n> ", 1)[1].split("\nAnswer with one JSON", 1)[0]


def rating(text: str) -> dict | None:
    """What the scripted judge says of a text (None: an unusable answer)."""
    if UNUSABLE_ON in text:
        return None
    words = re.findall(r"\w+", text)
    return {
        "grammaticality": 90.0 - len(words) % 7,
        "naturalness": max(0.0, 100.0 - 2.5 * len(words)),
        "word rarity": float(min(100, 8 * max(len(w) for w in words))),
        "syntax complexity": 10.0 * text.count(","),
        "topics": [words[0].lower(), "Public Records" if "county" in text else "news"],
    }


def judge_answer(messages, body) -> str:
    prompt = messages[-1]["content"]
    if prompt.startswith("Analyze the following translation"):
        return json.dumps({"error_modes": ["idioms"]}) if body.get("response_format") else '"error_modes": ["idioms"],'
    r = rating(_analysed(prompt))
    if r is None:
        return "This reads like a perfectly natural sentence about local news."
    if body.get("response_format"):  # #json=1: the schema's field names, nothing else
        return json.dumps({k.replace(" ", "_"): v for k, v in r.items()})
    return "{\n" + "".join(f'"{k}": {json.dumps(v)},\n' for k, v in r.items()) + "}"  # the paper's example form


judge_answer.wants_body = True


@pytest.fixture(scope="module")
def breaker_set(tmp_path_factory, shared_data):
    """A seeded MT-breaker set built on four FLORES English sentences by the scripted editor."""
    tmp = tmp_path_factory.mktemp("table2")
    rows = read_flores(shared_data / "flores200-devtest/flores200_devtest.tsv.gz", src="en", tgt="es").rows[:4]
    seeds = tmp / "seeds.tsv"
    seeds.write_text("text\n" + "".join(r["src"] + "\n" for r in rows), encoding="utf-8")
    with scripted_stack() as s:
        code, _, err = cli(
            "build",
            "mtbreaker",
            "--seeds",
            str(seeds),
            "--llm",
            s["llm"],
            "--mt",
            s["mt"],
            "--qe",
            f"{s['qe_a']},{s['qe_b']}",
            "--steps",
            "3",
            "--no-language-guard",
            "--out",
            str(tmp / "set"),
        )
    assert code == 0, err
    return tmp / "set"


def test_one_table2_row_per_qe_metric(breaker_set):
    """The paper's QE (MetricX) and QE (LLM) rows: the mean QE of the selected texts by each QE spec, every column."""
    recs = load_records(breaker_set).to_pylist()
    specs = recs[0]["qe_models"]
    code, out, err = cli("evaluate", "breaker", "--set", str(breaker_set), "--json")
    assert code == 0, err
    table = json.loads(out)["table2"]
    for column, texts in (
        (recs[0]["method"], [r["text"] for r in recs]),
        ("seeds", [r["trajectory"][0]["source"] for r in recs]),
    ):
        scored = [t for t in texts if QE_FAILS_ON not in t]  # the scripted QE judges answer garbage for these
        for spec, fn in zip(specs, (qe_a, qe_b)):
            want = sum(fn(t, t.upper()) for t in scored) / len(scored)
            assert table[column][f"qe[{spec}]"] == pytest.approx(want, abs=0.051), (column, spec)  # scores as %.1f
    code, out, err = cli("evaluate", "breaker", "--set", str(breaker_set))
    assert code == 0, err
    assert out.count("qe[llm-as-qe:openai:") == len(specs) == 2  # the row names as written, not read as markup


def test_table_cells_and_names_are_printed_as_written(capsys):
    import pandas as pd

    from mtgauntlet.cli.common import print_frame

    print_frame(pd.DataFrame({"qe[llm-as-qe:openai:a@http://h]": ["[bold]not bold[/bold]", "[red]x"]}))
    out = capsys.readouterr().out
    assert "qe[llm-as-qe:openai:a@http://h]" in out and "[bold]not bold[/bold]" in out and "[red]x" in out


def _expected(texts):
    ratings = [rating(t) for t in texts]
    ok = [r for r in ratings if r]
    mean = lambda key: sum(r[key] for r in ok) / len(ok)  # noqa: E731
    return {
        "naturalness": mean("naturalness"),
        "grammaticality_llm": mean("grammaticality"),
        "word_rarity_llm": mean("word rarity"),
        "syntax_complexity_llm": mean("syntax complexity"),
        "diversity_topics": len({t.lower() for r in ok for t in r["topics"]}),
        "source_analysis_failures": len(ratings) - len(ok),
    }


@pytest.mark.parametrize("structured", [False, True], ids=["text", "json"])
def test_evaluate_breaker_rates_naturalness_and_topics_with_the_judge(breaker_set, structured):
    recs = load_records(breaker_set).to_pylist()
    texts = [r["text"] for r in recs]
    seeds = [r["trajectory"][0]["source"] for r in recs]
    assert any(UNUSABLE_ON in t for t in texts) and len({*texts, *seeds}) > 4  # the edits reach the judge
    with ScriptedServer(default=judge_answer) as judge:
        spec = f"openai:j@{judge.url}" + ("#json=1" if structured else "")
        code, out, err = cli("evaluate", "breaker", "--set", str(breaker_set), "--judge", spec, "--json")
        assert code == 0, err
        asked = [m["body"]["messages"][-1]["content"] for m in judge.requests]
    table = json.loads(out)["table2"]
    method = recs[0]["method"]
    for column, column_texts in ((method, texts), ("seeds", seeds)):
        row, want = table[column], _expected(column_texts)
        for key, value in want.items():
            assert row[key] == pytest.approx(value), (column, key)
    assert table[method]["source_analysis_failures"] > 0 and table[method]["diversity_errors"] == 1
    # the appendix's prompt verbatim, once per distinct text of every column (a seed no edit beat is the selected
    # text too: asked once, the second answer comes from the request cache)
    analyses = [a for a in asked if a.startswith("Analyze the following text and return the answer in JSON.")]
    assert sorted(_analysed(a) for a in analyses) == sorted(set(texts + seeds))
    assert all("- naturalness: on a scale from 0 (wholy unnatural) to 100" in a for a in analyses)
    assert all(("Answer with one JSON object" in a) == structured for a in analyses)


def test_evaluate_breaker_lm_naturalness_is_the_embedded_lm_score(breaker_set):
    from mtgauntlet.validators.fluency import lm_naturalness

    recs = load_records(breaker_set).to_pylist()
    code, out, err = cli("evaluate", "breaker", "--set", str(breaker_set), "--lm", "--json")
    assert code == 0, err
    table = json.loads(out)["table2"]
    nat = lm_naturalness([r["text"] for r in recs])
    assert table[recs[0]["method"]]["lm_naturalness"] == pytest.approx(sum(nat) / len(nat))
    assert "naturalness" not in table[recs[0]["method"]]  # the LLM-rated row needs --judge
    code, out, err = cli("evaluate", "breaker", "--set", str(breaker_set))
    assert code == 0, err
    assert "lm_naturalness" not in out  # not computed without --lm
    assert re.search(r"^\W*diversity_chrf\b", out, re.M)  # the paper's layout: one row per measure


def test_source_only_difficulty_rows(breaker_set):
    """In place of the paper's SRCQE row (its source-only MetricX is not released): the mean of any source-only
    difficulty estimator per column, each text scored in its own language."""
    from mtgauntlet.models import registry

    recs = load_records(breaker_set).to_pylist()
    code, out, err = cli("evaluate", "breaker", "--set", str(breaker_set), "--difficulty", "length,rarity", "--json")
    assert code == 0, err
    table = json.loads(out)["table2"]
    for column, texts in (
        (recs[0]["method"], [r["text"] for r in recs]),
        ("seeds", [r["trajectory"][0]["source"] for r in recs]),
    ):
        for spec in ("length", "rarity"):
            values = registry.load("difficulty", spec).difficulty(texts, src_lang="en")
            assert table[column][f"difficulty[{spec}]"] == pytest.approx(sum(values) / len(values)), (column, spec)
    assert table["seeds"]["difficulty[length]"] != table[recs[0]["method"]]["difficulty[length]"]
    code, out, err = cli("evaluate", "breaker", "--set", str(breaker_set), "--difficulty", "sentinel:'; DROP x")
    assert code == 2 and err.startswith("error: --difficulty sentinel:'; DROP x: ") and err.count("\n") == 1


def test_validate_judge_metrics_and_audit_row(breaker_set, tmp_path):
    recs = load_records(breaker_set).to_pylist()
    with ScriptedServer(default=judge_answer) as judge:
        rules = tmp_path / "rules.yaml"
        rules.write_text(f"version: 1\noptions:\n  judge: openai:j@{judge.url}\n", encoding="utf-8")
        code, out, err = cli("validate", "records", str(breaker_set), "--rules", str(rules), "--json")
        assert code == 0, err
        page = tmp_path / "audit.html"
        code, _, err = cli("audit", str(breaker_set), "--rules", str(rules), "--out", str(page))
        assert code == 0, err
    metrics = json.loads(out)["kinds"]["breaker_text"]["metrics"]
    want = _expected([r["text"] for r in recs])
    assert metrics["judge_naturalness_mean"] == pytest.approx(want["naturalness"])
    assert metrics["judge_unique_topics"] == want["diversity_topics"]
    assert metrics["judge_failures"] == want["source_analysis_failures"] > 0
    html = page.read_text(encoding="utf-8")
    assert "Diversity (topics, LLM judge)" in html and "Naturalness (LLM judge)" in html
    assert f"{want['source_analysis_failures']} unusable answer(s) left out" in html


@pytest.mark.parametrize(
    "answer, expected",
    [
        (
            '{\n"grammaticality": 90,\n"naturalness": 80,\n"word rarity": 50,\n"syntax complexity": 70,\n'
            '"topics": ["science", "technology"],\n}',
            {
                "grammaticality": 90.0,
                "naturalness": 80.0,
                "word_rarity": 50.0,
                "syntax_complexity": 70.0,
                "topics": ["science", "technology"],
            },
        ),
        (
            '```json\n{"Grammaticality": "95", "naturalness": 60.5, "word_rarity": 0, "syntax_complexity": 100, '
            '"topics": ["  Local   News "]}\n```',
            {
                "grammaticality": 95.0,
                "naturalness": 60.5,
                "word_rarity": 0.0,
                "syntax_complexity": 100.0,
                "topics": ["local news"],
            },
        ),
        (
            '{"grammaticality": 90, "naturalness": 180, "word rarity": 50, "syntax complexity": 70, "topics": ["a"]}',
            None,
        ),
        ('{"grammaticality": 90, "naturalness": 80, "word rarity": 50, "topics": ["a"]}', None),
        ('{"grammaticality": 90, "naturalness": 80, "word rarity": 50, "syntax complexity": 7, "topics": []}', None),
        (
            '{"grammaticality": 90, "naturalness": 80, "word rarity": 50, "syntax complexity": 7, '
            '"topics": ["a", "b", "c", "d", "e", "f"]}',
            None,
        ),
        (
            '{"grammaticality": true, "naturalness": 80, "word rarity": 50, "syntax complexity": 7, "topics": ["a"]}',
            None,
        ),
        ("The text is natural.", None),
    ],
)
def test_source_analysis_answers_are_read_as_the_prompt_asks(answer, expected):
    assert parse_source_analysis(answer) == expected
