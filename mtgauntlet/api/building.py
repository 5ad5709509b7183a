"""Challenge sets from Python: `build` (``gauntlet build <method>``), one function per method with the
command's options as keywords (`build_subset`, `build_smaug`, `build_mtbreaker`,
`build_zeroshot`, `build_bandit`); the CLI commands call them and print what they return.

Each function's keywords, defaults, docstring ``Args`` and range checks come from its builder's options
dataclass (``mtgauntlet.builders.options``), declared once: see `mtgauntlet.options.takes`.

`build` adds what a notebook wants: ``input=`` for every method (the CLI's ``--seeds`` of mtbreaker and
zeroshot, ``--corpus`` of bandit), a DataFrame / ``datasets.Dataset`` / list of dicts as input, and ``out=None``
(a content-addressed folder under the cache, so the same call resumes).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mtgauntlet.api.build_run import build_method
from mtgauntlet.api.checks import unknown_keywords
from mtgauntlet.api.inputs import as_input_path, cache_dir, input_format
from mtgauntlet.api.results import Build
from mtgauntlet.api.session import argument_checks, public
from mtgauntlet.builders.methods import method_record, methods
from mtgauntlet.builders.options.bandit import BanditBuildOptions
from mtgauntlet.builders.options.breaker import MTBreakerOptions, ZeroShotOptions
from mtgauntlet.builders.options.smaug import SmaugOptions
from mtgauntlet.builders.options.subset import SubsetOptions
from mtgauntlet.errors import UsageError
from mtgauntlet.options import Declared, check, declared, placement, takes

__all__ = ["build", "build_subset", "build_smaug", "build_mtbreaker", "build_zeroshot", "build_bandit"]


RETURNS = """Returns:
    The `Build`.

"""
RAISES = """Raises:
    UsageError: An option out of range. BudgetSpent: the budget ran out. GauntletError: bad input or spec.

