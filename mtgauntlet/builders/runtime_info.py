"""Where a builder's models ran, for its build manifest (``build.json`` ``runtime``): per role, the
``runtime_info()`` of every backend that reports one — device, dtype, batch, truncation and out-of-memory counts
for torch models, concurrency, timeout and retries for ``openai:`` servers — including backends wrapped inside
another (an ``llm-as-qe:`` role's LLM, the components of a QE ensemble, a round-trip QE's reverse translator)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mtgauntlet.models.base import Backend
from mtgauntlet.models.registry import public_spec

_MAX_CHILDREN = 64  # attributes holding more values than this are data, not backends


def _children(obj: Any) -> Iterable[Any]:
    for value in getattr(obj, "__dict__", {}).values():
        if isinstance(value, Backend):
            yield value
        elif isinstance(value, (list, tuple)) and len(value) <= _MAX_CHILDREN:
            yield from (v for v in value if isinstance(v, Backend))
        elif isinstance(value, dict) and len(value) <= _MAX_CHILDREN:
            yield from (v for v in value.values() if isinstance(v, Backend))


def backend_runtime(*backends: Any) -> dict[str, dict[str, Any]]:
    """``{public spec: runtime_info()}`` over ``backends`` and the backends inside them (empty infos left out)."""
    out: dict[str, dict[str, Any]] = {}
    seen: set[int] = set()
    stack = [b for b in backends if b is not None]
    while stack:
        backend = stack.pop(0)
        if id(backend) in seen:
            continue
        seen.add(id(backend))
        info = backend.runtime_info() if isinstance(backend, Backend) else {}
        if info:
            out[public_spec(getattr(backend, "spec", "")) or type(backend).__name__] = dict(info)
        stack.extend(_children(backend))
    return out


def roles_runtime(roles: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """``{role: {spec: info}}`` for the roles whose backends report where they ran; a role is a backend, a list of
    backends, or None."""
    out = {}
    for role, value in roles.items():
        found = backend_runtime(*(value if isinstance(value, (list, tuple)) else [value]))
        if found:
            out[role] = found
    return out
