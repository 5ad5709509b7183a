"""The metrics of the workbench: a spec (or a Python callable) -> a batch scorer with an exact signature
(registered metrics: `mtgauntlet.workbench.registry`).

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


@dataclass
class Scorer:
    name: str  # what the metric column says: the public spec (no credential, price or pace), or python:NAME
    signature: str
    score: BatchFn | None = None  # None for col: (the values come from the records)
    column: str | None = None  # col:NAME / col:GOOD,BAD: the record's kept score(s)
    needs_ref: bool = False
    thread_safe: bool = False  # chunks may be scored by two threads at once (compiled code that releases the GIL)
    gives_spans: bool = False  # score returns (score, spans) per item (llm-as-qe:…#spans=1, xCOMET)


def registered(name: str) -> Scorer:
    """The scorer of a registered metric (`mtgauntlet.workbench.registry`): its stored signature is
    ``NAME|`` + the metric's own."""
    from mtgauntlet.workbench.registry import metric_class

    metric = metric_class(name)()

    def score(src, hyp, ref, src_lang, tgt_lang):
        return metric.score(src, hyp, ref, src_lang, tgt_lang)

    return Scorer(
        name, f"{name}|{metric.signature()}", score, needs_ref=metric.needs_ref, thread_safe=metric.thread_safe
    )


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

    one = qe.backends[0] if len(qe.backends) == 1 and qe.components[0].max_error is None else None
    if getattr(one, "gives_spans", False):  # one QE model that marks error spans: its scores and spans

        def marked(src, hyp, ref, src_lang, tgt_lang):
            return [(clean(s), spans) for s, spans in one.score_spans(src, hyp, src_lang, tgt_lang)]

        return Scorer(public_spec(spec), signature, marked, gives_spans=True)

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
    """The scorer of a metric spec: a registered metric (chrf, bleu, ...: `mtgauntlet.workbench.registry`),
    ``col:NAME`` / ``col:GOOD,BAD``, a QE spec, or a callable ``(src, hyp, ref, src_lang, tgt_lang) -> list[float]``."""
    if callable(spec):
        return _callable(spec)
    if not isinstance(spec, str) or not spec.strip():
        raise UsageError(f"--metric: not a metric spec: {spec!r}")
    from mtgauntlet.workbench.registry import METRICS

    if spec in METRICS:
        return registered(spec)
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
    """`clean` of each answer, after checking there is one per item. A list of finite Python floats (the usual
    answer) is itself: a sum of floats is finite only when every one is."""
    if got is None or len(got) != want:
        raise GauntletError(f"metric {name}: returned {0 if got is None else len(got)} scores for {want} items")
    if type(got) is list and set(map(type, got)) <= {float} and math.isfinite(sum(got)):
        return list(got)
    return [clean(v) for v in got]