"""


def method_function(options: type) -> Callable[[Callable[..., Build]], Callable[..., Build]]:
    """``build_<name>``: a public API function of the options' keywords (`mtgauntlet.options.takes`), its docstring
    given the ``Returns`` and ``Raises`` every build function shares where it states none of its own."""

    def wrap(fn: Callable[..., Build]) -> Callable[..., Build]:
        doc = inspect.cleandoc(fn.__doc__ or "")
        if "\nReturns:" not in doc:
            doc = doc.replace("\nExamples:", "\n" + RETURNS + "Examples:", 1)
        if "\nRaises:" not in doc:
            doc = doc.replace("\nExamples:", "\n" + RAISES + "Examples:", 1)
        fn.__doc__ = doc
        return public(takes(options, Build)(fn))

    return wrap


def placement_keywords() -> tuple[str, ...]:
    """How fast, where to, whether at all, of every method: never what is built, so not part of the
    content-addressed out folder."""
    return tuple(dict.fromkeys(name for m in methods().values() for name in placement(m.options)))


@method_function(SubsetOptions)
def build_subset(o: SubsetOptions) -> Build:
    """Score a corpus with a difficulty estimator and keep the ``budget`` hardest texts (``selected_text``
    records). The options are those of ``gauntlet build subset`` (see ``gauntlet build subset --help``).

    Examples:
        >>> b = mg.build("subset", input="corpus.tsv", out="builds/hard", src_lang="en", budget=10)
    """
    return build_method(method_record("subset"), o)


@method_function(SmaugOptions)
def build_smaug(o: SmaugOptions) -> Build:
    """SMAUG: ``(source, good, bad, reference, phenomenon)`` records, bad = the reference with one critical error
    (``gauntlet build smaug``; every option as there, see its ``--help``).

    Returns:
        The `Build`; `Build.notes` says how each phenomenon is made here.

    Examples:
        >>> b = mg.build("smaug", input="es_en.tsv", out="builds/smaug", src_lang="es", tgt_lang="en",
        ...                    src_col="es", ref_col="en", good_from="reference")
    """
    return build_method(method_record("smaug"), o)


@method_function(MTBreakerOptions)
def build_mtbreaker(o: MTBreakerOptions) -> Build:
    """MT-breaker: an LLM edits each seed step by step until the target MT model translates it badly
    (``gauntlet build mtbreaker``; every option as there, see its ``--help``).

    Examples:
        >>> b = mg.build("mtbreaker", seeds="seeds.tsv", out="builds/mtb", column="en", steps=3, max_requests=500)
    """
    return build_method(method_record("mtbreaker"), o)


@method_function(ZeroShotOptions)
def build_zeroshot(o: ZeroShotOptions) -> Build:
    """Zero-shot baselines: one generation per item, with history, or the most difficult of ``generations``
    (``gauntlet build zeroshot``; every option as there, see its ``--help``).

    Examples:
        >>> b = mg.build("zeroshot", seeds="seeds.tsv", out="builds/zs", column="en", variant="min", generations=4)
    """
    return build_method(method_record("zeroshot"), o)


@method_function(BanditBuildOptions)
def build_bandit(o: BanditBuildOptions) -> Build:
    """Search for the hardest topics with a bandit: the pull log (``pulls/``) and ``topic_text`` records
    (``gauntlet build bandit``; every option as there, see its ``--help``).

    Returns:
        The `Build`: ``summary["top_topics"]``, ``summary["counts"]`` (pulls, scored pulls, failures).

    Raises:
        UsageError: An option out of range, no topics. BudgetSpent: the budget ran out. GauntletError: bad
            input or spec, no pull scored.

    Examples:
        >>> b = mg.build("bandit", out="builds/bandit", corpus="flores", topic_column="topic", budget=50, k=3)
        >>> b.summary["top_topics"]
    """
    return build_method(method_record("bandit"), o)


def _made(name: str) -> Callable[..., Build]:
    """``build_<name>`` of a registered method that has no function written out above, made from its record (the
    keywords, checks and ``Args`` of its options dataclass), as `build_subset` and its siblings are."""
    record = methods()[name]

    def build_one(o: Any) -> Build:
        return build_method(record, o)

    build_one.__name__ = build_one.__qualname__ = f"build_{name}"
    build_one.__doc__ = (
        f"{inspect.cleandoc(record.options.__doc__ or record.text.title)} (``gauntlet build {name}``; every option "
        f"as there, see its ``--help``).\n\nExamples:\n"
        f"    >>> b = mg.build({name!r}, {record.input}=..., out=...)"
    )
    return method_function(record.options)(build_one)


for _name in methods():  # every registered method has its build_<name>
    globals().setdefault(f"build_{_name}", _made(_name))


def _keywords(method: str) -> dict[str, Declared]:
    """The options of ``method`` by keyword, as declared."""
    return {o.name: o for o in declared(methods()[method].options)}


def _input_key(path: Any) -> Any:
    """What an input is, by content: a file's name and sha256, a folder's files' (a named layout), else the spec."""
    from mtgauntlet.fileio import sha256_file

    if path is None:
        return None
    p = Path(os.fspath(path))
    if p.is_file():
        return {"name": p.name, "sha256": sha256_file(p)}
    if p.is_dir():
        return {
            "name": p.name,
            "files": {f.relative_to(p).as_posix(): sha256_file(f) for f in sorted(p.rglob("*")) if f.is_file()},
        }
    return str(path)


def default_out(method: str, options: dict[str, Any]) -> Path:
    """``<cache>/builds/<method>-<16 hex>``: the sha256 of the method, every option that changes what is built
    (defaults filled in) and the input's content, so the same call finds (and resumes) the same build."""
    left_out = placement_keywords()
    resolved = {name: options.get(name, o.default) for name, o in _keywords(method).items() if name not in left_out}
    key = methods()[method].input
    resolved[key] = _input_key(resolved.get(key))
    blob = json.dumps({"method": method, "options": resolved}, sort_keys=True, ensure_ascii=False, default=str)
    return cache_dir() / "builds" / f"{method}-{hashlib.sha256(blob.encode('utf-8')).hexdigest()[:16]}"


