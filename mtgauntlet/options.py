"""Options declared once: a command's options are the fields of one dataclass, each made with :func:`option`,
whose metadata says what the option is for (``help``), its bounds (``min``/``max``), its choices, its command-line
flags and whether it changes what is built (part of the signature and of the content-addressed out folder) or only
how (pace, price, where to, whether at all: ``builds=False``). From the dataclass come the Python function's
signature and the ``Args`` of its docstring (:func:`takes`), the range and choice checks (:func:`check`), the
keywords a build's content address leaves out (:func:`placement`); the CLI makes its typer options from the same
fields (``mtgauntlet.cli.declared``) and recipes their option tables (``mtgauntlet.recipes.options``). A field made
with :func:`argument` is positional: a command-line argument, and a parameter Python may pass by position. A field's
command-line name is ``--`` + its name with dashes unless ``flags`` names others (a bool: the switch that turns it
on). Options several commands share as a run are a dataclass the command inherits; a trailing one (:func:`trailing`:
how a command runs and spends) is listed after the command's own options.

The models are distilabel's ``RuntimeParameter`` + ``Field(description=...)`` and sacrebleu's class-constant
defaults: the default, the help and the range sit on one line of the declaration, nowhere else."""

import dataclasses
import functools
import inspect
import numbers
import textwrap
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

REQUIRED = inspect.Parameter.empty  # the default of an option that must be given
_KEY = "mtgauntlet.option"
T = typing.TypeVar("T")


@dataclasses.dataclass(frozen=True)
class OptionInfo:
    """What a field's metadata says of the option (see :func:`option`)."""

    help: str
    flags: tuple[str, ...] = ()  # command-line names (``--input``, ``-i``); none: ``--`` + the name with dashes (a
    # bool: the switch that turns it on; declare ``("--x/--no-x",)`` for a pair)
    min: float | None = None
    max: float | None = None
    choices: Callable[[], tuple[str, ...]] | None = None  # called when checked (the table may import late)
    builds: bool = True  # False: only how it is built (pace, price, out, overwrite, dry run), never what
    doc: str | None = None  # the docstring's line where Python takes more than the command line (tables in memory)
    cli_required: bool = False  # required on the command line although Python has a default (``out=None``)
    argument: bool = False  # positional: ``gauntlet verify PATH``, ``mg.verify(path)`` (see :func:`argument`)
    metavar: str | None = None  # an argument's name on the command line where it is not the keyword's
    many: bool = False  # an argument that takes one or more values (``gauntlet release BUILD...``)


@dataclasses.dataclass(frozen=True)
class Declared:
    """One option as the generators read it: its keyword, type hint, default (`REQUIRED`) and `OptionInfo`."""

    name: str
    type: Any
    default: Any
    info: OptionInfo

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def flag(self) -> str:
        """The long name on the command line (``--src-lang``); an argument's name (``format``)."""
        if self.info.argument:
            return self.info.metavar or self.name
        return next(
            (f.split("/")[0] for f in self.info.flags if f.startswith("--")), "--" + self.name.replace("_", "-")
        )


def option(
    default: Any = REQUIRED,
    *,
    help: str,
    flags: tuple[str, ...] = (),
    min: float | None = None,
    max: float | None = None,
    choices: Callable[[], tuple[str, ...]] | None = None,
    builds: bool = True,
    doc: str | None = None,
    cli_required: bool = False,
) -> Any:
    """A field of an options dataclass: ``budget: int = option(100, min=1, help="Number of texts to keep.")``.
    Without ``default`` the option is required. A tuple default is given as such (fields are frozen values)."""
    info = OptionInfo(
        help=help,
        flags=tuple(flags),
        min=min,
        max=max,
        choices=choices,
        builds=builds,
        doc=doc,
        cli_required=cli_required,
    )
    if default is REQUIRED:
        return dataclasses.field(metadata={_KEY: info})
    return dataclasses.field(default=default, metadata={_KEY: info})


def argument(
    default: Any = REQUIRED,
    *,
    help: str,
    metavar: str | None = None,
    many: bool = False,
    choices: Callable[[], tuple[str, ...]] | None = None,
    doc: str | None = None,
) -> Any:
    """A positional field: a command-line argument (``gauntlet import FORMAT PATH``) and a parameter Python may
    pass by position (``mg.import_set("aces", "aces.tsv", ...)``). Arguments come first in the dataclass, in the
    order they are given; ``many``: one or more values (``gauntlet release BUILD...``)."""
    info = OptionInfo(help=help, choices=choices, doc=doc, argument=True, metavar=metavar, many=many)
    if default is REQUIRED:
        return dataclasses.field(metadata={_KEY: info})
    return dataclasses.field(default=default, metadata={_KEY: info})


