"""A griffe extension for the API reference: a function made by `mtgauntlet.options.takes` (its options declared
once in a dataclass) is shown with the signature and docstring it has at run time — each argument and keyword with
its type and default, the ``Args`` generated from the declaration — not the ``fn(o: Options)`` of its source.
Configured in mkdocs.yml (``extensions:`` of the python handler)."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import griffe

_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: griffe.ParameterKind.positional_only,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: griffe.ParameterKind.positional_or_keyword,
    inspect.Parameter.VAR_POSITIONAL: griffe.ParameterKind.var_positional,
    inspect.Parameter.KEYWORD_ONLY: griffe.ParameterKind.keyword_only,
    inspect.Parameter.VAR_KEYWORD: griffe.ParameterKind.var_keyword,
}


def _runtime(path: str) -> Any:
    module, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def _annotation(value: Any) -> str | None:
    if value is inspect.Parameter.empty:
        return None
    return value if isinstance(value, str) else inspect.formatannotation(value)


class DeclaredSignatures(griffe.Extension):
    """Replace the parameters and docstring of each `takes`-made function by its run-time ones."""

    def on_function(self, *, func: griffe.Function, **kwargs: Any) -> None:
        fn = _runtime(func.path)
        if fn is None or getattr(fn, "options", None) is None:  # not made from an options dataclass
            return
        sig = inspect.signature(fn)
        func.parameters = griffe.Parameters(
            *(
                griffe.Parameter(
                    p.name,
                    annotation=_annotation(p.annotation),
                    kind=_KINDS[p.kind],
                    default=None if p.default is inspect.Parameter.empty else repr(p.default),
                )
                for p in sig.parameters.values()
            )
        )
        func.returns = _annotation(sig.return_annotation)
        doc = inspect.getdoc(fn)
        if doc:
            func.docstring = griffe.Docstring(
                doc, parent=func, lineno=func.docstring.lineno if func.docstring else None
            )
