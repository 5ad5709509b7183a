"""The metrics of the workbench: a spec (or a Python callable) -> a batch scorer with an exact signature.

A scorer takes the items of one language pair (source, hypothesis, reference lists and the two languages) and
returns one float per item, or None where it failed. Its signature names everything that makes its scores what
they are: sacrebleu's own signature for chrF and BLEU (version, tokenizer, smoothing), the backend spec, model and
versions for a QE spec, the set for a ``col:NAME`` column, the code for a Python callable. Scores are reused only
under an equal signature, so a new sacrebleu or another model revision scores again.
"""

from __future__ import annotations

import hashlib
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError, UsageError

BatchFn = Callable[[list[str], list[str], list, str, str], Sequence[Any]]
REFERENCE_BASED = ("chrf", "bleu")


@dataclass
class Scorer:
    name: str  # what the metric column says: the public spec (no credential, price or pace), or python:NAME
    signature: str
    score: BatchFn | None = None  # None for col: (the values come from the records)
    column: str | None = None  # col:NAME / col:GOOD,BAD: the record's kept score(s)
    needs_ref: bool = False


def _sacrebleu(name: str) -> Scorer:
    from sacrebleu.metrics import BLEU, CHRF

    metric = CHRF() if name == "chrf" else BLEU(effective_order=True)
    metric.corpus_score(["a"], [["a"]])  # sacrebleu knows its signature once it has seen the references
    signature = f"{name}|{metric.get_signature().format()}"

    def score(src, hyp, ref, src_lang, tgt_lang):
        return _sentence_scores(metric, hyp, ref)

    return Scorer(name, signature, score, needs_ref=True)


def _sentence_scores(metric, hyp: list[str], ref: list[str | None]) -> list[float | None]:
    """``metric.sentence_score(h, [r]).score`` for each pair, each distinct reference prepared once (a pair's good
    and bad translations, a segment's systems share one): sacrebleu's own steps of ``sentence_score``, in order, so
    the scores are the same; without those steps (another sacrebleu), ``sentence_score`` itself."""
    steps = ("_cache_references", "_preprocess_segment", "_compute_segment_statistics", "_aggregate_and_compute")
    if not all(hasattr(metric, s) for s in steps):
        return [metric.sentence_score(h, [r]).score if r else None for h, r in zip(hyp, ref)]
    refs = list(dict.fromkeys(r for r in ref if r))
    where = {r: i for i, r in enumerate(refs)}
    cache = metric._cache_references([refs]) if refs else []
    out: list[float | None] = []
    for h, r in zip(hyp, ref):
        if not r:
            out.append(None)
            continue
        stats = metric._compute_segment_statistics(metric._preprocess_segment(h), cache[where[r]])
        out.append(metric._aggregate_and_compute([stats]).score)
    return out


def _qe(spec: str) -> Scorer:
    from mtgauntlet.models.qe_ensemble import load_qe
    from mtgauntlet.models.registry import public_spec
    from mtgauntlet.models.runtime import signature_spec
    from mtgauntlet.versions import package_versions

    qe = load_qe(spec)
    versions = package_versions()
    keep = (
        "mtgauntlet",
        "torch",
        "transformers",
        "sentencepiece",
        "comet",
        "unbabel-comet",
        "onnxruntime",
        "ctranslate2",
        "llama-cpp-python",
    )
    signature = "|".join(
        [f"qe:{signature_spec(spec)}", *backend_facts(qe), *(f"{k}={versions[k]}" for k in keep if versions.get(k))]
    )

    def score(src, hyp, ref, src_lang, tgt_lang):
        return [clean(s) for s in qe.score(src, hyp, src_lang, tgt_lang)]

    return Scorer(public_spec(spec), signature, score)  # named by its public spec: never a credential


MODEL_ATTRS = (
    "model_id",
    "model_name",
    "model_path",
    "path",
    "repo",
    "revision",
    "model",
    "version",
    "tokenizer_name",
    "device",
    "dtype",
)


def backend_facts(root: Any) -> list[str]:
    """What names each backend inside ``root`` (a QE ensemble's components, an LLM role's LLM): its class, spec,
    model id / path / revision and placement (device, dtype), read from the backend's own attributes (nothing is
    loaded to find them)."""
    from mtgauntlet.builders.runtime_info import _children
    from mtgauntlet.models.runtime import signature_spec

    out, seen, stack = [], set(), list(_children(root))
    while stack:
        backend = stack.pop(0)
        if id(backend) in seen:
            continue
        seen.add(id(backend))
        attrs = vars(backend)
        facts = [type(backend).__name__, str(signature_spec(attrs.get("spec") or ""))]  # price, rates: not scores
        facts += [f"{a}={attrs[a]}" for a in MODEL_ATTRS if isinstance(attrs.get(a), (str, Path))]
        config = getattr(attrs.get("model") or attrs.get("encoder"), "config", None)  # a loaded HF model
        for key in ("name_or_path", "_commit_hash"):
            if isinstance(getattr(config, key, None), str):
                facts.append(f"{key.strip('_')}={getattr(config, key)}")
        runtime = attrs.get("runtime")
        if runtime is not None and hasattr(runtime, "device"):
            facts += [f"device={runtime.device}", f"dtype={runtime.dtype}"]
        out.append(",".join(f for f in facts if f))
        stack.extend(_children(backend))
    return out


def _callable(fn: Callable) -> Scorer:
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    try:
        code = inspect.getsource(fn)
    except (OSError, TypeError):
        code = repr(fn)
    digest = hashlib.sha256(code.encode()).hexdigest()[:16]
    module = getattr(fn, "__module__", "") or ""
    return Scorer(f"python:{name}", f"python:{module}.{name}|code={digest}", lambda *a: fn(*a))


def make_scorer(spec: str | Callable) -> Scorer:
    """The scorer of a metric spec: chrf, bleu, ``col:NAME`` / ``col:GOOD,BAD``, a QE spec, or a callable
    ``(src, hyp, ref, src_lang, tgt_lang) -> list[float]``."""
    if callable(spec):
        return _callable(spec)
    if not isinstance(spec, str) or not spec.strip():
        raise UsageError(f"--metric: not a metric spec: {spec!r}")
    if spec in REFERENCE_BASED:
        return _sacrebleu(spec)
    if spec.startswith("col:"):
        column = spec[4:]
        if not column or any(not c.strip() for c in column.split(",")) or column.count(",") > 1:
            raise UsageError(f"--metric {spec!r}: col: takes NAME (human-judgment sets) or GOODCOL,BADCOL (pairs)")
        return Scorer(spec, f"col:{column}", column=column)
    return _qe(spec)


def clean(value: Any) -> float | None:
    """A backend's answer as a float, or None (failed: None, NaN, not a number)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def check_answer(name: str, got: Sequence[Any], want: int) -> list[float | None]:
    if got is None or len(got) != want:
        raise GauntletError(f"metric {name}: returned {0 if got is None else len(got)} scores for {want} items")
    return [clean(v) for v in got]