_TRAILING = "__trailing_options__"


def trailing(cls: type[T]) -> type[T]:
    """Mark an options dataclass as a trailing group (how a build runs: seed, shards, spending): a command that
    inherits it lists the group's fields after its own, whatever the order of its bases (:func:`declared`)."""
    setattr(cls, _TRAILING, True)
    return cls


def _trailing_names(cls: type) -> set[str]:
    """The fields that a trailing group of ``cls``'s bases declares (a field the command declares again keeps its
    place: the group's)."""
    return {name for base in cls.__mro__ if vars(base).get(_TRAILING) for name in inspect.get_annotations(base)}


@functools.cache
def declared(cls: type) -> tuple[Declared, ...]:
    """The options of an options dataclass, in declaration order (the order of the command's ``--help``): the
    fields of its bases first (the last base first), then its own, as a dataclass lists them, except that the fields
    of a trailing group (:func:`trailing`) come last."""
    hints = typing.get_type_hints(cls)
    last = _trailing_names(cls)
    out: list[Declared] = []
    for f in sorted(dataclasses.fields(cls), key=lambda f: f.name in last):  # a stable sort: each part keeps its order
        info = f.metadata.get(_KEY)
        if info is None:
            raise TypeError(f"{cls.__name__}.{f.name}: declare it with mtgauntlet.options.option(...)")
        default = REQUIRED if f.default is dataclasses.MISSING else f.default
        if info.argument and out and not out[-1].info.argument:
            raise TypeError(f"{cls.__name__}.{f.name}: an argument comes before the options")
        out.append(Declared(f.name, hints[f.name], default, info))
    return tuple(out)


def arguments(cls: type) -> tuple[Declared, ...]:
    """The positional fields of ``cls`` (:func:`argument`), in order."""
    return tuple(o for o in declared(cls) if o.info.argument)


def bare_type(hint: Any) -> Any:
    """``int`` for ``int``, ``Optional[int]``, ``int | None``; ``str`` for anything else (paths, specs, ``Any``
    inputs, tables in memory): what the command line parses."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 1:
        hint = args[0]
    return hint if hint in (int, float, bool, str) else str


def ranges(cls: type) -> tuple[dict[str, float], dict[str, float]]:
    """(keyword -> minimum, keyword -> maximum) of the options with bounds."""
    options = declared(cls)
    return (
        {o.name: o.info.min for o in options if o.info.min is not None},
        {o.name: o.info.max for o in options if o.info.max is not None},
    )


def placement(cls: type) -> tuple[str, ...]:
    """The keywords that never change what is built (``builds=False``): left out of a content address."""
    return tuple(o.name for o in declared(cls) if not o.info.builds)


def out_of_range(flag: str, value: Any, minimum: float | None, maximum: float | None) -> str | None:
    """Why ``value`` is out of the range (``--budget: must be >= 1 (got 0)``), or None (``None`` is in range: an
    option not given; a bound's value that is no number, ``budget="ten"`` or ``True``, is refused as such)."""
    if (
        value is not None
        and (minimum is not None or maximum is not None)
        and (not isinstance(value, numbers.Real) or isinstance(value, bool))
    ):
        return f"{flag}: must be a number (got {type(value).__name__} {value!r})"
    if value is not None and minimum is not None and value < minimum:
        return f"{flag}: must be >= {minimum} (got {value!r})"
    if value is not None and maximum is not None and value > maximum:
        return f"{flag}: must be <= {maximum} (got {value!r})"
    return None


def not_one_of(flag: str, value: Any, choices: Iterable[Any]) -> str | None:
    """Why ``value`` is not allowed (``--format: 'xml' is not one of tsv, csv, ...``), or None (``None`` passes)."""
    choices = tuple(choices)
    if value is not None and value not in choices:
        return f"{flag}: {value!r} is not one of {', '.join(map(str, choices))}"
    return None


def listed(value: Any) -> list[str]:
    """An option that takes several names: ``"a, b,,c"`` (as on the command line) or ``["a", "b"]`` ->
    ``["a", "b", ...]``; ``None`` or empty -> ``[]``."""
    if value is None:
        return []
    parts = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    return [x.strip() for x in parts if x.strip()]


def check(cls: type, values: dict[str, Any]) -> None:
    """The checks the command line makes (``min=``/``max=``, choices), made on ``values`` (keyword -> value;
    ``None`` passes): a `mtgauntlet.UsageError` naming the option as the CLI names it."""
    from mtgauntlet.errors import UsageError

    options = declared(cls)
    for o in options:
        if (why := out_of_range(o.flag, values.get(o.name), o.info.min, o.info.max)) is not None:
            raise UsageError(why)
    for o in options:
        if o.info.choices is not None and (why := not_one_of(o.flag, values.get(o.name), o.info.choices())):
            raise UsageError(why)


def options_of(cls: type[T], **values: Any) -> T:
    """An options object of ``cls`` with ``values`` (checked as :func:`check` does), every other option at its
    declared default and a required one not given at ``None``: the options of a builder made outside a build
    (a test, a benchmark), which need no input or output folder. ``SmaugOptions`` with
    ``src_lang="de", tgt_lang="en"`` and nothing else is a SMAUG build's defaults for de-en."""
    options_class: type = cls
    check(options_class, values)
    return cls(**{**{o.name: None for o in declared(options_class) if o.required}, **values})


def signature(cls: type, returns: Any = inspect.Signature.empty) -> inspect.Signature:
    """The signature of the options (``help()``, IDEs and ``inspect`` see each parameter, its type hint and
    default): the arguments positional or by keyword, then the options keyword-only, ending with the
    ``progress: bool = False`` every API function takes (``api.session.public``)."""
    params = [
        inspect.Parameter(
            o.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD if o.info.argument else inspect.Parameter.KEYWORD_ONLY,
            default=o.default,
            annotation=o.type,
        )
        for o in declared(cls)
    ]
    params.append(inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=bool))
    return inspect.Signature(params, return_annotation=returns)


