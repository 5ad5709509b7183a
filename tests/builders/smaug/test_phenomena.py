"""The SMAUG phenomenon registry (issue #35.3): every place that names the phenomena reads mtgauntlet/phenomena.py,
and each phenomenon's object says on the card how it was made: the model-free substitutes of the default build
(corpus swap, digit change, rule-based negation, clause insertion) are flagged per phenomenon as the model-backed
departures are (issue #37.3)."""

from __future__ import annotations

import inspect
import json
import re

import pytest

from mtgauntlet import phenomena
from mtgauntlet.builders.options.smaug import SmaugOptions
from mtgauntlet.builders.smaug import SmaugBuilder, support_report
from mtgauntlet.builders.smaug.phenomena import all_phenomena, docs_table
from mtgauntlet.cards.methods import method_text
from mtgauntlet.options import options_of
from mtgauntlet.schema import get_kind
from mtgauntlet.validators.metric_names import is_known
from mtgauntlet.validators.record_checks import span_identity_holds
from tests.support.cli import REPO, invoke

SUBSTITUTES = {"ne": "ne_corpus_swap", "num": "num_digit_change", "neg": "neg_rules", "ins": "ins_clause"}


def test_every_place_that_names_the_phenomena_reads_the_registry():
    assert phenomena.NAMES == tuple(r.name for r in phenomena.REGISTERED)
    assert set(phenomena.DEFAULT) <= set(phenomena.NAMES)
    assert tuple(all_phenomena()) == phenomena.NAMES
    assert all(p.name == name and p.error for name, p in all_phenomena().items())
    assert get_kind("smaug_pair").allowed["phenomenon"] == phenomena.NAMES
    for name in phenomena.NAMES:
        assert is_known(f"smaug.nli.{name}.bad_contradicts_ref_rate")
        assert f"{phenomena.registration(name).error} (`{name}`)" in method_text("smaug").description
    unregistered = "x" + "".join(phenomena.NAMES)
    assert not is_known(f"smaug.nli.{unregistered}.bad_contradicts_ref_rate") and not is_known(
        "smaug.nli.n.e.good_contradicts_ref_rate"
    )
    from mtgauntlet.api.building import build_smaug
    from mtgauntlet.cli import introspect

    option = introspect.options("build", "smaug")["phenomena"]
    default = ",".join(phenomena.DEFAULT)
    assert option.default == inspect.signature(build_smaug).parameters["phenomena"].default == default
    page = (REPO / "docs" / "methods" / "smaug.md").read_text(encoding="utf-8")
    assert docs_table() in page, (
        "the phenomenon table is stale: python -m mtgauntlet.builders.smaug.phenomena --write docs/methods/smaug.md"
    )
    assert page.count("\n| `") == len(phenomena.NAMES)  # one row per phenomenon, no hand-written copy beside it


def test_support_is_each_phenomenons_own_answer():
    class _NoAnnotator:  # the support report of a builder whose annotator failed to load
        annotator, infiller, polyjuice, specs, annotator_error = None, None, None, {"infiller": None}, "no spaCy pt"

    report = support_report("pt-BR", _NoAnnotator())
    assert list(report) == list(phenomena.NAMES)
    assert report["ne"] == report["neg"] == report["ins"] == (False, "no spaCy pt")
    assert report["num"] == (True, "format-preserving digit change") and report["del"][0]


def _flags(tmp_path, sample_path, name, *extra) -> dict[str, str]:
    r = invoke(
        [
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
            "--out",
            tmp_path / name,
            *extra,
        ]
    )
    assert r.exit_code == 0, r
    return json.loads((tmp_path / name / "build.json").read_text(encoding="utf-8"))["config"]["flags"]