@public
def build(
    method: str,
    *,
    input: Any = None,
    out: str | Path | None = None,
    input_name: str | None = None,
    progress: bool | None = False,
    **options: Any,
) -> Build:
    """Build a challenge set with one of the methods: ``subset``, ``smaug``, ``mtbreaker``, ``zeroshot`` or
    ``bandit``. The options are those of ``gauntlet build <method>`` (long names, ``-`` becomes ``_``), with the
    same defaults and checks; `build_subset` and its siblings document them one by one.

    Args:
        method: The builder: ``subset``, ``smaug``, ``mtbreaker``, ``zeroshot`` or ``bandit`` as shipped (every method
            registered in ``mtgauntlet.builders.methods.REGISTERED``).
        input: The input of any method: a path (a table or a named layout such as ``flores``), a
            ``pandas.DataFrame``, a ``datasets.Dataset`` or a list of dicts. It is the CLI's ``--input`` of
            subset and smaug, ``--seeds`` of mtbreaker and zeroshot and ``--corpus`` of bandit; those names
            (``seeds=``, ``corpus=``) are accepted too.
        out: The build directory. ``None``: a folder under the cache (``MTGAUNTLET_CACHE_DIR``, default
            ``~/.cache/mtgauntlet``), ``builds/<method>-<first 16 hex of the sha256 of the method, the options and
            the input's sha256>``, so the same call finds its build again and resumes an interrupted one.
        input_name: The name of an in-memory input (default ``dataframe``, ``dataset`` or ``records``): the
            records' ``source_dataset``.
        **options: The method's options (e.g. ``src_lang="es"``, ``budget=10``, ``dry_run=True``).

    Returns:
        The `Build` (``path``, ``summary`` = ``build.json``, ``plan`` on a dry run).

    Raises:
        UsageError: An unknown method or option (named, with close matches), a missing required option, an
            option out of range (e.g. ``budget=0``).
        BudgetSpent: ``max_cost``/``max_requests`` ran out (the same call resumes).
        GauntletError: Bad input (file, line and field named), an unusable model spec, a build of other
            options already in ``out``.

    Examples:
        >>> b = mg.build("smaug", input=df, input_name="my_es_en", src_col="es", ref_col="en", src_lang="es",
        ...              tgt_lang="en", good_from="reference")
        >>> b.to_pandas()[["phenomenon", "bad"]].head()
    """
    name, record = method, method_record(method)
    params = _keywords(name)
    if "engine" in options and "engine" not in params:
        raise UsageError(
            f"build {name}: no engine option: its steps are sequential per item and run in this "
            "process; its model calls scale on the server side (concurrency); see docs/scaling.md"
        )
    unknown_keywords(f"build {name}", options, [*params, "input"])
    key = record.input
    if input is not None:
        if key != "input" and options.get(key) is not None:
            raise UsageError(f"build {name}: give input= or {key}=, not both")
        options[key] = input
    missing = [n for n, o in params.items() if o.required and options.get(n) is None and n != "out"]
    if missing:
        raise UsageError(
            f"build {name}: missing required option(s) {', '.join(missing)}" + (" (input=)" if key in missing else "")
        )
    check(record.options, options)
    typed = globals()[f"build_{name}"]  # its signature holds each option's type: budget=1.5 is refused by name
    for keyword, type_check in argument_checks(inspect.unwrap(typed), inspect.signature(typed)).items():
        if keyword in options and keyword != key:
            type_check(options[keyword])
    if options.get(key) is not None:
        options["format"] = input_format(options[key], options.get("format"))  # a name only labels the data
        options[key] = as_input_path(options[key], input_name)
    elif input_name is not None:
        raise UsageError(f"build {name}: input_name names an in-memory input; none was given")
    if out is None:
        out = default_out(name, options)
    return build_method(record, record.options(out=out, **options))