def docstring_args(cls: type, indent: str = "    ", width: int = 116) -> str:
    """The ``Args:`` section of a Google-style docstring: one entry per option, its ``doc`` or else its help, and
    its range where it has one."""
    lines = [f"{indent}Args:"]
    for o in declared(cls):
        text = o.info.doc or o.info.help
        low, high = o.info.min, o.info.max
        if low is not None or high is not None:
            bounds = f"{low} to {high}" if None not in (low, high) else f">= {low}" if high is None else f"<= {high}"
            text = text[:-1] + f" (``{bounds}``)." if text.endswith(".") else text + f" (``{bounds}``)"
        lines += textwrap.wrap(
            f"{o.name}: {text}",
            width=width,
            initial_indent=indent * 2,
            subsequent_indent=indent * 3,
            break_on_hyphens=False,
        )
    return "\n".join(lines)


def takes(cls: type, returns: Any = inspect.Signature.empty) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make ``fn(o: cls)`` a function of keywords (and of its arguments by position): its signature is the
    options' (:func:`signature`), its docstring gets the ``Args:`` (before ``Returns:``); a call checks the
    parameters as Python would (unknown, missing) and the values as the command line would (:func:`check`), then
    passes ``fn`` one ``cls`` instance."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        sig = signature(cls, returns)

        @functools.wraps(fn)
        def call(*args: Any, **keywords: Any) -> Any:
            try:
                bound = sig.bind(*args, **keywords)
            except TypeError as e:
                raise TypeError(f"{fn.__name__}(): {e}") from None
            values = {k: v for k, v in bound.arguments.items() if k != "progress"}  # api.session.public's
            check(cls, values)
            return fn(cls(**values))

        doc = inspect.cleandoc(fn.__doc__ or "")
        head, sep, tail = doc.partition("\nReturns:")
        args = textwrap.dedent(docstring_args(cls)) if declared(cls) else ""  # no options: no Args section
        if not args:
            call.__doc__ = doc
        else:
            call.__doc__ = f"{head.rstrip()}\n\n{args}\n\n{sep.lstrip()}{tail}" if sep else f"{doc}\n\n{args}"
        call.__signature__ = sig  # type: ignore[attr-defined]
        call.__annotations__ = {}
        call.options = cls  # type: ignore[attr-defined]
        return call

    return wrap