def test_model_free_build_flags_each_substitute_method_per_phenomenon(tmp_path, sample_path):
    flags = _flags(tmp_path, sample_path, "all")
    assert set(SUBSTITUTES.values()) <= set(flags)
    assert "mT5" in flags["ne_corpus_swap"] and "--infiller" in flags["ne_corpus_swap"]
    assert "Polyjuice" in flags["neg_rules"] and "--polyjuice" in flags["neg_rules"]
    only = _flags(tmp_path, sample_path, "num-del", "--phenomena", "num,del")  # only where the phenomenon is built
    assert "num_digit_change" in only and not {"ne_corpus_swap", "neg_rules", "ins_clause"} & set(only)

    r = invoke(["release", tmp_path / "all", "--name", "offline", "--version", "0.1.0", "--out", tmp_path / "rel"])
    assert r.exit_code == 0, r
    card = (tmp_path / "rel" / "name=offline" / "version=0.1.0" / "README.md").read_text(encoding="utf-8")
    card = re.sub(r"\\([\\`*_{}\[\]()#+\-.!~])", r"\1", card)
    for flag in SUBSTITUTES.values():
        assert f"smaug: {flags[flag]}" in card, flag


def test_model_backed_build_has_no_substitute_flags(tmp_path_factory):
    pytest.importorskip("transformers")
    from tests.support import tiny_models

    d = tmp_path_factory.mktemp("tiny-smaug")
    b = SmaugBuilder(
        options_of(
            SmaugOptions,
            src_lang="es",
            tgt_lang="en",
            good_from="reference",
            infiller=f"hf:{tiny_models.seq2seq(d / 't5')}",
            polyjuice=f"hf:{tiny_models.causal_lm(d / 'lm')}",
        )
    )
    flags = b.flags()
    assert not set(SUBSTITUTES.values()) & set(flags)
    assert {"ins_masks", "polyjuice_greedy", "nli_not_checked", "del_split"} <= set(flags)


def test_the_registry_sits_at_the_bottom_layer():
    """mtgauntlet/phenomena.py imports nothing of the package, so the schema and the validators read it without
    importing a builder; only the SMAUG builder imports the modules that make the phenomena (the card reads the
    method records of `mtgauntlet.builders.methods`, which name their builders without importing them)."""
    from tests.test_layers import PACKAGE, imported_modules

    def package_imports(path):
        return {
            m for _, m in imported_modules(path.read_text(encoding="utf-8"), "mtgauntlet") if m.startswith("mtgauntlet")
        }

    assert package_imports(PACKAGE / "phenomena.py") == set()
    for low in ("schema.py", "validators/metric_names.py"):
        assert not {m for m in package_imports(PACKAGE / low) if m.startswith("mtgauntlet.builders")}, low
    for low in ("cards/methods.py", "builders/methods.py"):
        assert not {m for m in package_imports(PACKAGE / low) if m.startswith("mtgauntlet.builders.smaug")}, low


@pytest.mark.parametrize("name", phenomena.NAMES)
def test_every_registered_phenomenon_builds_on_its_own_example(name, tmp_path, sample_path):
    """Registry-wide: each phenomenon supplies its example row (``Phenomenon.example``); built alone on the sample
    corpus with that row added, it makes records of its own, each span describing the whole edit."""
    import mtgauntlet as mg

    source, reference = all_phenomena()[name].example
    assert source and reference, f"{name}: give the phenomenon an example (source, reference)"
    corpus = tmp_path / "with_example.tsv"
    corpus.write_text(
        sample_path.read_text(encoding="utf-8").rstrip("\n") + f"\n9999\texample\t{source}\t{reference}\n",
        encoding="utf-8",
    )
    built = mg.build(
        "smaug",
        input=corpus,
        src_col="es",
        ref_col="en",
        src_lang="es",
        tgt_lang="en",
        good_from="reference",
        phenomena=name,
        out=tmp_path / "b",
    )
    records = built.to_pandas().to_dict("records")
    assert records and {r["phenomenon"] for r in records} == {name}
    assert all(
        span_identity_holds(r["ref"], r["bad"], r["span_start"], r["span_end"], r["span_replacement"]) for r in records
    )
