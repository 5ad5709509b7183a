"""`gauntlet validate grammar` (Harper for English, Grammalecte for French) and the grammar.error_rate rule."""

import datetime as dt
import json

import pandas as pd
import pytest

from tests.support.cli import invoke

pytest.importorskip("harper", reason="harper-py is installed by make setup")

# 15 ungrammatical sentences and their corrections (written for this test; one error each)
BAD = [
    "She go to school every day.",
    "He don't like apples.",
    "This is an test of the new system.",
    "They was playing football when it started to rain.",
    "I have saw that movie three times.",
    "The the committee approved the budget yesterday.",
    "Their going to the market tomorrow morning.",
    "She can sings very well.",
    "He have two brothers and a sister.",
    "We should of left earlier.",
    "The informations were sent to all members.",
    "Me and him went to the store.",
    "There is many reasons to doubt the report.",
    "A elephant walked across the road.",
    "Its a beautiful day in the neighborhood.",
]
GOOD = [
    "She goes to school every day.",
    "He doesn't like apples.",
    "This is a test of the new system.",
    "They were playing football when it started to rain.",
    "I have seen that movie three times.",
    "The committee approved the budget yesterday.",
    "They're going to the market tomorrow morning.",
    "She can sing very well.",
    "He has two brothers and a sister.",
    "We should have left earlier.",
    "The information was sent to all members.",
    "He and I went to the store.",
    "There are many reasons to doubt the report.",
    "An elephant walked across the road.",
    "It's a beautiful day in the neighborhood.",
]


def _table(tmp_path, texts, name="t.tsv"):
    path = tmp_path / name
    path.write_text("id\ttext\n" + "".join(f"{i}\t{t}\n" for i, t in enumerate(texts)), encoding="utf-8")
    return path


def test_grammar_cli_flags_the_ungrammatical_and_spares_the_corrections(tmp_path):
    texts = BAD + GOOD + ["  Dr. Ehud Ur of Dalhousie University in Halifax analysed the results.  "]
    out = tmp_path / "scored.parquet"
    r = invoke(
        [
            "validate",
            "grammar",
            "--input",
            _table(tmp_path, texts),
            "--column",
            "text",
            "--lang",
            "en",
            "--out",
            out,
            "--json",
        ]
    )
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    df = pd.read_parquet(out)
    assert df["text"].tolist() == texts  # the rows go out as they came in, columns added
    flagged_bad = int((df["grammar_errors"][:15] > 0).sum())
    flagged_good = int((df["grammar_errors"][15:30] > 0).sum())
    assert flagged_bad >= 12 and flagged_good <= 2, (flagged_bad, flagged_good)
    # names and British spelling are spelling flags, kept apart from grammar errors
    last = df.iloc[30]
    assert last["grammar_errors"] == 0 and last["spelling_flags"] >= 2
    issue = df.iloc[0]["grammar_issues"][0]
    assert issue["rule"] == "PronounVerbAgreement" and texts[0][issue["start"] : issue["end"]] == issue["text"] == "go"
    assert summary["n"] == 31 and summary["texts_flagged"] == flagged_bad + flagged_good
    words = sum(len(t.split()) for t in texts)
    assert summary["grammar.error_rate"] == pytest.approx(100 * df["grammar_errors"].sum() / words, rel=0.1)


def test_grammar_cli_tsv_output_and_errors(tmp_path):
    out = tmp_path / "scored.tsv"
    r = invoke(["validate", "grammar", "-i", _table(tmp_path, BAD[:2]), "-c", "text", "--lang", "en", "-o", out])
    assert r.exit_code == 0, r.output
    back = pd.read_csv(out, sep="\t")
    assert [json.loads(v)[0]["rule"] for v in back["grammar_issues"]] == ["PronounVerbAgreement"] * 2
    r = invoke(["validate", "grammar", "-i", _table(tmp_path, BAD[:2]), "-c", "text", "--lang", "de"])
    assert r.exit_code == 2 and r.stderr.startswith("error: no grammar checker for language 'de'")
    assert len(r.stderr.strip().splitlines()) == 1
    r = invoke(["validate", "grammar", "-i", _table(tmp_path, BAD[:2]), "-c", "nope", "--lang", "en"])
    assert r.exit_code == 2 and "nope" in r.stderr


def test_grammar_rule_on_a_record_set(tmp_path):
    import pyarrow.parquet as pq

    from mtgauntlet.schema import to_table
    from mtgauntlet.validators.grammar import flagged_records
    from mtgauntlet.validators.rules import Rules
    from mtgauntlet.validators.validate import validate

    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    goods = BAD[:3] + GOOD[3:10]
    recs = [
        dict(
            id=f"r{i}",
            src_lang="es",
            tgt_lang="en",
            builder="t",
            builder_version="1",
            created_at=now,
            src="x",
            ref=g,
            good=g,
            bad=g + " No.",
            phenomenon="ins",
        )
        for i, g in enumerate(goods)
    ]
    (tmp_path / "d").mkdir()
    pq.write_table(to_table("smaug_pair", recs), tmp_path / "d" / "p.parquet")
    flagged, metrics = flagged_records("smaug_pair", recs)
    assert [f["id"] for f in flagged] == ["r0", "r1", "r2"] and flagged[0]["column"] == "good"
    assert metrics["grammar.flagged_rate"] == pytest.approx(0.3) and metrics["grammar.unchecked"] == 0
    rules = tmp_path / "rules.yaml"
    rules.write_text("version: 1\nthresholds:\n  grammar.error_rate: {max: 1.0}\n")
    rep = validate(tmp_path / "d", Rules.from_yaml(rules))
    m = rep["kinds"]["smaug_pair"]["metrics"]
    words = sum(len(g.split()) for g in goods)
    assert m["grammar.error_rate"] == pytest.approx(300 / words, rel=0.15) and m["grammar.error_rate"] > 1.0
    assert rep["failed_rules"] == ["smaug_pair:grammar.error_rate"]
    # the audit page lists the flagged texts with their issues (HTML-escaped)
    r = invoke(["audit", tmp_path / "d", "--rules", rules, "--out", tmp_path / "a.html"])
    assert r.exit_code == 0, r
    page = (tmp_path / "a.html").read_text(encoding="utf-8")
    assert 'data-count="smaug_pair:grammar:flagged" data-value="3"' in page
    import html

    for f in flagged:
        assert f'data-grammar="smaug_pair:{f["id"]}"' in page and html.escape(f["text"], quote=False) in page
    # a typo in the rule name is refused when the rules file is read
    rules.write_text("version: 1\nthresholds:\n  grammar.eror_rate: {max: 1.0}\n")
    r = invoke(["validate", str(tmp_path / "d"), "--rules", rules])
    assert r.exit_code == 2 and "grammar.eror_rate" in r.stderr


def test_french_grammalecte_when_installed(tmp_path):
    from mtgauntlet.validators.grammar import available_languages, check_texts

    if "fr" not in available_languages():
        pytest.skip("grammalecte (Debian python3-grammalecte) is not installed")
    res = check_texts(["Les chat dort sur le canapé.", "Le chat dort sur le canapé.", "L'homme est arrivé hier."], "fr")
    assert res[0]["grammar_errors"] == 1 and res[0]["grammar_issues"][0]["text"] == "chat"
    assert res[1]["grammar_errors"] == 0
    assert res[2]["grammar_errors"] == 0  # the typographic-apostrophe rule is typography, not grammar
